import { ImageNotAllowedError } from '../errors/index.js';
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

/** Throws unless the operator's globs allow the image; an empty list allows every image. */
export function checkImageAllowed(image: string, allowed: readonly string[]): void {
  if (allowed.length === 0) return;
  if (spellings(image).some((spelling) => matchesAny(spelling, allowed))) return;
  throw new ImageNotAllowedError(image, allowed);
}
