import type { CodeHost, Permission } from '../../src/code-host/code-host.js';

/** The repository every subject starts with: two commits on `main`, the config only in the second. */
export const REPOSITORY_FILES = [
  { 'README.md': '# app\n', 'src/app.py': 'print(1)\n' },
  {
    'README.md': '# app, second\n',
    'src/app.py': 'print(2)\n',
    '.github/selfdebug.yml': 'command: python3 src/app.py\nmaxAttempts: 2\n',
  },
] as const;
export const REPOSITORY_CONFIG = { command: 'python3 src/app.py', maxAttempts: 2 };

export interface ContractJob {
  name: string;
  conclusion: 'success' | 'failure';
  steps: { number: number; name: string; conclusion: 'success' | 'failure' | 'skipped' | null }[];
  log: string;
}

/**
 * One CodeHost implementation with the means to arrange what the port reads
 * and to see what it wrote, each the way that implementation keeps it.
 */
export interface CodeHostSubject {
  host: CodeHost;
  /** `owner/name` of the repository `host` works on. */
  fullName: string;
  /** The shas of REPOSITORY_FILES' commits, oldest first; `main` is at the last. */
  commits: string[];
  /** A host on another repository of the same owner, one without `.github/selfdebug.yml`. */
  hostWithoutConfig(): Promise<CodeHost>;
  openIssue(): Promise<number>;
  /** Creates (or moves) `branch` at `sha`. */
  createBranch(branch: string, sha: string): Promise<void>;
  setPermission(login: string, role: Permission): void;
  /**
   * Has the App's installation lack `permission` (`checks=write`) that
   * `method` needs, as when its owner has not accepted it; returns the undo.
   */
  withhold(method: 'createCheckRun' | 'createPullRequest', permission: string): () => void;
  /** A finished workflow run; the ids of its jobs in the order given. */
  createWorkflowRun(jobs: ContractJob[]): Promise<{ runId: number; jobIds: number[] }>;
  createReview(
    pullNumber: number,
    comments: { path: string; line: number; body: string }[],
  ): Promise<{ reviewId: number }>;

  comments(issueNumber: number): { id: number; body: string }[];
  /** Reactions given, as `issue:<number>` or `comment:<id>` with their content. */
  reactions(): { target: string; content: string }[];
  pull(number: number): { title: string; body: string; labels: string[] } | undefined;
  checkRun(id: number):
    | {
        name: string;
        headSha: string;
        status: string;
        conclusion: string | null;
        output: { title?: string; summary?: string; text?: string; annotations: number };
      }
    | undefined;
  /** What the implementation saw that GitHub would refuse or never send, where it checks. */
  problems?: () => string[];
  close(): Promise<void>;
}
