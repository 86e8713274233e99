import Docker from 'dockerode';
import { describe, it } from 'vitest';

export const TEST_IMAGE = process.env.SELFDEBUG_TEST_IMAGE ?? 'selfdebug-executor:test';
/**
 * The OCI runtime the Docker suites run the job containers under: .ci/run runs the sandbox contract and the
 * attack suite once on the engine's default (runc) and once more with SELFDEBUG_SANDBOX_RUNTIME=runsc.
 */
export const TEST_RUNTIME = process.env.SELFDEBUG_SANDBOX_RUNTIME || undefined;
/** The sandbox settings every Docker suite starts from: the test image, under the runtime of this pass. */
export const TEST_SANDBOX: { image: string; runtime?: string } = {
  image: TEST_IMAGE,
  ...(TEST_RUNTIME ? { runtime: TEST_RUNTIME } : {}),
};
const dockerRequired = process.env.SELFDEBUG_REQUIRE_DOCKER === '1';

/** Whether a Docker engine answers and holds the test image. */
export async function dockerProblem(): Promise<string | null> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (error) {
    return `no Docker engine answers (${(error as Error).message})`;
  }
  try {
    await docker.getImage(TEST_IMAGE).inspect();
  } catch {
    return `the test image ${TEST_IMAGE} is missing (npm run image:test builds it, as .ci/run does)`;
  }
  return null;
}

const problem = await dockerProblem();

/**
 * A describe block that needs a real Docker engine. Without one it is
 * skipped locally, but with SELFDEBUG_REQUIRE_DOCKER=1 (set by .ci/run) it
 * fails, so CI never passes on tests that did not run.
 */
export function describeWithDocker(name: string, body: () => void): void {
  if (problem === null) {
    describe(name, body);
  } else if (dockerRequired) {
    describe(name, () => {
      it('needs a Docker engine (SELFDEBUG_REQUIRE_DOCKER=1)', () => {
        throw new Error(`Docker is required but ${problem}`);
      });
    });
  } else {
    describe.skip(`${name} (skipped: ${problem})`, body);
  }
}

/**
 * Removes the prepared environments the store kept in `cacheDir` made, and
 * only those: other tests' stores on the same engine are left alone.
 */
export async function removeStoreImages(cacheDir: string): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const { STORE_LABEL } = await import('../../src/adapters/docker/environment-cache.js');
  const store = (await readFile(`${cacheDir}/store-id`, 'utf8').catch(() => '')).trim();
  if (store === '') return;
  const docker = new Docker();
  const images = await docker.listImages({ filters: { label: [`${STORE_LABEL}=${store}`] } });
  for (const image of images)
    await docker
      .getImage(image.Id)
      .remove({ force: true })
      .catch(() => {});
}

/** The test image without socat (nor nc): what an official image such as node or python looks like to setup. */
export async function imageWithoutSocat(tag: string): Promise<void> {
  const docker = new Docker();
  const container = await docker.createContainer({
    Image: TEST_IMAGE,
    User: '0:0',
    Entrypoint: [],
    Cmd: ['sh', '-c', 'rm -f "$(command -v socat)" "$(command -v nc)"; ! command -v socat'],
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none' },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new Error(`could not remove socat from ${TEST_IMAGE} (exit ${StatusCode})`);
    const [repo, name] = tag.split(':');
    await container.commit({ repo, tag: name });
  } finally {
    await container.remove({ force: true });
  }
}
