import { ImageNotAllowedError, PreparedImageRefusedError } from '../errors/index.js';
import { matchesAny } from '../util/glob.js';

/**
 * Docker Hub's short names (`python:3.12`) and their long form
 * (`docker.io/library/python:3.12`) are one image; both spellings are tried
 * so an operator's glob matches whichever way a repository writes it.
 */
function spellings(image: string): string[] {
  const first = image.split('/')[0] ?? '';
  const hasRegistry =
    image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (hasRegistry) {
    const bare = image.replace(/^docker\.io\/(library\/)?/, '');
    return bare === image ? [image] : [image, bare];
  }
  const long = image.includes('/') ? `docker.io/${image}` : `docker.io/library/${image}`;
  return [image, long];
}

/** Where prepared environments are tagged; the adapter's cache writes under this name. */
export const PREPARED_IMAGE_REPOSITORY = 'selfdebug-env';

/**
 * A name under the prepared environments' repository, on any registry and
 * with any tag or digest. The adapter also refuses, by inspecting it, any
 * image that carries the prepared-environment label, whatever its name.
 */
function namesPreparedImage(image: string): boolean {
  const withoutDigest = image.split('@')[0] ?? image;
  const lastPart = withoutDigest.split('/').at(-1) ?? '';
  const repository = lastPart.split(':')[0] ?? '';
  return repository.toLowerCase() === PREPARED_IMAGE_REPOSITORY;
}

/**
 * Throws unless the operator's globs allow the image; an empty list allows
 * every image. A prepared environment is refused before the list is read:
 * no allowlist can hand one tenant's setup to another.
 */
export function checkImageAllowed(image: string, allowed: readonly string[]): void {
  if (namesPreparedImage(image)) throw new PreparedImageRefusedError(image);
  if (allowed.length === 0) return;
  if (spellings(image).some((spelling) => matchesAny(spelling, allowed))) return;
  throw new ImageNotAllowedError(image, allowed);
}
