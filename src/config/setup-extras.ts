import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { ConfigError } from '../errors/index.js';

/**
 * The operator's additions to setup (docs/environments.md#operator-settings-for-setup):
 * variables set in setup containers only (a registry mirror, a token for a
 * private registry) and certificate authorities every job container trusts
 * (a TLS-inspecting proxy's, a private registry's).
 */
export interface SetupExtras {
  /** KEY=VALUE from SELFDEBUG_SETUP_ENV_FILE: set in setup's commands only, never in the loop. */
  env: Readonly<Record<string, string>>;
  /** `host:port` of every URL among those values: the mirrors setup may reach. */
  mirrorHosts: readonly string[];
  /** SELFDEBUG_EXTRA_CA_CERTS: the operator's certificates, and Node's public roots with them appended. */
  caCerts: { extra: string; bundle: string } | null;
}

export const NO_SETUP_EXTRAS: SetupExtras = { env: {}, mirrorHosts: [], caCerts: null };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * KEY=VALUE lines, as Docker's --env-file reads them: `#` starts a comment
 * line, blank lines are skipped, a value may be wrapped in one pair of quotes.
 * Throws a ConfigError naming the line of anything else.
 */
export function parseSetupEnvFile(text: string, source: string): Record<string, string> {
  const env: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const equals = line.indexOf('=');
    const name =
      equals > 0
        ? line
            .slice(0, equals)
            .replace(/^export\s+/, '')
            .trim()
        : '';
    if (!NAME.test(name))
      throw new ConfigError(source, `line ${index + 1} is not KEY=VALUE (a variable name, "=", its value)`);
    env[name] = line.slice(equals + 1).replace(/^(["'])(.*)\1$/, '$2');
  });
  return env;
}

/** The `host:port` of each value that is an http(s) URL (npm_config_registry, PIP_INDEX_URL, GOPROXY's list). */
export function mirrorHostsOf(env: Readonly<Record<string, string>>): string[] {
  const hosts = new Set<string>();
  for (const value of Object.values(env)) {
    for (const part of value.split(/[\s,|]+/)) {
      let url: URL;
      try {
        url = new URL(part);
      } catch {
        continue;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
      const port = url.port || (url.protocol === 'https:' ? '443' : '80');
      hosts.add(`${url.hostname.replace(/^\[|\]$/g, '')}:${port}`);
    }
  }
  return [...hosts];
}

/**
 * The PEM certificates in `text`, each checked by parsing it; a file with none
 * (or a broken one) is a ConfigError, so a typo never reaches a job.
 */
export function pemCertificates(text: string, source: string): string[] {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0)
    throw new ConfigError(source, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new ConfigError(source, `certificate ${index + 1} does not parse: ${(error as Error).message}`);
    }
  });
  return blocks;
}

/**
 * Tools that take one CA file replace their store with it (pip, requests,
 * git, curl, Go's SSL_CERT_FILE): the bundle they get is the public roots Node
 * ships (Mozilla's) with the operator's appended, so public hosts still verify.
 */
export function caBundle(extra: readonly string[]): string {
  return `${[...rootCertificates, ...extra].join('\n')}\n`;
}

/** Reads the two settings' files; a missing or malformed one is a ConfigError naming its variable. */
export function readSetupExtras(
  settings: { extraCaCerts?: string | undefined; setupEnvFile?: string | undefined },
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { env: Record<string, string>; mirrorHosts: string[]; certificates: string[] } {
  const load = (path: string, variable: string) => {
    try {
      return read(path);
    } catch (error) {
      throw new ConfigError(variable, `cannot read ${path} (${(error as { code?: string }).code ?? error})`);
    }
  };
  const env = settings.setupEnvFile
    ? parseSetupEnvFile(load(settings.setupEnvFile, 'SELFDEBUG_SETUP_ENV_FILE'), 'SELFDEBUG_SETUP_ENV_FILE')
    : {};
  const certificates = settings.extraCaCerts
    ? pemCertificates(load(settings.extraCaCerts, 'SELFDEBUG_EXTRA_CA_CERTS'), 'SELFDEBUG_EXTRA_CA_CERTS')
    : [];
  return { env, mirrorHosts: mirrorHostsOf(env), certificates };
}
