import type { SetupExtras } from '../../config/setup-extras.js';

/** Where a job container sees the operator's certificates (bind-mounted read-only). */
const CA_DIR = '/etc/selfdebug/ca';
const EXTRA = `${CA_DIR}/extra.pem`;
const BUNDLE = `${CA_DIR}/bundle.pem`;

type CaCerts = SetupExtras['caCerts'];

/** The two files, read-only, for setup and the loop alike. */
export function caMounts(caCerts: CaCerts) {
  if (!caCerts) return [];
  return [
    { Type: 'bind' as const, Source: caCerts.extra, Target: EXTRA, ReadOnly: true },
    { Type: 'bind' as const, Source: caCerts.bundle, Target: BUNDLE, ReadOnly: true },
  ];
}

/**
 * How each tool is told. Node (and npm, yarn, pnpm on it) adds
 * NODE_EXTRA_CA_CERTS to its own roots; the others replace their store with
 * the file they are given, so they get the bundle, which keeps the public
 * roots: Python's ssl and requests, pip, git, curl, and Go and OpenSSL
 * (SSL_CERT_FILE). npm's own `cafile` is left alone: it would replace Node's.
 */
export function caEnvironment(caCerts: CaCerts): Record<string, string> {
  if (!caCerts) return {};
  return {
    NODE_EXTRA_CA_CERTS: EXTRA,
    SSL_CERT_FILE: BUNDLE,
    CURL_CA_BUNDLE: BUNDLE,
    REQUESTS_CA_BUNDLE: BUNDLE,
    PIP_CERT: BUNDLE,
    GIT_SSL_CAINFO: BUNDLE,
  };
}

/**
 * Run as root before setup's own commands: where the image keeps a Debian-style
 * store, the certificates join it (apt, Java's cacerts hook, tools that read
 * only the system store), and the prepared image keeps them. Never fails setup.
 */
export function trustScript(caCerts: CaCerts): string | null {
  if (!caCerts) return null;
  return [
    'command -v update-ca-certificates >/dev/null 2>&1 || exit 0',
    'mkdir -p /usr/local/share/ca-certificates',
    `cp ${EXTRA} /usr/local/share/ca-certificates/selfdebug-extra.crt`,
    'update-ca-certificates >/dev/null 2>&1 || true',
  ].join('\n');
}
