import type { Permission } from '../../code-host/code-host.js';

const ROLES: readonly Permission[] = ['admin', 'maintain', 'write', 'triage', 'read', 'none'];

/**
 * `role_name` names maintain and triage exactly; the legacy `permission`
 * field folds them into write and read. A custom role has its own name in
 * `role_name`, so for those the legacy field (its base role) is the answer.
 */
export function toPermission(roleName: string | undefined, legacy: string): Permission {
  const role = ROLES.find((candidate) => candidate === roleName);
  if (role !== undefined) return role;
  return ROLES.find((candidate) => candidate === legacy) ?? 'none';
}
