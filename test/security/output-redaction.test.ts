import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runFix } from '../../src/cli/fix-command.js';
import {
  fixProposal,
  PROJECT,
  readText,
  reflection,
  runSimulated,
  useActionWorld,
  writeFiles,
} from '../action/harness.js';
import { attackSuite } from './attack-table.js';

const API_KEY = 'sk-proj-Q7wZr2Lm9Xc4Vb8Nn1Tt6Yy3Uu5Ii0Oo';
const SECRET_ENV = 'deploy-secret-value-4f8a2c9e71';

/** A fix whose analysis repeats the key and whose edit writes the secret into a file: the model leaking both. */
const leakingProposal = {
  analysis: `stats.py lacks an import; the key in use is ${API_KEY}.`,
  edits: [
    {
      ...fixProposal.edits[0]!,
      replace: `import statistics\nTOKEN = "${SECRET_ENV}"\nfrom numbers_data import load_numbers\n`,
    },
  ],
};

describe('what the CLI and the Action write out', () => {
  const world = useActionWorld();
  const attack = attackSuite('output redaction');

  attack(
    "the model's answers and the fix carrying the model key and a secret_env value into --patch and --record",
    'the CLI writes both files through the redactor',
    async () => {
      const model = await world.model([{ json: leakingProposal }, { json: reflection }]);
      const dir = await world.tempDir('selfdebug-cli-leak-');
      await writeFiles(dir, { ...PROJECT, '.github/selfdebug.yml': 'secret_env: [DEPLOY_SECRET]\n' });
      const out = await world.tempDir('selfdebug-cli-out-');
      const printed: string[] = [];
      const stream = { write: (text: string) => printed.push(text) };
      const code = await runFix(
        [
          ...['--command', 'python3 stats.py', '--dir', dir, '--sandbox', 'local', '--base-url', model.url],
          ...['--patch', join(out, 'fix.patch'), '--record', join(out, 'session.json')],
        ],
        {
          stdout: stream,
          stderr: stream,
          isTTY: false,
          env: { PATH: process.env.PATH, SELFDEBUG_MODEL_API_KEY: API_KEY, DEPLOY_SECRET: SECRET_ENV },
        },
      );

      expect(printed.join('')).toContain('Wrote the fix to');
      expect(code).toBe(0);
      const patch = await readFile(join(out, 'fix.patch'), 'utf8');
      const session = await readFile(join(out, 'session.json'), 'utf8');
      expect(patch).toContain('+import statistics');
      expect(session).toContain('stats.py lacks an import');
      for (const text of [patch, session, printed.join('')]) {
        expect(text).not.toContain(API_KEY);
        expect(text).not.toContain(SECRET_ENV);
      }
    },
    120_000,
  );

  attack(
    "a command printing the Action's own token and the model key into the job summary and the artifact",
    'the summary and the artifact are rendered through the redactor',
    async () => {
      const { token, simulated } = await world.failedPushRun({
        log: 'failed\n',
        prefix: 'selfdebug-summary-leak-',
        inputs: ({ token }) => ({
          'api-key': API_KEY,
          deliver: 'none',
          // The token and key reach the command only because this test writes them into it.
          command: `echo "token ${token} key ${API_KEY}" | rev; echo "token ${token}"; python3 stats.py`,
        }),
      });

      const { code, log } = await runSimulated(simulated.env);

      expect(code).toBe(0);
      const summary = await readText(simulated.summaryPath);
      expect(summary).toContain('mean: 2.5');
      const artifact = await readFile(join(simulated.runnerTemp, 'selfdebug', 'transcript.md'), 'utf8').catch(
        () => '',
      );
      for (const text of [summary, log, artifact]) {
        for (const secret of [token, API_KEY, [...token].reverse().join(''), [...API_KEY].reverse().join('')])
          expect(text).not.toContain(secret);
      }
    },
    120_000,
  );
});
