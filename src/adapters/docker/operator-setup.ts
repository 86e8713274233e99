import type { SandboxConfig } from '../../config/sandbox-config.js';
import type { SetupExtras } from '../../config/setup-extras.js';
import { SandboxError } from '../../errors/index.js';
import { DEFAULT_ALLOWED_HOSTS, type EgressPolicy } from '../proxy/egress-policy.js';
import { proxyEnvironment } from '../proxy/proxy-environment.js';
import { caEnvironment, trustScript } from './ca-trust.js';
import type { DockerSandbox } from './docker-sandbox.js';

/**
 * What the operator's settings add to setup (SetupExtras): variables in
 * setup's commands only, passed per command and never to the container
 * itself, so the prepared image (a commit of that container) and the loop
 * never hold them; the certificates; and the mirrors those variables name.
 */
export function setupCommandEnvironment(extras: SetupExtras, proxyUrl: string): Record<string, string> {
  // The proxy's variables last: a setup file cannot route setup around the allowlist.
  return { ...caEnvironment(extras.caCerts), ...extras.env, ...proxyEnvironment(proxyUrl) };
}

/**
 * The operator's part of the egress policy. A mirror the operator names in
 * SELFDEBUG_SETUP_ENV_FILE is the operator's host, on its own port, and
 * trusted like SELFDEBUG_EGRESS_TRUSTED_HOSTS: a mirror is often on the LAN.
 */
export function operatorEgress(
  config: SandboxConfig,
  extras: SetupExtras,
): Pick<EgressPolicy, 'allowedHosts' | 'explicitHosts' | 'tlsPorts'> {
  const base = config.egressHosts.length > 0 ? config.egressHosts : DEFAULT_ALLOWED_HOSTS;
  const names = extras.mirrorHosts.map((host) => host.replace(/:\d+$/, ''));
  // A mirror on its own port (https://mirror:8443/) is reached through a CONNECT tunnel to that port.
  const ports = extras.mirrorHosts.map((host) => Number(/:(\d+)$/.exec(host)?.[1] ?? 443));
  return {
    allowedHosts: [...base, ...extras.mirrorHosts],
    explicitHosts: [...config.egressTrustedHosts, ...names],
    tlsPorts: [...new Set([...config.egressTlsPorts, ...ports])],
  };
}

/** Adds the operator's certificates to the image's own store where it has one (see trustScript). */
export async function trustOperatorCertificates(setup: DockerSandbox, extras: SetupExtras): Promise<void> {
  const script = trustScript(extras.caCerts);
  if (!script) return;
  const result = await setup.exec(script, { timeoutSeconds: 120 });
  if (result.exitCode !== 0)
    throw new SandboxError(
      `Could not add SELFDEBUG_EXTRA_CA_CERTS to the image's certificate store: ${result.output.slice(0, 500)}`,
    );
}
