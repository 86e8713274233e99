import { loadSandboxConfig } from '../config/load-config.js';
import type { Environment } from '../config/read-environment.js';
import { readSetupExtras } from '../config/setup-extras.js';
import { ConfigError } from '../errors/index.js';
import type { DoctorPorts } from './doctor-ports.js';
import { type CheckResult, fail, messageOf, ok, skip } from './doctor-result.js';

const NAME = 'setup settings';

/**
 * SELFDEBUG_EXTRA_CA_CERTS parses as PEM certificates and
 * SELFDEBUG_SETUP_ENV_FILE as KEY=VALUE lines, as the App reads them at
 * start-up; the row names the variables and mirrors, never a value.
 */
export async function checkSetupSettings(env: Environment, ports: DoctorPorts): Promise<CheckResult> {
  let paths: { extraCaCerts?: string | undefined; setupEnvFile?: string | undefined };
  try {
    paths = loadSandboxConfig(env);
  } catch (error) {
    return fail(NAME, 'the sandbox settings are invalid', messageOf(error));
  }
  if (!paths.extraCaCerts && !paths.setupEnvFile)
    return skip(
      NAME,
      'no SELFDEBUG_EXTRA_CA_CERTS or SELFDEBUG_SETUP_ENV_FILE: setup uses the public registries as they are',
    );
  const texts = new Map<string, string>();
  try {
    for (const path of [paths.extraCaCerts, paths.setupEnvFile])
      if (path) texts.set(path, await ports.readFile(path));
    const read = readSetupExtras(paths, (path) => texts.get(path) ?? '');
    const parts = [
      read.certificates.length > 0
        ? `${read.certificates.length} certificate(s) from ${paths.extraCaCerts}`
        : '',
      paths.setupEnvFile
        ? `${Object.keys(read.env).join(', ') || 'no variables'} from ${paths.setupEnvFile}`
        : '',
      read.mirrorHosts.length > 0 ? `mirrors allowed: ${read.mirrorHosts.join(', ')}` : '',
    ];
    return ok(NAME, parts.filter(Boolean).join('; '));
  } catch (error) {
    if (error instanceof ConfigError) return fail(NAME, 'a setup file is malformed', error.message);
    const why = (error as { code?: string }).code ?? messageOf(error);
    return fail(NAME, `cannot read a setup file (${why})`, 'check the path and that this user may read it');
  }
}
