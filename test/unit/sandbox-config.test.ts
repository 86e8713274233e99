import { describe, expect, it } from 'vitest';
import { forwarderCapacity } from '../../src/adapters/docker/sidecars.js';
import { loadSandboxConfig, parseSandboxConfig } from '../../src/config/load-config.js';
import { ConfigError } from '../../src/errors/index.js';

describe('sandbox configuration', () => {
  it('defaults to the locked-down settings', () => {
    expect(loadSandboxConfig({})).toMatchObject({
      kind: 'docker',
      user: '1000:1000',
      network: 'none',
      readOnlyRootFilesystem: true,
      pidsLimit: 512,
      memoryMb: 2048,
      cpus: 1,
    });
  });

  it('reads every limit from the environment', () => {
    const config = loadSandboxConfig({
      SELFDEBUG_SANDBOX_IMAGE: 'custom:1',
      SELFDEBUG_SANDBOX_MEMORY_MB: '256',
      SELFDEBUG_SANDBOX_CPUS: '1.5',
      SELFDEBUG_SANDBOX_PIDS_LIMIT: '100',
      SELFDEBUG_SANDBOX_READ_ONLY_ROOT: 'false',
      SELFDEBUG_SANDBOX_NETWORK: 'host',
      SELFDEBUG_SANDBOX_TIMEOUT_SECONDS: '30',
    });
    expect(config).toMatchObject({
      image: 'custom:1',
      memoryMb: 256,
      cpus: 1.5,
      pidsLimit: 100,
      readOnlyRootFilesystem: false,
      network: 'host',
      commandTimeoutSeconds: 30,
    });
  });

  it('reads the proxy’s TLS ports and connection limit, and sizes the forwarder above the limit', () => {
    expect(loadSandboxConfig({})).toMatchObject({ egressTlsPorts: [443], egressMaxConnections: 128 });
    const config = loadSandboxConfig({
      SELFDEBUG_EGRESS_TLS_PORTS: '443, 8443',
      SELFDEBUG_EGRESS_MAX_CONNECTIONS: '16',
    });
    expect(config).toMatchObject({ egressTlsPorts: [443, 8443], egressMaxConnections: 16 });
    expect(() => loadSandboxConfig({ SELFDEBUG_EGRESS_TLS_PORTS: '70000' })).toThrow(ConfigError);
    expect(() => loadSandboxConfig({ SELFDEBUG_EGRESS_MAX_CONNECTIONS: '0' })).toThrow(ConfigError);
    for (const limit of [1, 16, 128, 4096]) {
      const capacity = forwarderCapacity(limit);
      // Room past the proxy's limit for connections being refused, and a pid for socat and init beyond its children.
      expect(capacity.children).toBeGreaterThan(limit);
      expect(capacity.pids).toBeGreaterThanOrEqual(capacity.children + 2);
      expect(capacity.memoryMb).toBeGreaterThanOrEqual(64);
    }
  });

  it('refuses values that are not numbers instead of letting NaN through, naming the variable', () => {
    const error = (() => {
      try {
        loadSandboxConfig({ SELFDEBUG_SANDBOX_MEMORY_MB: 'lots', SELFDEBUG_SANDBOX_CPUS: '1e3' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('SELFDEBUG_SANDBOX_MEMORY_MB: "lots"');
    expect((error as Error).message).toContain('SELFDEBUG_SANDBOX_CPUS: "1e3"');
    expect((error as Error).message).toMatch(/Fix the values above/);
  });

  it('refuses a root user and an out-of-range limit, saying where', () => {
    expect(() => loadSandboxConfig({ SELFDEBUG_SANDBOX_USER: '0:0' })).toThrow(
      /root[\s\S]*SELFDEBUG_SANDBOX_USER/,
    );
    expect(() => loadSandboxConfig({ SELFDEBUG_SANDBOX_PIDS_LIMIT: '2' })).toThrow(
      /SELFDEBUG_SANDBOX_PIDS_LIMIT/,
    );
    expect(() => parseSandboxConfig({ network: 'bridge' }, '.github/selfdebug.yml')).toThrow(
      /\.github\/selfdebug\.yml[\s\S]*network/,
    );
  });
});
