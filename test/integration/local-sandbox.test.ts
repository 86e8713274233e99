import { access } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { withToolPath } from '../../src/action/tool-path.js';
import {
  LOCAL_SANDBOX_WARNING,
  LocalSandboxProvider,
} from '../../src/adapters/local/local-sandbox-provider.js';
import { observeSandboxes } from '../../src/compose/observe-sandbox.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { slottedSandboxes } from '../../src/jobs/guarded-ports.js';
import { noMetrics } from '../../src/metrics/metrics.js';
import { sandboxContract } from '../contract/sandbox-contract.js';
import { sandboxLinksContract } from '../contract/sandbox-links-contract.js';
import { heldLease } from '../fakes/held-lease.js';
import { ManualTimers } from '../helpers/manual-timers.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const config = parseSandboxConfig({ kind: 'local' });
/** The time limits of every local sandbox below: they pass when a contract test says so. */
const timers = new ManualTimers();
const local = () => new LocalSandboxProvider(config, { host: process.env, warn: () => {}, timers });
const exists = async (id: string) =>
  access(id).then(
    () => true,
    () => false,
  );

sandboxContract({ name: 'local child processes', provider: local, exists, timers });
sandboxLinksContract({ name: 'local child processes', provider: local, exists, timers });

// The wrappers that implement the port keep its promises too, over the sandbox they wrap.
sandboxContract({
  name: 'withToolPath (the Action’s tool cache on PATH) over local child processes',
  provider: () => {
    const inner = local();
    return {
      kind: inner.kind,
      open: async (request) => withToolPath(await inner.open(request), ['/opt/hostedtoolcache/tool/bin']),
    };
  },
  exists,
  timers,
});

const guard = await heldLease(1);
sandboxContract({
  name: 'slottedSandboxes (the worker’s container slots, one here) over local child processes',
  provider: () => slottedSandboxes(local(), guard),
  exists,
  timers,
});

sandboxContract({
  name: 'observeSandboxes (command metrics) over local child processes',
  provider: () => observeSandboxes(local(), noMetrics),
  exists,
  timers,
});

describe('LocalSandboxProvider', () => {
  const tempDir = useTempDirs();

  it('warns loudly, once, that it is unsafe for untrusted code', async () => {
    const warnings: string[] = [];
    const logged: string[] = [];
    const logger = {
      debug() {},
      info() {},
      error() {},
      warn: (_fields: object, message: string) => logged.push(message),
    };
    const provider = new LocalSandboxProvider(config, {
      host: process.env,
      logger,
      warn: (message) => warnings.push(message),
    });
    const first = await provider.open({ jobId: 'one', workspace: await tempDir() });
    const second = await provider.open({ jobId: 'two', workspace: await tempDir() });
    await Promise.all([first.dispose(), second.dispose()]);
    expect(warnings).toEqual([LOCAL_SANDBOX_WARNING]);
    expect(logged).toEqual([LOCAL_SANDBOX_WARNING]);
    expect(LOCAL_SANDBOX_WARNING).toMatch(/UNSAFE/);
    expect(LOCAL_SANDBOX_WARNING).toMatch(/trust/);
  });
});
