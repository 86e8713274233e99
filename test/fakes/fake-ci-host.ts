import type { CiRun, CiRuns, CiSuite } from '../../src/ci-verdict/ci-verdict.js';
import type { CiHost } from '../../src/code-host/code-host.js';
import { GitHubNotFoundError } from '../../src/errors/index.js';
import { FakeCodeHost } from './fake-code-host.js';

/**
 * The FakeCodeHost with what following a fix's CI asks: the workflow runs
 * and check suites each commit has (set by the test), the active workflows, and in-place
 * edits of comments and pull request bodies it keeps.
 */
export class FakeCiHost extends FakeCodeHost implements CiHost {
  readonly ci = new Map<string, CiRun[]>();
  /** Other apps' check suites per commit (neither Actions' nor the App's own, as the adapter lists them). */
  readonly suites = new Map<string, CiSuite[]>();
  activeWorkflows = 1;
  /** How many times the runs were asked for: a test can see nothing more was asked. */
  asked = 0;

  async ciRuns(headSha: string): Promise<CiRuns> {
    this.asked++;
    return {
      runs: structuredClone(this.ci.get(headSha) ?? []),
      suites: structuredClone(this.suites.get(headSha) ?? []),
      activeWorkflows: this.activeWorkflows,
    };
  }

  async amendComment(commentId: number, edit: (body: string) => string): Promise<boolean> {
    const comment = this.comments.find((candidate) => candidate.id === commentId);
    if (comment === undefined) return false;
    comment.body = edit(comment.body);
    return true;
  }

  async amendPullRequestBody(number: number, edit: (body: string) => string): Promise<void> {
    const pull = this.pulls.find((candidate) => candidate.number === number);
    if (pull === undefined) throw new GitHubNotFoundError(`The fake has no pull request #${number}.`);
    pull.body = edit(pull.body);
  }
}
