import { describe, expect, it } from 'vitest';
import {
  actionScope,
  appScope,
  entryKey,
  localScope,
  refsToRead,
} from '../../src/environment/cache-scope.js';

describe('cache scopes', () => {
  const main = appScope({ installationId: 1, repositoryId: 7, branch: 'main', defaultBranch: 'main' });
  const feature = appScope({
    installationId: 1,
    repositoryId: 7,
    branch: 'selfdebug/run-1',
    defaultBranch: 'main',
  });

  it('reads the job’s own ref, then the default branch’s; the default branch reads only its own', () => {
    expect(refsToRead(feature)).toEqual(['refs/heads/selfdebug/run-1', 'refs/heads/main']);
    expect(refsToRead(main)).toEqual(['refs/heads/main']);
  });

  it('names a different entry for every tenant, repository and ref, with the same key', () => {
    const key = 'k'.repeat(64);
    const other = appScope({ installationId: 2, repositoryId: 8, branch: 'main', defaultBranch: 'main' });
    const action = actionScope({ repositoryId: '7', ref: 'refs/heads/main', defaultBranch: 'main' });
    const local = localScope('1000', '/home/me/project');
    const entries = [
      entryKey(main, main.ref, key),
      entryKey(feature, feature.ref, key),
      entryKey(other, other.ref, key),
      entryKey(action, action.ref, key),
      entryKey(local, local.ref, key),
    ];
    expect(new Set(entries).size).toBe(entries.length);
    // What a feature branch reads second is exactly what the default branch wrote.
    expect(entryKey(feature, feature.defaultRef, key)).toBe(entries[0]);
  });

  it('keeps a pull request’s ref in the Action apart from every branch', () => {
    const pull = actionScope({ repositoryId: '7', ref: 'refs/pull/3/merge', defaultBranch: 'main' });
    expect(pull.ref).toBe('refs/pull/3/merge');
    expect(refsToRead(pull)).toEqual(['refs/pull/3/merge', 'refs/heads/main']);
  });
});
