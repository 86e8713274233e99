import { BlockList, isIP } from 'node:net';
import { matchesAny } from '../../util/glob.js';

/**
 * The public package registries of the common ecosystems: what setup may
 * reach when the operator names nothing else. Each is where the ecosystem's
 * default client downloads from (index and file hosts both).
 */
export const DEFAULT_ALLOWED_HOSTS: readonly string[] = [
  // npm, Yarn
  'registry.npmjs.org',
  'registry.yarnpkg.com',
  'repo.yarnpkg.com',
  // PyPI: the index and the file host pip downloads from
  'pypi.org',
  'files.pythonhosted.org',
  // crates.io: the sparse index and the download host
  'crates.io',
  'index.crates.io',
  'static.crates.io',
  // Go modules: the module proxy and the checksum database
  'proxy.golang.org',
  'sum.golang.org',
  // Maven Central and Gradle
  'repo.maven.apache.org',
  'repo1.maven.org',
  'plugins.gradle.org',
  'services.gradle.org',
  'downloads.gradle.org',
  // RubyGems
  'rubygems.org',
  'index.rubygems.org',
  // Debian, Ubuntu and Alpine package mirrors
  'deb.debian.org',
  'security.debian.org',
  'archive.ubuntu.com',
  'security.ubuntu.com',
  'ports.ubuntu.com',
  'dl-cdn.alpinelinux.org',
];

export interface EgressPolicy {
  /** Host names or globs (`*.example.org`), each optionally with `:port`, which then allows that port too. */
  allowedHosts: readonly string[];
  /** Ports any allowed host may be reached on; default 80 and 443. */
  allowedPorts?: readonly number[];
  /** Hosts the operator trusts to resolve to private or loopback addresses (a mirror on the LAN). */
  explicitHosts?: readonly string[];
}

export type Verdict = { allowed: true } | { allowed: false; reason: string };

/** Whether the policy lets a request to host:port through, before any name is resolved. */
export function checkTarget(policy: EgressPolicy, host: string, port: number): Verdict {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  const ports = policy.allowedPorts ?? [80, 443];
  for (const entry of policy.allowedHosts) {
    const [pattern, entryPort] = splitPort(entry.toLowerCase());
    if (!matchesAny(name, [pattern])) continue;
    if (entryPort === null ? ports.includes(port) : entryPort === port) return { allowed: true };
    return { allowed: false, reason: `port ${port} is not allowed for ${name}` };
  }
  return { allowed: false, reason: `${name} is not on the allowlist` };
}

function splitPort(entry: string): [string, number | null] {
  const match = /^(.*):(\d{1,5})$/.exec(entry);
  return match ? [match[1]!, Number(match[2])] : [entry, null];
}

export function isTrusted(policy: EgressPolicy, host: string): boolean {
  return matchesAny(host.toLowerCase(), [...(policy.explicitHosts ?? [])]);
}

const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv6');

/**
 * Loopback, private (RFC 1918, CGNAT, ULA), link-local (which holds cloud
 * metadata at 169.254.169.254), multicast, reserved and unspecified
 * addresses: where setup must never be let in, since they are the App's
 * host and its neighbours. IPv4-mapped IPv6 is judged as the IPv4 it maps.
 */
export function isForbiddenAddress(address: string): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? mapped[1]! : address;
  const family = isIP(plain);
  if (family === 0) return 'not an IP address';
  return forbidden.check(plain, family === 4 ? 'ipv4' : 'ipv6')
    ? `${address} is a private or local address`
    : null;
}

/** A repository's hosts, kept only where the operator's ceiling (globs) allows them. */
export function withinCeiling(ceiling: readonly string[], hosts: readonly string[]): string[] {
  return hosts.filter((host) => matchesAny(splitPort(host.toLowerCase())[0], [...ceiling]));
}
