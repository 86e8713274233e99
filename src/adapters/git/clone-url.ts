import { GitError } from '../../errors/index.js';

/**
 * Checks the clone URL before git sees it. Credentials in it would be written
 * to .git/config and printed in git's messages, so they are refused rather
 * than stripped: the caller has a bug to fix.
 */
export function assertCloneUrl(cloneUrl: string, allowedProtocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(cloneUrl);
  } catch {
    throw new GitError(
      'checkout',
      `The clone URL "${cloneUrl}" is not a URL. Pass the repository's https clone URL.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    // The URL is not repeated: its userinfo is the secret.
    throw new GitError(
      'checkout',
      'The clone URL contains credentials. Pass the clone URL without them and the token separately.',
    );
  }
  const protocol = url.protocol.replace(/:$/, '');
  if (!allowedProtocols.includes(protocol)) {
    throw new GitError(
      'checkout',
      `The clone URL "${cloneUrl}" uses ${protocol}, but only ${allowedProtocols.join(', ')} is allowed. ` +
        "Pass the repository's https clone URL.",
    );
  }
  if (protocol === 'http' && !LOOPBACK_HOSTS.has(url.hostname)) {
    // The token travels in a header: over plain http it may only go to this machine.
    throw new GitError(
      'checkout',
      `The clone URL "${cloneUrl}" uses http to another host; plain http is only allowed to 127.0.0.1, ::1 ` +
        "or localhost. Pass the repository's https clone URL.",
    );
  }
  return url;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
