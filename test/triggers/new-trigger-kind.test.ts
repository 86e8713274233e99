import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitWorkspaceProvider } from '../../src/adapters/git/git-workspace-provider.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { JobRefusedError, UnknownTriggerError } from '../../src/errors/job-errors.js';
import { buildTask } from '../../src/jobs/build-task.js';
import { jobTrailers, planDelivery } from '../../src/jobs/delivery-plan.js';
import { prepareCheckout } from '../../src/jobs/prepare-checkout.js';
import { resolveTarget } from '../../src/jobs/resolve-target.js';
import { MarkdownWriter } from '../../src/report/markdown.js';
import { Redactor } from '../../src/report/redact.js';
import {
  BUILTIN_TRIGGERS,
  createTriggerRegistry,
  type TriggerModule,
  triggers,
} from '../../src/triggers/index.js';
import { BRANCH_PREFIX, isOwnBranch, ROUND_TRAILER } from '../../src/workspace/selfdebug-branches.js';
import { FakeCodeHost } from '../fakes/fake-code-host.js';
import { jobRequest } from '../fakes/job-requests.js';
import { GitHttpServer } from '../helpers/git-http-server.js';

const TOKEN = 'ghs_chattoken0123456789abcdefghijklmnop';

/** A kind selfdebug does not have: a message in a chat room asks it to fix a branch. */
interface ChatTrigger {
  kind: 'chat';
  room: string;
  branch: string;
  message: string;
}

/** The whole of the new kind: one module. */
const chat: TriggerModule<ChatTrigger> = {
  kind: 'chat',
  issueNumber: () => null,
  serialKey: (trigger) => `branch:${trigger.branch}`,
  branch: (trigger) => trigger.branch,
  loopMode: () => 'fix',
  target: async ({ trigger, headSha }, host) => {
    const own = isOwnBranch(trigger.branch);
    return {
      headSha: headSha ?? (await host.branchHead(trigger.branch)),
      ref: trigger.branch,
      workBranch: own ? trigger.branch : `${BRANCH_PREFIX}chat-${trigger.room}`,
      ownBranch: own,
      baseBranch: trigger.branch,
      existingPull: null,
    };
  },
  // The message goes into the workspace, so the fix can read what was asked.
  task: async ({ trigger }, _host, { command, setupCommands }) => ({
    task: { description: trigger.message, command: command ?? 'sh check.sh', setupCommands },
    scripts: [{ path: 'selfdebug-chat/message.txt', content: trigger.message }],
  }),
  automatic: true,
  describe: (trigger, requestedBy, md) =>
    `Asked by ${md.line(`@${requestedBy}`, 60)} in chat room ${md.code(trigger.room, 40)}`,
  issueToClose: () => null,
};

/** The one registry line: production's list, plus the new module. */
const registry = createTriggerRegistry([...BUILTIN_TRIGGERS, chat]);

describe('a new trigger kind', () => {
  let server: GitHttpServer;
  let shas: string[];
  const workspaces = new GitWorkspaceProvider({ allowedProtocols: ['http'], host: process.env });

  beforeAll(async () => {
    server = await GitHttpServer.start({ token: TOKEN });
    shas = await server.createRepository('app', [{ 'check.sh': 'exit 1\n' }]);
  });
  afterAll(() => server.close());

  function chatRequest(branch: string) {
    const trigger: ChatTrigger = {
      kind: 'chat',
      room: 'ops',
      branch,
      message: 'check.sh fails since Monday',
    };
    return { ...jobRequest({ id: 'CHAT-0001' }), trigger };
  }

  it('runs through target, task, checkout, delivery and wording with one module and one registry line', async () => {
    const host = new FakeCodeHost('octo/app');
    host.branches.set('develop', shas[0]!);
    const request = chatRequest('develop');

    const target = await resolveTarget(request, host, null, registry);
    expect(target).toEqual({
      headSha: shas[0],
      ref: 'develop',
      workBranch: 'selfdebug/chat-ops',
      ownBranch: false,
      baseBranch: 'develop',
      existingPull: null,
      reportTo: null,
    });

    const prepared = await buildTask(request, host, { setup: ['true'] }, registry);
    expect(prepared.task).toEqual({
      description: 'check.sh fails since Monday',
      command: 'sh check.sh',
      setupCommands: ['true'],
    });

    const workspace = await workspaces.checkout({
      cloneUrl: server.url('app'),
      sha: target.headSha,
      token: TOKEN,
    });
    try {
      await prepareCheckout(
        workspace,
        { request, target, prepared, maxRounds: 1, handle: 'selfdebug' },
        registry,
      );
      expect(await readFile(join(workspace.dir, 'selfdebug-chat/message.txt'), 'utf8')).toBe(
        'check.sh fails since Monday',
      );
    } finally {
      await workspace.dispose();
    }

    const trailers = jobTrailers(request, registry);
    expect(trailers).toEqual(['Selfdebug-Job: CHAT-0001', ROUND_TRAILER]);
    const plan = planDelivery({
      loop: { outcome: 'fixed', changedFiles: ['check.sh'], reflection: null },
      fixes: prepared.task.command,
      trailers,
      scripts: null,
      refused: [],
      partialFix: 'withhold',
      target,
      settings: defaultRepoConfig.pull_request,
      author: { name: 'selfdebug[bot]', email: 'bot@example.com' },
      redactor: Redactor.none,
    });
    expect(plan).toMatchObject({
      kind: 'push',
      branch: 'selfdebug/chat-ops',
      commit: { files: ['check.sh'] },
      pullRequest: { existing: null, base: 'develop' },
    });
    expect(plan.kind === 'push' && plan.commit.message).toContain(ROUND_TRAILER);

    const module = registry.moduleOf(request.trigger);
    expect(module.describe(request.trigger, 'octocat', new MarkdownWriter(Redactor.none))).toBe(
      'Asked by @\u200doctocat in chat room `ops`',
    );
    expect([module.serialKey(request.trigger), module.issueToClose(request.trigger)]).toEqual([
      'branch:develop',
      null,
    ]);
  });

  it('caps its automatic rounds on its own branch, as the checkout does for failed runs', async () => {
    const workspace = await workspaces.checkout({ cloneUrl: server.url('app'), sha: shas[0]!, token: TOKEN });
    try {
      await workspace.createBranch('selfdebug/chat-ops');
      await writeFile(join(workspace.dir, 'check.sh'), 'exit 0\n');
      await workspace.commit(`fix check.sh\n\n${ROUND_TRAILER}`, {
        name: 'selfdebug[bot]',
        email: 'bot@example.com',
      });
      const request = chatRequest('selfdebug/chat-ops');
      const host = new FakeCodeHost('octo/app');
      const target = await resolveTarget({ ...request, headSha: shas[0]! }, host, null, registry);
      expect(target.ownBranch).toBe(true);
      const prepared = await buildTask(request, host, { setup: [] }, registry);
      const checkout = prepareCheckout(
        workspace,
        { request, target, prepared, maxRounds: 1, handle: 'selfdebug' },
        registry,
      );
      await expect(checkout).rejects.toThrow(JobRefusedError);
      await expect(checkout).rejects.toThrow('already pushed 1 automatic fix');
    } finally {
      await workspace.dispose();
    }
  });

  it('is unknown to the built-in registry until its line is added', () => {
    expect(() => triggers.moduleOf(chatRequest('develop').trigger)).toThrow(UnknownTriggerError);
  });
});
