import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  DEFAULT_ALLOWED_HOSTS,
  hostAddresses,
  isForbiddenAddress,
  isHostAddress,
  isTrusted,
  withinCeiling,
} from '../../src/adapters/proxy/egress-policy.js';

describe('egress policy', () => {
  const policy = { allowedHosts: ['registry.npmjs.org', '*.example.org', 'mirror.test:8081'] };

  it('allows listed hosts on 80 and 443, and a listed port only where it is named', () => {
    expect(checkTarget(policy, 'registry.npmjs.org', 443)).toEqual({ allowed: true, by: 'operator' });
    expect(checkTarget(policy, 'a.example.org', 80)).toEqual({ allowed: true, by: 'operator' });
    expect(checkTarget(policy, 'mirror.test', 8081)).toEqual({ allowed: true, by: 'operator' });
    expect(checkTarget(policy, 'mirror.test', 443)).toMatchObject({ allowed: false });
    expect(checkTarget(policy, 'registry.npmjs.org', 22)).toEqual({
      allowed: false,
      reason: 'port 22 is not allowed for registry.npmjs.org',
    });
    expect(checkTarget(policy, 'evil.org', 443)).toEqual({
      allowed: false,
      reason: 'evil.org is not on the allowlist',
    });
    // A glob's star stays within one label's worth of text: a.example.org.evil.org is another host.
    expect(checkTarget(policy, 'example.org.evil.org', 443)).toMatchObject({ allowed: false });
  });

  it.each([
    ['127.0.0.1'],
    ['10.1.2.3'],
    ['172.20.0.1'],
    ['192.168.1.1'],
    ['100.64.0.1'],
    ['169.254.169.254'],
    ['224.0.0.1'],
    ['0.0.0.0'],
    ['::1'],
    ['fd00::1'],
    ['fe80::1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:169.254.169.254'],
    // The same IPv4 addresses inside IPv6: mapped in hex, translated, NAT64, 6to4, IPv4-compatible.
    ['::ffff:7f00:1'],
    ['0:0:0:0:0:ffff:a9fe:a9fe'],
    ['::ffff:0:127.0.0.1'],
    ['64:ff9b::127.0.0.1'],
    ['64:ff9b::a00:1'],
    ['2002:7f00:1::'],
    ['2002:a9fe:a9fe::1'],
    ['::127.0.0.1'],
    ['::8.8.8.8'],
    ['fec0::1'],
    ['100::1'],
    ['fe80::1%eth0'],
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toMatch(/private or local/);
  });

  it.each([
    ['151.101.1.35'],
    ['2606:4700::6810:84e5'],
    ['::ffff:151.101.1.35'],
    ['64:ff9b::9765:123'],
    ['2002:9765:123::1'],
  ])('accepts %s', (address) => {
    expect(isForbiddenAddress(address)).toBeNull();
  });

  // SECURITY.md promises multicast and reserved addresses are refused like private ones.
  it.each([
    ['224.0.0.251', 'mDNS multicast'],
    ['239.255.255.250', 'SSDP multicast'],
    ['233.252.0.1', 'GLOP multicast'],
    ['240.0.0.1', 'reserved (class E)'],
    ['255.255.255.255', 'limited broadcast'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['198.18.0.1', 'benchmarking'],
    ['0.1.2.3', '"this network"'],
    ['ff02::1', 'IPv6 link-local multicast'],
    ['ff05::1:3', 'IPv6 site-local multicast'],
    ['ff0e::1', 'IPv6 global multicast'],
    ['::', 'IPv6 unspecified'],
    ['100::1', 'IPv6 discard-only'],
    ['::ffff:239.255.255.250', 'IPv4 multicast mapped into IPv6'],
  ])('refuses the multicast or reserved address %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(`${address} is a private or local address`);
  });

  it('judges a name with a trailing dot, in any case, as the host it names', () => {
    expect(checkTarget(policy, 'Registry.NPMJS.org.', 443)).toEqual({ allowed: true, by: 'operator' });
    expect(checkTarget(policy, 'evil.org.', 443)).toMatchObject({ allowed: false });
    expect(isTrusted({ allowedHosts: [], explicitHosts: ['mirror.test'] }, 'MIRROR.test.')).toBe(true);
    expect(isTrusted({ allowedHosts: [], explicitHosts: ['mirror.test'] }, 'mirror.test..')).toBe(false);
  });

  it('refuses every address of the App host, public ones too, in any spelling', () => {
    const mine = ['127.0.0.1', '::1', '203.0.113.5', '2001:db8::5', 'fe80::1%eth0'];
    for (const address of [
      '203.0.113.5',
      '::ffff:203.0.113.5',
      '::ffff:cb00:7105',
      '2001:db8:0::5',
      '2002:cb00:7105::',
    ])
      expect(isHostAddress(address, mine), address).toMatch(/address of the App's host/);
    expect(isHostAddress('203.0.113.6', mine)).toBeNull();
    expect(hostAddresses()).toEqual(expect.arrayContaining(['127.0.0.1']));
  });

  it('tells the operator’s hosts from the ones a repository added', () => {
    const withRepository = {
      allowedHosts: ['mirror.test'],
      repositoryHosts: ['mirror.test:6379', 'npm.example.org'],
    };
    expect(checkTarget(withRepository, 'mirror.test', 443)).toEqual({ allowed: true, by: 'operator' });
    expect(checkTarget(withRepository, 'mirror.test', 6379)).toEqual({ allowed: true, by: 'repository' });
    expect(checkTarget(withRepository, 'npm.example.org', 443)).toEqual({ allowed: true, by: 'repository' });
    expect(checkTarget(withRepository, 'mirror.test', 22)).toEqual({
      allowed: false,
      reason: 'port 22 is not allowed for mirror.test',
    });
  });

  it('keeps a repository’s hosts within the operator’s ceiling', () => {
    expect(withinCeiling(['*.example.org'], ['npm.example.org:8443', 'evil.org'])).toEqual([
      'npm.example.org:8443',
    ]);
    expect(DEFAULT_ALLOWED_HOSTS).toContain('files.pythonhosted.org');
  });
});
