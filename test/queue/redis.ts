import { Redis } from 'ioredis';
import { describe, it } from 'vitest';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisRequired = process.env.SELFDEBUG_REQUIRE_REDIS === '1';

async function redisProblem(): Promise<string | null> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return `no Redis answers at ${REDIS_URL} (${(error as Error).message})`;
  } finally {
    redis.disconnect();
  }
}

const problem = await redisProblem();

/**
 * A describe block that needs a Redis server. Without one it is skipped
 * locally, but with SELFDEBUG_REQUIRE_REDIS=1 (set by .ci/run) it fails, so
 * CI never passes on tests that did not run.
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (problem === null) {
    describe(name, body);
  } else if (redisRequired) {
    describe(name, () => {
      it('needs a Redis server (SELFDEBUG_REQUIRE_REDIS=1)', () => {
        throw new Error(`Redis is required but ${problem}`);
      });
    });
  } else {
    describe.skip(`${name} (skipped: ${problem})`, body);
  }
}
