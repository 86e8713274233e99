import { describe, expect, it } from 'vitest';
import { NO_PREPARATION, type PreparationReport } from '../../src/sandbox/environment.js';
import type { EgressRefusal } from '../../src/sandbox/refusal-watch.js';
import { runSetup } from '../../src/sandbox/run-setup.js';
import { EnvironmentSetupError } from '../../src/sandbox/setup-error.js';
import { lastLines, SetupOutputFeed } from '../../src/sandbox/setup-output.js';
import { useLocalSandboxes } from '../helpers/loop-fixtures.js';
import { ManualTimers } from '../helpers/manual-timers.js';

function feed(options: { maxLines?: number; redact?: (text: string) => string } = {}) {
  const timers = new ManualTimers();
  const batches: string[] = [];
  const output = new SetupOutputFeed((text) => batches.push(text), { intervalMs: 1000, timers, ...options });
  const write = (text: string) => output.write(Buffer.from(text));
  return { timers, batches, output, write };
}

describe('SetupOutputFeed', () => {
  it('holds lines until the interval passes, then sends them as one batch', () => {
    const { timers, batches, write } = feed();
    write('added 1 package\nfound 0 vuln');
    write('erabilities\n');
    expect(batches).toEqual([]);
    timers.advance(999);
    expect(batches).toEqual([]);
    timers.advance(1);
    expect(batches).toEqual(['  │ added 1 package\n  │ found 0 vulnerabilities']);
  });

  it('sends at most one batch per interval and a bounded number of lines, counting the rest', () => {
    const { timers, batches, write } = feed({ maxLines: 3 });
    for (let line = 1; line <= 1000; line++) write(`line ${line}\n`);
    timers.advance(1000);
    expect(batches).toEqual(['  │ … 997 more lines\n  │ line 998\n  │ line 999\n  │ line 1000']);
    // Nothing new, nothing sent.
    timers.advance(5000);
    expect(batches).toHaveLength(1);
  });

  it('ends a line at a carriage return (progress bars) and sends what is left at the end', () => {
    const { batches, output, write } = feed({ maxLines: 2 });
    write('[1/3] Resolving\r[2/3] Fetching\r[3/3] Linking\rdone without a newline');
    output.end();
    expect(batches).toEqual(['  │ … 2 more lines\n  │ [3/3] Linking\n  │ done without a newline']);
  });

  it('clips a line that never ends and leaves multi-byte characters whole across chunks', () => {
    const { batches, output, write } = feed();
    const snow = Buffer.from('❄ ok\n');
    output.write(snow.subarray(0, 1));
    output.write(snow.subarray(1));
    write('x'.repeat(5000));
    output.end();
    const [first, second] = batches[0]!.split('\n');
    expect(first).toBe('  │ ❄ ok');
    expect(second!.length).toBeLessThanOrEqual(4 + 300);
  });

  it('redacts each batch before it leaves', () => {
    const { batches, output, write } = feed({
      redact: (text) => text.replaceAll('s3cret-token', '[REDACTED]'),
    });
    write('using s3cret-token\n');
    output.end();
    expect(batches).toEqual(['  │ using [REDACTED]']);
  });

  it('lastLines keeps the last non-empty lines', () => {
    expect(lastLines('a\n\nb\r\nc\n\n', 2)).toEqual(['b', 'c']);
  });
});

describe('runSetup', () => {
  const sandboxWith = useLocalSandboxes();
  const report = (): PreparationReport => ({ ...NO_PREPARATION, setup: [], egress: [], notes: [] });

  it('returns each step’s result and the hosts reached, leaving the report it was given as it was', async () => {
    const sandbox = await sandboxWith({});
    const before = { ...report(), image: 'base:1', notes: ['from the workflow'] };
    const egress = [{ target: 'registry.test:443', allowed: true, reason: null, bytes: 10, requests: 1 }];
    const part = await runSetup(sandbox, [{ command: 'echo one' }, { command: 'echo two' }], before, {
      egress: () => egress,
    });

    expect(part.setup.map((run) => [run.command.command, run.result.exitCode, run.result.stdout])).toEqual([
      ['echo one', 0, 'one\n'],
      ['echo two', 0, 'two\n'],
    ]);
    expect(part.egress).toEqual(egress);
    expect(before).toEqual({ ...report(), image: 'base:1', notes: ['from the workflow'] });
  });

  it('carries the report so far in the error of a failed step', async () => {
    const sandbox = await sandboxWith({});
    const before = { ...report(), image: 'base:1' };
    const error = await runSetup(sandbox, [{ command: 'true' }, { command: 'exit 5' }], before).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(EnvironmentSetupError);
    const { report: carried } = error as EnvironmentSetupError;
    expect(carried.image).toBe('base:1');
    expect(carried.setup.map((run) => run.result.exitCode)).toEqual([0, 5]);
    expect(before.setup).toEqual([]);
  });

  it('streams a step’s output while it runs and puts its last lines in the error', async () => {
    const sandbox = await sandboxWith({});
    const progress: string[] = [];
    const step = {
      command:
        'for i in $(seq 1 40); do echo "resolving $i"; done; echo "ERR! no such package: lef-pad" >&2; exit 3',
    };
    const error = await runSetup(sandbox, [step], report(), {
      onProgress: (line) => progress.push(line),
      redact: (text) => text.replaceAll('lef-pad', '[REDACTED]'),
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EnvironmentSetupError);
    const failure = error as EnvironmentSetupError;
    expect(failure.lastLines).toHaveLength(30);
    expect(failure.lastLines.at(-1)).toBe('ERR! no such package: [REDACTED]');
    expect(failure.message).toContain('failed (exit code 3)');
    expect(failure.message).toContain('Its last lines:\n  │ resolving 12\n');
    expect(failure.message).toContain('  │ ERR! no such package: [REDACTED]');
    // The first line names the step as written; what the step printed is redacted.
    const streamed = progress.slice(1).join('\n');
    expect(streamed).toContain('  │ resolving 40');
    expect(streamed).toContain('  │ ERR! no such package: [REDACTED]');
    expect(streamed).not.toContain('lef-pad');
    expect(progress.at(-1)).toBe('setup: exit code 3');
  });

  it('stops a step the proxy keeps refusing one host for, naming the host and what to change', async () => {
    const sandbox = await sandboxWith({});
    let listener: ((refusal: EgressRefusal) => void) | null = null;
    const refusal = {
      target: 'packages.refused.test:443',
      reason: 'not in the allowlist',
      advice: 'Add it.',
    };
    const error = await runSetup(sandbox, [{ command: 'echo fetching; exec sleep 3600' }], report(), {
      onProgress: (line) => {
        // Once the step has printed, the proxy refuses its host over and over, as an installer's retries would be.
        if (line.includes('│ fetching')) for (let count = 0; count < 4; count++) listener?.(refusal);
      },
      output: { intervalMs: 1 },
      refusals: {
        limit: 4,
        subscribe: (next) => {
          listener = next;
          return () => {
            listener = null;
          };
        },
      },
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EnvironmentSetupError);
    const failure = error as EnvironmentSetupError;
    expect(failure.refused).toMatchObject({ target: 'packages.refused.test:443', count: 4 });
    expect(failure.message).toContain(
      'the setup proxy refused packages.refused.test:443 4 times (not in the allowlist)',
    );
    expect(failure.message).toContain('Add it.');
    expect(failure.message).toContain('--allow-host packages.refused.test');
    expect(failure.message).toContain('SELFDEBUG_EGRESS_HOSTS');
    expect(listener).toBeNull();
  });
});
