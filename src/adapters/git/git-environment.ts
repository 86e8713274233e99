import type { Environment } from '../../config/read-environment.js';

/**
 * The environment every git command runs in. It is built from an allow-list
 * rather than from the host's variables minus a few names: inherited GIT_* variables
 * (GIT_DIR, GIT_CONFIG_*, GIT_SSH_COMMAND, GIT_TRACE_CURL...) could redirect
 * git to another repository, run programs, or print the token, and git reads
 * too many of them to list.
 */
const INHERITED = [
  'PATH',
  'HOME',
  'TMPDIR',
  'SYSTEMROOT',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'CURL_CA_BUNDLE',
];

/** `host`: the variables selfdebug was started with, as its entry point read them. */
export function gitEnvironment(
  allowedProtocols: readonly string[],
  host: Environment,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = host[name];
    if (value !== undefined) environment[name] = value;
  }
  return {
    ...environment,
    // English messages: the adapter recognises a few of git's failures by their words.
    LC_ALL: 'C',
    // Never wait for a password that nobody will type; fail instead.
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'false',
    // No reliance on the machine's or the user's git configuration.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // Unlike protocol.allow, this cannot be loosened by a repository's own configuration.
    GIT_ALLOW_PROTOCOL: allowedProtocols.join(':'),
    // Paths come from the model: `:(glob)` and other pathspec magic must mean nothing.
    GIT_LITERAL_PATHSPECS: '1',
  };
}

/**
 * `-c` settings for every command. The content of the repository is untrusted:
 * its hooks must not run, and nothing may fetch submodules or follow a
 * redirect (the token header would follow it to another host).
 */
export const SAFETY_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'credential.helper=',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'http.followRedirects=false',
  'commit.gpgSign=false',
  'advice.detachedHead=false',
  'init.defaultBranch=main',
  'gc.auto=0',
  'maintenance.auto=false',
];
