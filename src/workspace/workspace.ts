/**
 * The Workspace port: a git checkout on the host that a job copies into its
 * sandbox, and from which it pushes the fix. The adapter (src/adapters/git)
 * passes the token to git as an HTTP header through the environment: never
 * in a remote URL, a command line, the container or a log.
 */
export interface CheckoutRequest {
  /** https clone URL without credentials. */
  cloneUrl: string;
  /** The commit to check out. */
  sha: string;
  /** Branch to fetch the commit from, when it is not reachable from the default refs. */
  ref?: string;
  /** Installation token; used for this operation only. */
  token: string;
}

export interface CommitAuthor {
  name: string;
  email: string;
}

export interface Workspace {
  /** The checkout's folder on the host. */
  readonly dir: string;
  /** Creates `branch` at the checked-out commit and switches to it. */
  createBranch(branch: string): Promise<void>;
  /** Stages the given paths (or everything) and commits; returns the new commit's sha, or null if nothing changed. */
  commit(message: string, author: CommitAuthor, paths?: string[]): Promise<string | null>;
  /** How many commits reachable from HEAD (within the fetched history) mention `trailer`. */
  countCommits(trailer: string): Promise<number>;
  /** Pushes `branch` to origin, never forced. Refuses any branch outside `selfdebug/`: the App only pushes to branches it created. */
  push(branch: string, token: string): Promise<void>;
  dispose(): Promise<void>;
}

export interface WorkspaceProvider {
  checkout(request: CheckoutRequest): Promise<Workspace>;
}
