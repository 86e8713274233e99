import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import { resumableWorkspaces } from '../../src/jobs/guarded-ports.js';
import { silentLogger } from '../../src/util/logger.js';
import { installationToken, standinOctokit } from '../fakes/github-standin/clients.js';
import { GitHubStandin } from '../fakes/github-standin/standin.js';
import { heldLease } from '../fakes/held-lease.js';
import { GitHttpServer } from '../helpers/git-http-server.js';
import {
  WORKSPACE_FILES,
  type WorkspaceRemote,
  type WorkspaceSubject,
  workspaceContract,
} from './workspace-contract.js';

const execFileAsync = promisify(execFile);

const TOKEN = 'ghs_test0123456789abcdefghijklmnopqrstuv';
const WRONG_TOKEN = 'ghs_wrong0123456789abcdefghijklmnopqrstu';

// Checkouts from a server on 127.0.0.1 go over plain http.
const provider = () => new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env });

/** null where `read` throws: both servers' helpers throw for a file or branch that is not there. */
function orNull(read: Promise<string>): Promise<string | null> {
  return read.catch(() => null);
}

/** The loopback git server of the integration tests: `git http-backend` behind one token. */
async function gitHttpServer(): Promise<{ remote: WorkspaceRemote; close: () => Promise<void> }> {
  const server = await GitHttpServer.start({ token: TOKEN });
  const commits = await server.createRepository('project', WORKSPACE_FILES);
  return {
    remote: {
      cloneUrl: server.url('project'),
      missingCloneUrl: server.url('nothing-here'),
      commits,
      token: TOKEN,
      wrongToken: WRONG_TOKEN,
      branchSha: (branch) => server.branchSha('project', branch),
      readFile: (branch, path) => orNull(server.readFile('project', branch, path)),
      setBranch: async (branch, sha) => {
        await execFileAsync('git', ['branch', '--force', '--', branch, sha], {
          cwd: server.repositoryPath('project'),
        });
      },
    },
    close: () => server.close(),
  };
}

workspaceContract('GitWorkspaceProvider over git http-backend', async () => {
  const { remote, close } = await gitHttpServer();
  return { provider: provider(), remote, close };
});

workspaceContract('GitWorkspaceProvider over the GitHub stand-in', async () => {
  const standin = await GitHubStandin.start();
  const repository = await standin.createRepository('octo-org', 'app', WORKSPACE_FILES);
  const token = await installationToken(standinOctokit(standin));
  const subject: WorkspaceSubject = {
    provider: provider(),
    remote: {
      cloneUrl: repository.cloneUrl,
      missingCloneUrl: repository.cloneUrl.replace('/app.git', '/nothing-here.git'),
      commits: repository.commits,
      token,
      wrongToken: WRONG_TOKEN,
      branchSha: (branch) => standin.branchSha('octo-org/app', branch),
      readFile: (branch, path) => orNull(standin.readFile('octo-org/app', branch, path)),
      setBranch: (branch, sha) => standin.createBranch('octo-org/app', branch, sha),
    },
    close: () => standin.close(),
  };
  return subject;
});

workspaceContract('resumableWorkspaces (the worker’s wrapper) over GitWorkspaceProvider', async () => {
  const { remote, close } = await gitHttpServer();
  return { provider: resumableWorkspaces(provider(), await heldLease(), silentLogger), remote, close };
});
