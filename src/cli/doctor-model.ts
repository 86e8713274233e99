import { loadModelServerProbe, type ModelServerProbe } from '../compose/language-model.js';
import { loadModelConfig } from '../config/model-config.js';
import type { Environment } from '../config/read-environment.js';
import type { OutputStream } from './output-stream.js';

export interface DoctorModelOptions {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Environment;
  /** For tests and the docs: a fixed clock makes the speed line repeatable. */
  now?: () => number;
}

/**
 * `selfdebug doctor --model`: asks the configured model server (SELFDEBUG_MODEL_*)
 * what selfdebug needs and prints one line per check, with the fix under each ✘ (blocks use) and ⚠ (a warning).
 * Exits 1 when a ✘ blocks use, 2 when the settings themselves are wrong.
 */
export async function runDoctorModel(options: DoctorModelOptions): Promise<number> {
  let server: ModelServerProbe;
  try {
    // The OpenAI SDK is loaded on demand (in compose), like every command's adapters.
    server = await loadModelServerProbe(loadModelConfig(options.env));
  } catch (error) {
    options.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const config = loadModelConfig(options.env);
  const checks = await server.probe(options.now ? { now: options.now } : {});
  const lines = [
    'selfdebug doctor --model',
    `  server  ${displayServer(config.baseUrl)}`,
    `  model   ${server.model}`,
    '',
  ];
  const width = Math.max(...checks.map((check) => check.name.length));
  for (const check of checks) {
    // ✘ blocks use; ⚠ is a warning selfdebug works around; – not checked.
    const mark = check.ok === true ? '✔' : check.ok === false ? (check.blocking ? '✘' : '⚠') : '–';
    lines.push(`  ${mark} ${check.name.padEnd(width)}  ${check.detail}`);
    if (check.ok !== true && check.fix) {
      const label = check.blocking ? 'fix (blocks use)' : 'fix';
      lines.push(`    ${' '.repeat(width)}  ${label}: ${check.fix}`);
    }
  }
  const blocking = checks.filter((check) => check.ok === false && check.blocking);
  const warnings = checks.filter((check) => check.ok === false && !check.blocking).length;
  lines.push('');
  if (blocking.length > 0) {
    lines.push(`not usable: fix ${blocking.map((check) => check.name).join(', ')} first.`);
  } else {
    lines.push(
      `usable${warnings > 0 ? ` (${warnings === 1 ? '1 warning: selfdebug works around it' : `${warnings} warnings: selfdebug works around them`})` : ''}.`,
    );
  }
  options.stdout.write(`${lines.join('\n')}\n`);
  return blocking.length > 0 ? 1 : 0;
}

function displayServer(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return 'https://api.openai.com/v1 (OpenAI)';
  try {
    const url = new URL(baseUrl);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}
