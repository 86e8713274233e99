import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { appConfigSchema } from '../../src/config/app-config.js';
import { parseSandboxConfig } from '../../src/config/load-config.js';
import { modelConfigSchema } from '../../src/config/model-config.js';
import { defaultRepoConfig, parseRepoConfig } from '../../src/config/repo-config.js';
import { sandboxConfigSchema } from '../../src/config/sandbox-config.js';
import { jobSettings } from '../../src/jobs/job-settings.js';
import { DEFAULT_COMMAND_TIMEOUT_SECONDS } from '../../src/loop/task.js';
import { jobRequest } from '../fakes/job-requests.js';

const sources = (commandTimeoutSeconds: number) => ({
  sandboxConfig: parseSandboxConfig({ kind: 'local', commandTimeoutSeconds }),
  modelConfig: modelConfigSchema.parse({}),
  appConfig: appConfigSchema.parse({}),
  environment: {},
});

/** The row of a Markdown table whose first cell is `key`. */
async function row(doc: string, key: string): Promise<string> {
  const text = await readFile(new URL(`../../docs/${doc}`, import.meta.url), 'utf8');
  const line = text.split('\n').find((candidate) => candidate.startsWith(`| \`${key}\` |`));
  expect(line, `${doc} has a row for ${key}`).toBeDefined();
  return line ?? '';
}

describe("the time limit per run of the command: the code's numbers are the documentation's", () => {
  it("times an App job's runs by the mention, else the repository, else the loop's default, never the operator's", () => {
    const repo = parseRepoConfig({ sandbox: { timeout_seconds: 120 } });
    if (!repo.ok) throw new Error(repo.message);
    const timeOf = (config: typeof defaultRepoConfig, timeoutSeconds?: number) =>
      jobSettings(jobRequest({ options: timeoutSeconds ? { timeoutSeconds } : {} }), config, sources(900))
        .limits.commandTimeoutSeconds;
    expect(timeOf(defaultRepoConfig)).toBe(DEFAULT_COMMAND_TIMEOUT_SECONDS);
    expect(timeOf(repo.config)).toBe(120);
    expect(timeOf(repo.config, 45)).toBe(45);
  });

  it('says so in docs/configuration.md, for the repository setting and the operator variable', async () => {
    const operatorDefault = sandboxConfigSchema.parse({ kind: 'local' }).commandTimeoutSeconds;
    const setting = await row('configuration.md', 'sandbox.timeout_seconds');
    expect(setting).toContain(`${DEFAULT_COMMAND_TIMEOUT_SECONDS} for the App's jobs`);
    expect(setting).toContain(`\`SELFDEBUG_SANDBOX_TIMEOUT_SECONDS\` (${operatorDefault})`);
    const variable = await row('configuration.md', 'SELFDEBUG_SANDBOX_TIMEOUT_SECONDS');
    expect(variable).toContain(`| \`${operatorDefault}\` |`);
    expect(variable).toContain(`else ${DEFAULT_COMMAND_TIMEOUT_SECONDS} s`);
  });
});
