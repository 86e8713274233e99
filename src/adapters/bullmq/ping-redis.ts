import { Redis } from 'ioredis';

/**
 * One PING with a short timeout and no retries, for `selfdebug doctor`: it
 * answers whether REDIS_URL is reachable now rather than waiting to reconnect.
 */
export async function pingRedis(url: string): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // ioredis also emits connection failures as events; the awaited calls below carry them.
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } finally {
    redis.disconnect();
  }
}
