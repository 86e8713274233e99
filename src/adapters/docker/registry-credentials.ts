import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the engine's pull endpoint takes as X-Registry-Auth (dockerode's `authconfig`). */
interface RegistryAuth {
  username?: string;
  password?: string;
  identitytoken?: string;
  serveraddress: string;
}

/** Credentials by registry host (`ghcr.io`, `127.0.0.1:5000`; Docker Hub is `docker.io`). */
export type RegistryCredentials = ReadonlyMap<string, RegistryAuth>;

const DOCKER_HUB = 'docker.io';
const HUB_ALIASES = new Set(['index.docker.io', 'registry-1.docker.io', 'https://index.docker.io/v1/']);

/** The registry an image reference names: its first part when that looks like a host, else Docker Hub. */
export function registryOf(image: string): string {
  const slash = image.indexOf('/');
  if (slash === -1) return DOCKER_HUB;
  const first = image.slice(0, slash);
  const isHost = first.includes('.') || first.includes(':') || first === 'localhost';
  return isHost ? normalizeHost(first) : DOCKER_HUB;
}

function normalizeHost(host: string): string {
  const bare = host.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
  return HUB_ALIASES.has(host) || HUB_ALIASES.has(bare) ? DOCKER_HUB : bare;
}

/**
 * Reads the operator's registry credentials the way the docker CLI keeps
 * them: `auths` in $DOCKER_CONFIG/config.json (or ~/.docker/config.json),
 * plus SELFDEBUG_REGISTRY_CREDENTIALS, a JSON object of host → {username,
 * password}, which wins. Credential helpers (`credsStore`) are not run: a
 * helper is a program, and the App does not start programs named by a file.
 */
export function loadRegistryCredentials(env: Record<string, string | undefined>): RegistryCredentials {
  const credentials = new Map<string, RegistryAuth>();
  const configDir = env.DOCKER_CONFIG ?? join(env.HOME ?? homedir(), '.docker');
  for (const [host, auth] of Object.entries(dockerConfigAuths(join(configDir, 'config.json'))))
    credentials.set(normalizeHost(host), { ...auth, serveraddress: normalizeHost(host) });
  const extra = env.SELFDEBUG_REGISTRY_CREDENTIALS;
  if (extra) {
    for (const [host, value] of Object.entries(parseJsonObject(extra, 'SELFDEBUG_REGISTRY_CREDENTIALS'))) {
      const { username, password } = value as { username?: unknown; password?: unknown };
      if (typeof username !== 'string' || typeof password !== 'string')
        throw new Error(
          `SELFDEBUG_REGISTRY_CREDENTIALS: "${host}" needs {"username": "...", "password": "..."}`,
        );
      credentials.set(normalizeHost(host), { username, password, serveraddress: normalizeHost(host) });
    }
  }
  return credentials;
}

/** Every secret the credentials hold, for the redactor. */
export function credentialSecrets(credentials: RegistryCredentials): string[] {
  return [...credentials.values()].flatMap((auth) =>
    [auth.password, auth.identitytoken].filter((value): value is string => Boolean(value)),
  );
}

function dockerConfigAuths(path: string): Record<string, Omit<RegistryAuth, 'serveraddress'>> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  const auths = parseJsonObject(text, path).auths;
  if (typeof auths !== 'object' || auths === null) return {};
  const result: Record<string, Omit<RegistryAuth, 'serveraddress'>> = {};
  for (const [host, entry] of Object.entries(auths as Record<string, Record<string, unknown>>)) {
    if (typeof entry?.identitytoken === 'string') result[host] = { identitytoken: entry.identitytoken };
    else if (typeof entry?.auth === 'string') {
      const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) result[host] = { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
  }
  return result;
}

function parseJsonObject(text: string, source: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Reported below with the source named.
  }
  throw new Error(`${source} is not a JSON object; fix or remove it`);
}
