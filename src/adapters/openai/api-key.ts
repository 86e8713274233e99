import { apiKeyVariables, type ModelConfig } from '../../config/model-config.js';
import { ModelAuthError } from '../../errors/index.js';

/**
 * Sent to loopback servers that need no key: the SDK refuses to start without
 * one, and a fixed word is easier to recognise in a server log than an empty header.
 */
export const PLACEHOLDER_API_KEY = 'no-key-needed';

/** The key to send, or a ModelAuthError naming the variables to set. */
export function resolveApiKey(config: ModelConfig): string {
  if (config.apiKey !== undefined) return config.apiKey;
  if (config.baseUrl !== undefined && isLoopbackUrl(config.baseUrl)) return PLACEHOLDER_API_KEY;
  const server =
    config.baseUrl === undefined ? 'OpenAI' : `the model server at ${displayUrl(config.baseUrl)}`;
  throw new ModelAuthError(
    `No API key for ${server}. Set ${apiKeyVariables}, ` +
      'or point SELFDEBUG_MODEL_BASE_URL at a local server (for example http://127.0.0.1:11434/v1).',
  );
}

/** Only this machine: a remote server without a key is a misconfiguration, not a choice. */
export function isLoopbackUrl(url: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  if (hostname === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** The URL without credentials or query, safe to show in messages. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname.replace(/\/$/, '')}`;
  } catch {
    return '(an invalid URL)';
  }
}
