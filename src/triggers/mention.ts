import type { CodeHost } from '../code-host/code-host.js';
import { JobRefusedError } from '../errors/index.js';
import { BRANCH_PREFIX, isOwnBranch } from '../workspace/selfdebug-branches.js';
import {
  type PreparedTask,
  shortJobId,
  type TaskSettings,
  type TriggerModule,
  type TriggerRequest,
  type TriggerTarget,
} from './trigger-module.js';

/** `@selfdebug fix` (or `explain`) in an issue or a pull request. */
export interface MentionTrigger {
  kind: 'mention';
  command: 'fix' | 'explain';
  issueNumber: number;
  isPullRequest: boolean;
  commentId: number | null;
  /** Issue body and the triggering text, hidden HTML already stripped. */
  text: string;
  scriptBlocks: ScriptBlock[];
}

/** A ``` block from the issue text, run as the script to fix when no command is given. */
export interface ScriptBlock {
  language: string;
  code: string;
}

export const mention: TriggerModule<MentionTrigger> = {
  kind: 'mention',
  issueNumber: (trigger) => trigger.issueNumber,
  // A mention names no branch until the job resolves it; its fix goes to a branch of its own.
  serialKey: (trigger) => `${trigger.isPullRequest ? 'pull' : 'issue'}:${trigger.issueNumber}`,
  branch: () => null,
  loopMode: (trigger) => (trigger.command === 'explain' ? 'explain' : 'fix'),
  target: mentionTarget,
  task: async (request, _host, settings) => mentionTask(request, settings),
  automatic: false,
  describe(trigger, requestedBy, md) {
    const where = trigger.isPullRequest ? 'pull request' : 'issue';
    return `Asked by ${md.line(`@${requestedBy}`, 60)} in ${where} #${trigger.issueNumber}`;
  },
  // Only an issue (not a pull request) that asked for the fix.
  issueToClose: (trigger) =>
    !trigger.isPullRequest && trigger.command === 'fix' ? trigger.issueNumber : null,
};

/** An issue: its base branch's head (the webhook names no commit), the fix on a branch of the job's own. */
async function mentionTarget(
  request: TriggerRequest<MentionTrigger>,
  host: CodeHost,
): Promise<TriggerTarget> {
  const { trigger } = request;
  if (trigger.isPullRequest) return pullTarget(request, host);
  const base = request.baseBranch;
  return {
    headSha: request.headSha ?? (await host.branchHead(base)),
    ref: base,
    workBranch: `${BRANCH_PREFIX}issue-${trigger.issueNumber}-${shortJobId(request.id)}`,
    ownBranch: false,
    baseBranch: base,
    existingPull: null,
  };
}

/** A pull request: its head (a comment does not carry it), refused from a fork; the App's own branch gets the fix on top. */
async function pullTarget(request: TriggerRequest<MentionTrigger>, host: CodeHost): Promise<TriggerTarget> {
  const pull = await host.pullRequest(request.trigger.issueNumber);
  const { owner, name } = request.repository;
  if (pull.headRepository.toLowerCase() !== `${owner}/${name}`.toLowerCase()) {
    throw new JobRefusedError(
      'This pull request comes from a fork. selfdebug does not run code from forks near its credentials and ' +
        'cannot push to a fork; push the branch to this repository and ask again there.',
    );
  }
  const own = isOwnBranch(pull.head);
  return {
    headSha: pull.headSha,
    ref: pull.head,
    workBranch: own ? pull.head : `${BRANCH_PREFIX}pr-${pull.number}-${shortJobId(request.id)}`,
    ownBranch: own,
    baseBranch: own ? pull.base : pull.head,
    existingPull: own ? pull.number : null,
  };
}

/** The command it names (or the config's), else the issue's code blocks, written out and run. */
function mentionTask(request: TriggerRequest<MentionTrigger>, settings: TaskSettings): PreparedTask {
  const { trigger } = request;
  const { command: explicit, setupCommands } = settings;
  if (explicit) return { task: { description: trigger.text, command: explicit, setupCommands }, scripts: [] };
  const scripts = trigger.scriptBlocks.map((block, index) => scriptFile(block, index, trigger.issueNumber));
  if (scripts.length === 0) {
    throw new JobRefusedError(
      'I do not know which command to run. Put it in backticks (``@selfdebug fix `pytest tests/` ``), add a ' +
        '```python or ```sh block with the failing script to the issue, or set `command` in `.github/selfdebug.yml`.',
    );
  }
  const command = scripts.map((script) => script.run).join(' && ');
  return {
    task: { description: trigger.text, command, setupCommands },
    scripts: scripts.map(({ path, content }) => ({ path, content })),
  };
}

function scriptFile(
  block: ScriptBlock,
  index: number,
  issue: number,
): { path: string; content: string; run: string } {
  const extension = block.language === 'python' ? 'py' : block.language === 'node' ? 'js' : 'sh';
  const path = `selfdebug-scripts/issue-${issue}-${index + 1}.${extension}`;
  const runner =
    block.language === 'python' ? 'python3' : block.language === 'node' ? 'node' : block.language;
  return { path, content: block.code, run: `${runner} ${path}` };
}
