import type { CodeHost, Permission } from '../code-host/code-host.js';

export interface Sender {
  login: string;
  /** `User`, `Bot`, `Organization`; a delivery may leave it out. */
  type?: string | undefined;
}

export type Authorization =
  | { allowed: true; permission: Permission }
  | { allowed: false; reason: 'automated' }
  | { allowed: false; reason: 'permission'; permission: Permission }
  | { allowed: false; reason: 'not-listed'; permission: Permission };

const WRITERS: readonly Permission[] = ['admin', 'maintain', 'write'];

/**
 * Who may start a job: people with write, maintain or admin permission on
 * the repository, asked of GitHub's collaborator API (author_association
 * says nothing about permission), optionally narrowed by the repository's
 * `allowed_users`. Bots and the App itself are never obeyed, so two bots
 * cannot drive each other.
 */
export async function authorize(
  host: CodeHost,
  sender: Sender,
  handle: string,
  allowedUsers?: readonly string[],
): Promise<Authorization> {
  if (isAutomated(sender, handle)) return { allowed: false, reason: 'automated' };
  const permission = await host.permissionOf(sender.login);
  if (!WRITERS.includes(permission)) return { allowed: false, reason: 'permission', permission };
  if (allowedUsers && allowedUsers.length > 0) {
    const listed = allowedUsers.some((login) => login.toLowerCase() === sender.login.toLowerCase());
    if (!listed) return { allowed: false, reason: 'not-listed', permission };
  }
  return { allowed: true, permission };
}

export function isAutomated(sender: Sender, handle: string): boolean {
  const login = sender.login.toLowerCase();
  return sender.type === 'Bot' || login.endsWith('[bot]') || login === handle.toLowerCase();
}

export function refusalText(
  login: string,
  authorization: Extract<Authorization, { reason: 'permission' | 'not-listed' }>,
): string {
  if (authorization.reason === 'not-listed') {
    return `Sorry @${login}, this repository lets only the people listed in \`allowed_users\` of \`.github/selfdebug.yml\` start selfdebug. A maintainer can add you there.`;
  }
  return (
    `Sorry @${login}, only people with write access to this repository can start selfdebug ` +
    `(yours is \`${authorization.permission}\`). Ask a maintainer to mention me instead.`
  );
}
