import type Docker from 'dockerode';
import { SandboxError } from '../../errors/index.js';
import type { ImageStore } from './image-store.js';
import { containerLabels } from './labels.js';
import { SIDECAR_TOOLS } from './sidecars.js';

/**
 * For `doctor`: the sidecar image is on the engine (pulled if it can be) and
 * has every tool the holder and the forwarder run, asked of a short-lived
 * network-less container. Returns what to show; throws what to fix.
 */
export async function checkSidecarImage(docker: Docker, images: ImageStore, image: string): Promise<string> {
  await images.ensure(image);
  const script = `for tool in ${SIDECAR_TOOLS.join(' ')}; do command -v "$tool" >/dev/null || echo "$tool"; done`;
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['/bin/sh', '-c'],
    Cmd: [script],
    User: '65534:65534',
    Labels: containerLabels('doctor'),
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'], ReadonlyRootfs: true },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const logs = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
    // The multiplexed log's frame headers are binary: only the tool names are words.
    const missing = SIDECAR_TOOLS.filter((tool) => new RegExp(`(^|\\W)${tool}\\n`).test(logs));
    if (StatusCode !== 0 || missing.length > 0)
      throw new SandboxError(
        `the sidecar image ${image} lacks ${missing.join(', ') || '/bin/sh'}: set SELFDEBUG_SIDECAR_IMAGE ` +
          'to an image with them (selfdebug-executor, `npm run image`), or install them in it.',
      );
    return `${image} has ${SIDECAR_TOOLS.join(', ')}`;
  } finally {
    await container.remove({ force: true, v: true }).catch(() => {});
  }
}
