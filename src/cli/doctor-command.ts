import { readFile } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import type { Environment } from '../config/read-environment.js';
import { type DoctorPorts, runDoctorChecks } from '../doctor/doctor-checks.js';
import { renderDoctorTable } from '../doctor/doctor-table.js';
import type { OutputStream } from './output-stream.js';

export interface DoctorOptions {
  stdout: OutputStream;
  env: Environment;
  /** `doctor --github`: also make an installation token (needs GitHub on the network). */
  github: boolean;
  /** Where the settings came from, shown in the title when not only the environment. */
  source?: string | undefined;
  /** Tests pass their own; the real ones talk to Docker, the model server, Redis and GitHub. */
  ports?: DoctorPorts;
}

/** `selfdebug doctor`: every check a run needs, one line each with the fix; exits 1 on any ✘. */
export async function runDoctor(options: DoctorOptions): Promise<number> {
  let ports = options.ports;
  if (ports === undefined) {
    // Loaded on demand, like every command's adapters.
    const { realDoctorPorts } = await import('../compose/doctor-probes.js');
    ports = realDoctorPorts(options.env, { github: options.github });
  }
  const results = await runDoctorChecks(options.env, ports);
  options.stdout.write(renderDoctorTable(results, options.source));
  return results.some((result) => result.status === 'fail') ? 1 : 0;
}

/**
 * The environment with `./.env` beneath it, as Probot reads it when the App
 * starts (Probot's setup page writes APP_ID, PRIVATE_KEY and WEBHOOK_SECRET
 * there): a variable set in the environment wins over the file.
 */
export async function withDotEnv(
  env: Environment,
  path = '.env',
): Promise<{ env: Environment; source: string | undefined }> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) return { env, source: undefined };
  const fromFile = parseEnv(text) as Environment;
  const set = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  return { env: { ...fromFile, ...set }, source: `the environment and ${path}` };
}
