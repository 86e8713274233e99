import { newInstallationToken } from './auth.js';
import { appObject, example, type Json, rehome, userObject } from './objects.js';
import { json, notFound, numberParam, type Routes, repositoryOf, type World } from './route.js';

/** What the installation may do: what app.yml asks for. */
const PERMISSIONS = {
  actions: 'read',
  checks: 'write',
  contents: 'write',
  issues: 'write',
  metadata: 'read',
  pull_requests: 'write',
};

/** The App and its one installation, which covers every repository of the stand-in. */
export const appRoutes: Routes = {
  'POST /app/installations/{installation_id}/access_tokens': {
    auth: 'app',
    handle: (call, world) => {
      if (numberParam(call, 'installation_id') !== world.state.app.installationId) return notFound();
      const { token, expiresAt } = newInstallationToken();
      world.state.tokens.set(token, expiresAt);
      world.state.issuedTokens.push(token);
      const { repositories: _repositories, ...shaped } = example(
        'POST /app/installations/{installation_id}/access_tokens',
        201,
      );
      return json(201, {
        ...shaped,
        token,
        expires_at: `${new Date(expiresAt).toISOString().slice(0, 19)}Z`,
        permissions: PERMISSIONS,
        repository_selection: 'all',
      });
    },
  },
  'GET /app/installations': {
    auth: 'app',
    handle: (_call, world) => json(200, [installationObject(world, firstOwner(world))]),
  },
  'GET /app/installations/{installation_id}': {
    auth: 'app',
    handle: (call, world) => {
      if (numberParam(call, 'installation_id') !== world.state.app.installationId) return notFound();
      return json(200, installationObject(world, firstOwner(world)));
    },
  },
  'GET /repos/{owner}/{repo}/installation': {
    auth: 'app',
    handle: (call, world) => {
      const repository = repositoryOf(call, world);
      if (repository === undefined) return notFound();
      return json(200, installationObject(world, repository.owner));
    },
  },
  'GET /app': { auth: 'app', handle: (_call, world) => json(200, appObject(world.state)) },
};

function firstOwner(world: World): string {
  return world.state.repositories.values().next().value?.owner ?? 'octo-org';
}

function installationObject(world: World, account: string): Json {
  const { state } = world;
  const { site, app } = state;
  const owner = userObject(state, account);
  return {
    ...rehome(example('GET /app/installations/{installation_id}', 200), site),
    id: app.installationId,
    account: owner,
    access_tokens_url: `${site.apiUrl}/app/installations/${app.installationId}/access_tokens`,
    repositories_url: `${site.apiUrl}/installation/repositories`,
    html_url: `${site.webUrl}/settings/installations/${app.installationId}`,
    app_id: app.id,
    app_slug: app.slug,
    target_id: owner.id,
    target_type: 'User',
    permissions: PERMISSIONS,
    events: ['issue_comment', 'workflow_run', 'pull_request_review', 'push'],
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    repository_selection: 'all',
    suspended_at: null,
    suspended_by: null,
  };
}
