import { describe, expect, it } from 'vitest';
import type { SecretReadingWorkflow } from '../../src/ci-logs/index.js';
import { Redactor, renderCiSecretsWarning, withNotices } from '../../src/report/index.js';

const workflow = (index: number): SecretReadingWorkflow => ({
  path: `.github/workflows/w${index}.yml`,
  name: `w${index}`,
  triggers: [{ event: 'push', pathFiltered: false, after: [] }],
  secrets: ['TOKEN'],
  allSecrets: [],
  environments: [],
});

describe('the CI secrets warning', () => {
  it('is nothing when no workflow reads secrets', () => {
    expect(renderCiSecretsWarning([], Redactor.none)).toBeNull();
  });

  it('lists at most 15 workflows and counts the rest', () => {
    const text = renderCiSecretsWarning(
      Array.from({ length: 18 }, (_, index) => workflow(index)),
      Redactor.none,
    );
    expect(text).toContain('`w14`');
    expect(text).not.toContain('`w15`');
    expect(text).toContain('- and 3 more workflows');
  });

  it('redacts what it shows, and a name cannot break out of its code span', () => {
    const leaked = { ...workflow(1), name: 'deploy `with` ghs_abcdefghijklmnopqrstuvwxyz0123456789' };
    const text = renderCiSecretsWarning([leaked], new Redactor(['ghs_abcdefghijklmnopqrstuvwxyz0123456789']));
    expect(text).not.toContain('ghs_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(text).toContain('``deploy `with`');
  });

  it('goes first in a check run summary, above the result', () => {
    const output = withNotices({ title: 'Fixed', summary: 'the result' }, ['**warning**']);
    expect(output).toEqual({ title: 'Fixed', summary: '**warning**\n\n---\n\nthe result' });
    expect(withNotices({ title: 'Fixed', summary: 'x' }, [])).toEqual({ title: 'Fixed', summary: 'x' });
  });
});
