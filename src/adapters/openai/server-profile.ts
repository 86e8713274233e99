import type { StructuredOutputMode } from '../../config/model-config.js';

/**
 * What one server (base URL + model) turned out to support. Learned from its
 * answers (a refused response_format, refused tools, refused stream_options) or
 * from `selfdebug doctor --model`, and kept so later calls and later jobs in the
 * same process skip what failed.
 */
export interface ServerProfile {
  structuredOutput?: StructuredOutputMode;
  tools?: boolean;
  streamUsage?: boolean;
  /** undefined: not asked yet; null: the server does not say. */
  contextTokens?: { tokens: number; source: string } | null;
}

export class ServerProfiles {
  readonly #profiles = new Map<string, ServerProfile>();

  get(key: string): Readonly<ServerProfile> {
    return this.#profiles.get(key) ?? {};
  }

  update(key: string, patch: Partial<ServerProfile>): void {
    this.#profiles.set(key, { ...this.#profiles.get(key), ...patch });
  }
}

export function profileKey(baseUrl: string, model: string): string {
  return `${baseUrl.replace(/\/+$/, '')}#${model}`;
}

/**
 * The process's cache. A deliberate exception to "no module-level state": it
 * holds facts about servers, not settings, and every job in a worker process
 * should profit from what the first one learned. Tests pass their own.
 */
export const processServerProfiles = new ServerProfiles();
