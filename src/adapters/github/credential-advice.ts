/**
 * Whose credential an Octokit's requests carry, chosen once where it is built: the App's
 * installation token (the App, `selfdebug worker`), or the Action's `github-token` (the
 * workflow's GITHUB_TOKEN unless the workflow gives another). What a refusal tells the user
 * to do depends on it: an installation's owner accepts new permissions in its settings, a
 * workflow's author adds them to the workflow's `permissions:`.
 */
export type GitHubCredential = 'app-installation' | 'workflow-token';

type Headers = Record<string, string | number | undefined>;

/** The credential's part of each refusal's message; the rest (what was done, GitHub's words) is shared. */
export interface CredentialAdvice {
  /** Who GitHub rate-limited: "the App". */
  limited: string;
  /** After a 404: besides the thing existing, what must hold. */
  notFound: string;
  /** A 401: whose credentials GitHub refused, and what to check. */
  refusedWho: string;
  refusedAdvice: string;
  /** A 403: what lacks which permission (GitHub names it in a header), and what to do. */
  forbidden(headers: Headers): { lacks: string; advice: string };
}

const APP_INSTALLATION: CredentialAdvice = {
  limited: 'the App',
  notFound: 'the App is installed on the repository with access to it.',
  refusedWho: "the App's credentials",
  refusedAdvice: 'Check the App ID and private key, and that the App is still installed.',
  forbidden: (headers) => ({
    lacks: `the App lacks ${neededPermission(headers, (set) => set.replace(/=/g, ': '))}`,
    advice:
      "Accept the new permissions in the installation settings (the organisation's or your Settings → " +
      'Applications → selfdebug → Configure), or check the branch protection and repository rules.',
  }),
};

const WORKFLOW_TOKEN: CredentialAdvice = {
  limited: 'the workflow token',
  notFound:
    "the token in `github-token` can reach it (the workflow's GITHUB_TOKEN reaches only the workflow's own repository).",
  refusedWho: 'the token in `github-token`',
  refusedAdvice:
    "The workflow's GITHUB_TOKEN lasts only while its job runs; a token the workflow gives instead may " +
    'have expired or been revoked.',
  forbidden: (headers) => {
    const needed = workflowPermissions(headers);
    return {
      lacks: `the token lacks ${neededPermission(headers, (set) => set.replace(/_/g, '-').replace(/=/g, ': '))}`,
      advice:
        `Add \`permissions:\` with ${needed} to the workflow (or to the job that runs selfdebug), or give ` +
        '`github-token` a token that has it; to open pull requests, the repository must also allow it ' +
        '(Settings → Actions → General → "Allow GitHub Actions to create and approve pull requests"). ' +
        'Else check the branch protection and repository rules.',
    };
  },
};

const ADVICE: Record<GitHubCredential, CredentialAdvice> = {
  'app-installation': APP_INSTALLATION,
  'workflow-token': WORKFLOW_TOKEN,
};

export function adviceFor(credential: GitHubCredential): CredentialAdvice {
  return ADVICE[credential];
}

/**
 * GitHub names what a token would need in `x-accepted-github-permissions`,
 * e.g. `checks=write` or `contents=read; pull_requests=read` (any one set is
 * enough); `spell` writes one set in the reader's terms.
 */
function neededPermission(headers: Headers, spell: (set: string) => string): string {
  const sets = acceptedSets(headers).map((set) => spell(set).replace(/,\s*/g, ' and '));
  if (sets.length === 0) return 'permission for it';
  const permissions = sets.length === 1 ? 'permission' : 'permissions (any one of these)';
  return `the ${sets.map((set) => `"${set}"`).join(' or ')} ${permissions}`;
}

/** The first set GitHub accepts, as a workflow's `permissions:` writes it: `pull-requests: write`. */
function workflowPermissions(headers: Headers): string {
  const [first] = acceptedSets(headers);
  if (first === undefined)
    return 'what the request needs (a pull request: `contents: write`, `pull-requests: write`)';
  return first
    .split(',')
    .map((entry) => `\`${entry.trim().replace(/_/g, '-').replace(/=/g, ': ')}\``)
    .join(' and ');
}

function acceptedSets(headers: Headers): string[] {
  const value = headers['x-accepted-github-permissions'];
  return (value === undefined ? '' : String(value))
    .split(';')
    .map((set) => set.trim())
    .filter((set) => set !== '');
}
