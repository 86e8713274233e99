import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  DEFAULT_ALLOWED_HOSTS,
  isForbiddenAddress,
  withinCeiling,
} from '../../src/adapters/proxy/egress-policy.js';

describe('egress policy', () => {
  const policy = { allowedHosts: ['registry.npmjs.org', '*.example.org', 'mirror.test:8081'] };

  it('allows listed hosts on 80 and 443, and a listed port only where it is named', () => {
    expect(checkTarget(policy, 'registry.npmjs.org', 443)).toEqual({ allowed: true });
    expect(checkTarget(policy, 'a.example.org', 80)).toEqual({ allowed: true });
    expect(checkTarget(policy, 'mirror.test', 8081)).toEqual({ allowed: true });
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
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toMatch(/private or local/);
  });

  it.each([['151.101.1.35'], ['2606:4700::6810:84e5'], ['::ffff:151.101.1.35']])('accepts %s', (address) => {
    expect(isForbiddenAddress(address)).toBeNull();
  });

  it('keeps a repository’s hosts within the operator’s ceiling', () => {
    expect(withinCeiling(['*.example.org'], ['npm.example.org:8443', 'evil.org'])).toEqual([
      'npm.example.org:8443',
    ]);
    expect(DEFAULT_ALLOWED_HOSTS).toContain('files.pythonhosted.org');
  });
});
