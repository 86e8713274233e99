/**
 * The installation token travels to git only as an HTTP header set through
 * the environment (GIT_CONFIG_COUNT/KEY/VALUE): never in a remote URL, where
 * it would be written to .git/config, nor on a command line, where any user
 * of the machine could read it from the process list.
 */
const TOKEN_USER = 'x-access-token';

function authorizationHeader(token: string): string {
  return `Authorization: Basic ${basicCredentials(token)}`;
}

/** The environment that makes git send the header on every request of one command. */
export function tokenEnvironment(token: string): Record<string, string> {
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'http.extraHeader',
    GIT_CONFIG_VALUE_0: authorizationHeader(token),
  };
}

/** Every form in which the token could show up in git's output. */
export function tokenSecrets(token: string): string[] {
  return [basicCredentials(token), token].filter((secret) => secret.length > 0);
}

function basicCredentials(token: string): string {
  return Buffer.from(`${TOKEN_USER}:${token}`).toString('base64');
}
