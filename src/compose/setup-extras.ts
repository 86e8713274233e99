import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxConfig } from '../config/sandbox-config.js';
import { caBundle, NO_SETUP_EXTRAS, readSetupExtras, type SetupExtras } from '../config/setup-extras.js';

/**
 * Reads SELFDEBUG_SETUP_ENV_FILE and SELFDEBUG_EXTRA_CA_CERTS once, at
 * start-up (a malformed file stops the process before it takes a job), and
 * writes the certificates where the engine bind-mounts them read-only: a
 * folder named by their digest, so every run with the same ones shares it.
 */
export function loadSetupExtras(
  config: Pick<SandboxConfig, 'extraCaCerts' | 'setupEnvFile'>,
  folder: string = tmpdir(),
): SetupExtras {
  if (!config.extraCaCerts && !config.setupEnvFile) return NO_SETUP_EXTRAS;
  const { env, mirrorHosts, certificates } = readSetupExtras(config);
  if (certificates.length === 0) return { env, mirrorHosts, caCerts: null };
  const extra = `${certificates.join('\n')}\n`;
  const dir = join(folder, `selfdebug-ca-${createHash('sha256').update(extra).digest('hex').slice(0, 16)}`);
  mkdirSync(dir, { recursive: true });
  // The sandbox's user (uid 1000) reads them through the bind mount.
  chmodSync(dir, 0o755);
  const caCerts = { extra: join(dir, 'extra.pem'), bundle: join(dir, 'bundle.pem') };
  writeFileSync(caCerts.extra, extra, { mode: 0o644 });
  writeFileSync(caCerts.bundle, caBundle(certificates), { mode: 0o644 });
  return { env, mirrorHosts, caCerts };
}

/** What the redactor hides: every setup value (a mirror URL may carry a token as its user or query). */
export function setupSecrets(extras: SetupExtras): string[] {
  return Object.values(extras.env);
}
