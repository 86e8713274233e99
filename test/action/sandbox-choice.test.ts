import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { existingToolCache, toolCachePath } from '../../src/action/sandbox-choice.js';
import { containerSpec } from '../../src/adapters/docker/container-spec.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { useTempDirs } from '../helpers/temp-dir.js';

describe("the action's sandbox choice", () => {
  const tempDir = useTempDirs();

  it('takes RUNNER_TOOL_CACHE only when it is an absolute folder that exists', async () => {
    const root = await tempDir('selfdebug-tool-cache-');
    await mkdir(join(root, 'cache'));
    await writeFile(join(root, 'file'), '');
    expect(await existingToolCache(join(root, 'cache'))).toBe(join(root, 'cache'));
    expect(await existingToolCache(join(root, 'file'))).toBeNull();
    expect(await existingToolCache(join(root, 'missing'))).toBeNull();
    expect(await existingToolCache('relative/cache')).toBeNull();
    expect(await existingToolCache(undefined)).toBeNull();
  });

  it("puts the job's PATH entries inside the tool cache first, in their order, and no others", () => {
    const path =
      '/opt/hostedtoolcache/node/20.1.0/x64/bin:/usr/bin:/opt/hostedtoolcache-other/bin:/opt/hostedtoolcache/Python/3.12.1/x64/bin';
    expect(toolCachePath(path, '/opt/hostedtoolcache')).toEqual([
      '/opt/hostedtoolcache/node/20.1.0/x64/bin',
      '/opt/hostedtoolcache/Python/3.12.1/x64/bin',
    ]);
    expect(toolCachePath(path, null)).toEqual([]);
  });

  it('mounts the tool cache read-only at its own path beside the workspace, network still none', () => {
    const spec = containerSpec(parseSandboxConfig({}), 'job', { readOnlyMounts: ['/opt/hostedtoolcache'] });
    expect(spec.HostConfig?.Mounts?.map((mount) => [mount.Type, mount.Target])).toEqual([
      ['volume', '/workspace'],
      ['bind', '/opt/hostedtoolcache'],
    ]);
    expect(spec.HostConfig?.Mounts?.[1]).toEqual({
      Type: 'bind',
      Source: '/opt/hostedtoolcache',
      Target: '/opt/hostedtoolcache',
      ReadOnly: true,
    });
    expect(spec.HostConfig?.NetworkMode).toBe('none');
  });
});
