import { access } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  LOCAL_SANDBOX_WARNING,
  LocalSandboxProvider,
} from '../../src/adapters/local/local-sandbox-provider.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { sandboxContract } from '../contract/sandbox-contract.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const config = parseSandboxConfig({ kind: 'local' });

sandboxContract({
  name: 'local child processes',
  provider: () => new LocalSandboxProvider(config, { host: process.env, warn: () => {} }),
  exists: async (id) =>
    access(id).then(
      () => true,
      () => false,
    ),
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
