import { describe, expect, it } from 'vitest';
import { containerSpec } from '../../src/adapters/docker/container-spec.js';
import { JOB_LABEL, MANAGED_LABEL, OWNER_LABEL, parseOwner } from '../../src/adapters/docker/labels.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';

describe('containerSpec', () => {
  it('locks the container down by default', () => {
    const spec = containerSpec(parseSandboxConfig({}), 'job/42');
    // Commands run as 1000:1000 (the exec's user); init and the keeper as nobody, out of their ptrace reach.
    expect(spec.User).toBe('65534:65534');
    expect(spec.NetworkDisabled).toBe(true);
    expect(spec.HostConfig).toMatchObject({
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges:true'],
      ReadonlyRootfs: true,
      Privileged: false,
      PidsLimit: 512,
      // The program's 2 GB plus the workspace's 2 GB, which lives in memory.
      Memory: (2048 + 2048) * 1024 * 1024,
      MemorySwap: (2048 + 2048) * 1024 * 1024,
      NanoCpus: 1e9,
    });
    expect(spec.HostConfig?.Tmpfs?.['/tmp']).toMatch(/size=512m/);
    expect(spec.HostConfig?.Binds).toBeUndefined();
    expect(spec.HostConfig?.Mounts).toEqual([
      {
        Type: 'volume',
        Source: '',
        Target: '/workspace',
        VolumeOptions: {
          NoCopy: true,
          Labels: {},
          DriverConfig: {
            Name: 'local',
            Options: {
              type: 'tmpfs',
              device: 'tmpfs',
              o: 'size=2048m,nr_inodes=500000,uid=1000,gid=1000,mode=0755,nosuid,nodev',
            },
          },
        },
      },
    ]);
    expect(spec.name).toMatch(/^selfdebug-job-42-[a-z0-9]+$/);
  });

  it('labels the container with its job and the process that owns it', () => {
    const labels = containerSpec(parseSandboxConfig({}), 'job-7').Labels ?? {};
    expect(labels[MANAGED_LABEL]).toBe('true');
    expect(labels[JOB_LABEL]).toBe('job-7');
    expect(parseOwner(labels[OWNER_LABEL])?.pid).toBe(process.pid);
  });

  it('follows overrides', () => {
    const spec = containerSpec(
      parseSandboxConfig({
        memoryMb: 128,
        workspaceMb: 64,
        cpus: 2,
        pidsLimit: 50,
        network: 'host',
        readOnlyRootFilesystem: false,
      }),
      'j',
    );
    expect(spec.HostConfig).toMatchObject({
      Memory: (128 + 64) * 1024 * 1024,
      NanoCpus: 2e9,
      PidsLimit: 50,
      NetworkMode: 'host',
    });
    expect(spec.HostConfig?.ReadonlyRootfs).toBe(false);
    expect(spec.NetworkDisabled).toBe(false);
  });
});
