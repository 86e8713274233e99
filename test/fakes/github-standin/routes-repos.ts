import { example, rehome, repositoryObject, userObject } from './objects.js';
import { directoryObject, fileObject, submoduleObject, symlinkObject } from './objects-contents.js';
import { json, notFound, type Reply, type Routes, repositoryOf } from './route.js';
import type { Role } from './state.js';

/** The legacy `permission` field knows only admin, write, read and none. */
const LEGACY_PERMISSION: Record<Role, string> = {
  admin: 'admin',
  maintain: 'write',
  write: 'write',
  triage: 'read',
  read: 'read',
  none: 'none',
};

const RAW_MEDIA_TYPE = /application\/vnd\.github(?:\.v3)?\.raw/;

export const repositoryRoutes: Routes = {
  'GET /repos/{owner}/{repo}': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      return repository === undefined ? notFound() : json(200, repositoryObject(world.state, repository));
    },
  },

  'GET /repos/{owner}/{repo}/contents/{path}': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const { state, git } = world;
      const ref = call.query.get('ref') ?? repository.defaultBranch;
      const commit = await git.resolveCommit(repository.fullName, ref);
      if (commit === null) {
        return json(404, {
          message: `No commit found for the ref ${ref}`,
          documentation_url: 'https://docs.github.com/rest',
          status: '404',
        });
      }
      const path = (call.params.path ?? '').replace(/^\/+|\/+$/g, '');
      const entry = await git.entry(repository.fullName, commit, path);
      if (entry === null) return notFound();
      if (entry.type === 'tree') {
        const entries = await git.list(repository.fullName, commit, path);
        return json(200, directoryObject(state, repository, entries, ref));
      }
      if (entry.type === 'commit') return json(200, submoduleObject(state, repository, entry, ref));
      const content = await git.blob(repository.fullName, entry.sha);
      if (entry.mode === '120000') {
        return json(200, symlinkObject(state, repository, entry, ref, content.toString('utf8')));
      }
      // With the raw media type the body is the file itself; directories above stay JSON, as on GitHub.
      if (RAW_MEDIA_TYPE.test(String(call.headers.accept ?? ''))) {
        return { status: 200, raw: { content, contentType: 'text/plain; charset=utf-8' } };
      }
      return json(200, fileObject(state, repository, entry, ref, content));
    },
  },

  'GET /repos/{owner}/{repo}/branches/{branch}': {
    auth: 'installation',
    handle: async (call, world): Promise<Reply> => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const branch = call.params.branch ?? '';
      const sha = await world.git.branchSha(repository.fullName, branch);
      if (sha === null) {
        return json(404, {
          message: 'Branch not found',
          documentation_url: 'https://docs.github.com/rest',
          status: '404',
        });
      }
      const { site } = world.state;
      const base = rehome(
        example('GET /repos/{owner}/{repo}/branches/{branch}', 200),
        site,
        repository.fullName,
      );
      const commit = base.commit as Record<string, unknown>;
      const commitUrl = `${site.apiUrl}/repos/${repository.fullName}/commits/${sha}`;
      return json(200, {
        ...base,
        name: branch,
        commit: {
          ...commit,
          sha,
          node_id: Buffer.from(`Commit:${sha}`).toString('base64'),
          url: commitUrl,
          html_url: `${site.webUrl}/${repository.fullName}/commit/${sha}`,
          comments_url: `${commitUrl}/comments`,
          parents: [],
        },
        _links: {
          self: `${site.apiUrl}/repos/${repository.fullName}/branches/${encodeURIComponent(branch)}`,
          html: `${site.webUrl}/${repository.fullName}/tree/${branch}`,
        },
        protected: false,
        protection_url: `${site.apiUrl}/repos/${repository.fullName}/branches/${encodeURIComponent(branch)}/protection`,
      });
    },
  },

  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': {
    auth: 'installation',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      const login = call.params.username ?? '';
      const role = repository.roles.get(login);
      // GitHub answers 404 for someone who is not a collaborator.
      if (role === undefined || role === 'none') return notFound();
      const permission = LEGACY_PERMISSION[role];
      const user = {
        ...userObject(world.state, login),
        role_name: role,
        permissions: {
          admin: role === 'admin',
          maintain: role === 'admin' || role === 'maintain',
          push: permission === 'admin' || permission === 'write',
          triage: role !== 'read',
          pull: true,
        },
      };
      return json(200, {
        ...example('GET /repos/{owner}/{repo}/collaborators/{username}/permission', 200),
        permission,
        role_name: role,
        user,
      });
    },
  },
};
