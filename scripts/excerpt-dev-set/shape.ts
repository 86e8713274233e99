import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionsLog, terminalLog } from './actions.js';
import { AZURE } from './azure.js';
import { BUILDKITE } from './buildkite.js';
import { type CiSystem, jobOn } from './ci-job.js';
import { CIRCLECI } from './circleci.js';
import { GITLAB } from './gitlab.js';
import { JENKINS } from './jenkins.js';
import { FIXTURES, type Line, RAW, type Run, ranges, readRun, render } from './run.js';
import { TRAVIS } from './travis.js';

/**
 * Builds the excerpt's development set from the recorded tool runs (record.sh): for each tool a
 * GitHub Actions job log and a plain terminal log (actions.ts), and the same run in two of the other
 * CI systems' job logs (GitLab CI, Jenkins, Azure Pipelines, CircleCI, Buildkite, Travis CI, each
 * in its own file), dealt round-robin so every system wraps as many tools; each log with a labels
 * file naming its failure lines.
 *
 * Usage: npx tsx scripts/excerpt-dev-set/shape.ts
 */
const LOGS = join(FIXTURES, 'logs');
const SYSTEMS: CiSystem[] = [GITLAB, JENKINS, AZURE, CIRCLECI, BUILDKITE, TRAVIS];

interface Shaped {
  shape: string;
  lines: Line[];
}

/** The index-th tool's two systems: every system first for some tools and second for others, pairs varying. */
function systemsFor(index: number): CiSystem[] {
  const second = index + 1 + Math.floor(index / SYSTEMS.length);
  return [SYSTEMS[index % SYSTEMS.length]!, SYSTEMS[second % SYSTEMS.length]!];
}

function shapes(run: Run, index: number): Shaped[] {
  const systems = systemsFor(index);
  return [
    { shape: 'actions', lines: actionsLog(run) },
    { shape: 'terminal', lines: terminalLog(run) },
    ...systems.map((system) => ({ shape: system.name, lines: system.shape(jobOn(run, system.workdir)) })),
  ];
}

function write(run: Run, { shape, lines }: Shaped): void {
  const { text, labelled } = render(lines);
  const name = `${run.tool}--${shape}`;
  writeFileSync(join(LOGS, `${name}.log`), text);
  const labels = {
    tool: run.tool,
    shape,
    command: run.command,
    exitCode: run.exitCode,
    failureLines: ranges(labelled),
  };
  writeFileSync(join(LOGS, `${name}.labels.json`), `${JSON.stringify(labels, null, 2)}\n`);
}

// Written afresh: a tool dealt to other systems leaves no log of its old ones behind.
rmSync(LOGS, { recursive: true, force: true });
mkdirSync(LOGS, { recursive: true });
let count = 0;
readdirSync(RAW)
  .sort()
  .forEach((tool, index) => {
    const run = readRun(tool);
    for (const shaped of shapes(run, index)) {
      write(run, shaped);
      count++;
    }
  });
process.stdout.write(`${count} logs in ${LOGS}\n`);
