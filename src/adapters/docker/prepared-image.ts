import { randomUUID } from 'node:crypto';
import type Docker from 'dockerode';
import { PreparedImageRefusedError } from '../../errors/index.js';
import type { CacheScope } from '../../sandbox/environment.js';
import { ENVIRONMENT_LABEL } from './environment-cache.js';

/**
 * Refuses an image that carries the prepared-environment label, whatever it
 * is called (retagged, named by id): the name check in the image policy only
 * sees names. Labels are inherited, so an image built on a prepared one is
 * refused too.
 */
export async function refusePrepared(docker: Docker, image: string): Promise<void> {
  const info = await docker
    .getImage(image)
    .inspect()
    .catch(() => null);
  if (info?.Config?.Labels?.[ENVIRONMENT_LABEL] !== undefined) throw new PreparedImageRefusedError(image);
}

/**
 * A scope of its own for a request that brings none (a test, a door that
 * has not said whose it is): its entry is saved, since the loop starts from
 * it, but no other job can ever name it.
 */
export function unscoped(): CacheScope {
  const ref = `unscoped/${randomUUID()}`;
  return { tenant: 'unscoped', repository: randomUUID(), ref, defaultRef: ref };
}
