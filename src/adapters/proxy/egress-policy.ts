import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
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
  /** The operator's hosts: names or globs (`*.example.org`), each optionally with `:port`, which then allows that port too. */
  allowedHosts: readonly string[];
  /**
   * Hosts a repository's file added (already within the operator's
   * ceiling), in the same form. They open public addresses only: a host the
   * operator trusts stays trusted on the ports the operator's own list
   * allows, not on a port the repository names.
   */
  repositoryHosts?: readonly string[];
  /** Ports any allowed host may be reached on; default 80 and 443. */
  allowedPorts?: readonly number[];
  /** Hosts the operator trusts to resolve to private or loopback addresses (a mirror on the LAN). */
  explicitHosts?: readonly string[];
  /**
   * The ports a CONNECT tunnel may go to (TLS is checked inside it); default 443. Only the operator sets
   * them, and the host must still be allowed on the port. Plain HTTP goes by absolute URI instead.
   */
  tlsPorts?: readonly number[];
}

/** Why a CONNECT to `port` is refused, if it is: tunnels carry TLS only, on the operator's TLS ports. */
export function tunnelPortRefusal(policy: EgressPolicy, port: number): string | null {
  const ports = policy.tlsPorts ?? [443];
  return ports.includes(port)
    ? null
    : `CONNECT to port ${port} is refused: tunnels go to TLS ports only (${ports.join(', ')})`;
}

export type Verdict = { allowed: true; by: 'operator' | 'repository' } | { allowed: false; reason: string };

/**
 * A host name as the policy compares it: lower case, without IPv6 brackets
 * and without the trailing dot of a fully qualified name, so `Mirror.Test.`
 * and `mirror.test` are judged (and trusted) as the one host they are.
 */
export function normalizeHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/(?<=[^.])\.$/, '');
}

/** Whether the policy lets a request to host:port through, before any name is resolved, and whose list did. */
export function checkTarget(policy: EgressPolicy, host: string, port: number): Verdict {
  const name = normalizeHost(host);
  const ports = policy.allowedPorts ?? [80, 443];
  let refused: Verdict | null = null;
  for (const [by, entries] of [
    ['operator', policy.allowedHosts],
    ['repository', policy.repositoryHosts ?? []],
  ] as const) {
    for (const entry of entries) {
      const [pattern, entryPort] = splitPort(entry.toLowerCase());
      if (!matchesAny(name, [pattern])) continue;
      if (entryPort === null ? ports.includes(port) : entryPort === port) return { allowed: true, by };
      refused ??= { allowed: false, reason: `port ${port} is not allowed for ${name}` };
    }
  }
  return refused ?? { allowed: false, reason: `${name} is not on the allowlist` };
}

function splitPort(entry: string): [string, number | null] {
  const match = /^(.*):(\d{1,5})$/.exec(entry);
  return match ? [match[1]!, Number(match[2])] : [entry, null];
}

export function isTrusted(policy: EgressPolicy, host: string): boolean {
  return matchesAny(normalizeHost(host), [...(policy.explicitHosts ?? [])]);
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
  // Unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d: never a registry.
  ['::', 96],
  // IPv4-translated (SIIT) ::ffff:0:a.b.c.d, and NAT64 for local use.
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  // Discard-only, unique local (ULA), deprecated site-local, link-local, multicast.
  ['100::', 64],
  ['fc00::', 7],
  ['fec0::', 10],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  forbidden.addSubnet(network, prefix, 'ipv6');

/**
 * The IPv4 address an IPv6 address stands for, where the network delivers
 * it to that IPv4 host: mapped (`::ffff:a.b.c.d`, also spelled
 * `::ffff:7f00:1`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002:AABB:CCDD::/48`).
 */
function embeddedIPv4(address: string): string | null {
  const groups = ipv6Groups(address);
  if (!groups) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return null;
}

/** The eight 16-bit groups of an IPv6 address, in whatever spelling Node accepts. */
function ipv6Groups(address: string): number[] | null {
  const bare = address.replace(/%.*$/, '');
  if (isIP(bare) !== 6) return null;
  // The WHATWG URL parser prints every IPv6 address in one canonical, all-hex form.
  const canonical = new URL(`http://[${bare}]`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, null];
  const parse = (part: string | null | undefined) =>
    part ? part.split(':').map((group) => Number.parseInt(group, 16)) : [];
  const front = parse(head);
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The address a connection to `address` actually reaches, and the family to judge it in. */
function effectiveAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return { address, family: 'ipv4' };
  if (family !== 6) return null;
  const inner = embeddedIPv4(address);
  return inner
    ? { address: inner, family: 'ipv4' }
    : { address: address.replace(/%.*$/, ''), family: 'ipv6' };
}

/**
 * Loopback, private (RFC 1918, CGNAT, ULA), link-local (which holds cloud
 * metadata at 169.254.169.254), multicast, reserved and unspecified
 * addresses: where setup must never be let in, since they are the App's
 * host and its neighbours. An IPv6 address that carries an IPv4 one
 * (mapped, NAT64, 6to4) is judged as the IPv4 it reaches.
 */
export function isForbiddenAddress(address: string): string | null {
  const effective = effectiveAddress(address);
  if (!effective) return 'not an IP address';
  return forbidden.check(effective.address, effective.family)
    ? `${address} is a private or local address`
    : null;
}

/**
 * Whether `address` is one of the App host's own (every interface's, public
 * ones too): whatever listens there, the App's port included, is the App's
 * host even when the address is routable from outside.
 */
export function isHostAddress(address: string, hostAddresses: readonly string[]): string | null {
  const effective = effectiveAddress(address);
  if (!effective) return 'not an IP address';
  const own = new BlockList();
  for (const entry of hostAddresses) {
    const mine = effectiveAddress(entry);
    if (mine) own.addAddress(mine.address, mine.family);
  }
  return own.check(effective.address, effective.family) ? `${address} is an address of the App's host` : null;
}

/** Every address of every interface of this host, as `os.networkInterfaces()` reports them now. */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address),
  );
}

/** A repository's hosts, kept only where the operator's ceiling (globs) allows them. */
export function withinCeiling(ceiling: readonly string[], hosts: readonly string[]): string[] {
  return hosts.filter((host) => matchesAny(splitPort(host.toLowerCase())[0], [...ceiling]));
}
