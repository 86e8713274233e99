import Docker from 'dockerode';
import { describe, it } from 'vitest';

export const TEST_IMAGE = process.env.SELFDEBUG_TEST_IMAGE ?? 'selfdebug-executor:test';
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
    return `the test image ${TEST_IMAGE} is missing (npm run image:test builds it)`;
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
