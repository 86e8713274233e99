import { SelfdebugError, WorkspacePathError } from '../errors/index.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { workspacePath } from '../sandbox/workspace-path.js';
import { applySearchReplace } from './apply-search-replace.js';
import type { Edit } from './schemas.js';
import type { EditedFile, TestFinding } from './test-guard/findings.js';
import { unifiedDiff } from './unified-diff.js';
import { shellQuote } from './workspace-tools.js';

export type ApplyResult =
  | { ok: true; paths: string[]; diff: string }
  | { ok: false; problems: string[]; refusal?: EditRefusal };

/** Why a check refused edits that would apply: the problems the model reads, and the findings behind them. */
export interface EditRefusal {
  problems: string[];
  findings: TestFinding[];
}

/** Looks at every file an attempt would change before anything is written; a refusal refuses the attempt. */
export type EditCheck = (files: EditedFile[]) => EditRefusal | null;

/** A file as this attempt found it (`before`) and as its edits leave it (`after`). */
interface FileChange {
  before: string | null;
  after: string | null;
  mode: number | undefined;
  /** Where a link inside the workspace led: the file the edit really changes. */
  realPath?: string;
}

interface Baseline {
  content: string | null;
  mode: number | undefined;
}

/** A path the sandbox refused becomes a problem for the model; any other failure still ends the job. */
function pathProblem(error: unknown): WorkspacePathError {
  if (error instanceof WorkspacePathError) return error;
  throw error;
}

/**
 * Applies the model's edits inside the sandbox, all or nothing per attempt:
 * if one edit does not apply, none is written and every problem goes back to
 * the model. Remembers each file as it was before the run first touched it,
 * for the run's final diff. Edits accumulate across attempts, so a later
 * attempt builds on what an earlier one got right.
 */
export class WorkspaceEditor {
  private readonly baseline = new Map<string, Baseline>();

  constructor(private readonly sandbox: Sandbox) {}

  async apply(edits: Edit[], check: EditCheck = () => null): Promise<ApplyResult> {
    const { pending, problems } = await this.edited(edits);
    if (problems.length > 0) return { ok: false, problems };
    if (pending.size === 0) return { ok: false, problems: ['The answer contained no edits.'] };
    const files = [...pending].map(([path, change]) => ({
      path,
      before: change.before,
      after: change.after,
    }));
    const refusal = check(files);
    if (refusal) return { ok: false, problems: refusal.problems, refusal };
    return this.write(pending);
  }

  /** Every edit applied in memory first, so nothing is written unless all of them apply. */
  private async edited(edits: Edit[]): Promise<{ pending: Map<string, FileChange>; problems: string[] }> {
    const problems: string[] = [];
    const pending = new Map<string, FileChange>();
    for (const edit of edits) {
      let path: string;
      try {
        path = workspacePath(edit.path);
      } catch (error) {
        problems.push(error instanceof SelfdebugError ? error.message : String(error));
        continue;
      }
      let known = pending.get(path) ?? (await this.current(path).catch(pathProblem));
      // An edit through a link changes the file it leads to: that file is what the run changed.
      if (typeof known === 'object' && !(known instanceof WorkspacePathError) && known.realPath) {
        path = known.realPath;
        known = pending.get(path) ?? known;
      }
      if (known instanceof WorkspacePathError) {
        problems.push(known.message);
        continue;
      }
      if (known === 'binary') {
        problems.push(`${path}: this is a binary file; it cannot be edited as text.`);
        continue;
      }
      const outcome = applySearchReplace(path, known.after, edit);
      if (!outcome.ok) problems.push(outcome.problem);
      else pending.set(path, { before: known.before, after: outcome.content, mode: known.mode });
    }
    return { pending, problems };
  }

  private async write(pending: Map<string, FileChange>): Promise<ApplyResult> {
    const diffs: string[] = [];
    const written: string[] = [];
    for (const [path, change] of pending) {
      const refused = await this.sandbox
        .writeFile(path, change.after ?? '', change.mode)
        .then(() => null, pathProblem);
      if (refused) {
        // Reading first catches nearly every bad path; a folder where a new file would go shows only
        // on writing. Undo this attempt's writes so the edits still apply all or nothing.
        await this.restore(written, pending);
        return { ok: false, problems: [refused.message] };
      }
      written.push(path);
      if (!this.baseline.has(path)) this.baseline.set(path, { content: change.before, mode: change.mode });
      diffs.push(unifiedDiff(path, change.before, change.after));
    }
    return { ok: true, paths: [...pending.keys()], diff: diffs.filter(Boolean).join('') };
  }

  private async restore(
    paths: string[],
    pending: Map<string, { before: string | null; mode: number | undefined }>,
  ): Promise<void> {
    for (const path of paths) {
      const before = pending.get(path)?.before ?? null;
      if (before !== null) await this.sandbox.writeFile(path, before, pending.get(path)?.mode);
      else await this.sandbox.exec(`rm -f -- ${shellQuote(path)}`, { timeoutSeconds: 30 });
    }
  }

  /** Every file the run changed, against how it was before the run. */
  async diff(): Promise<{ diff: string; changedFiles: string[] }> {
    const changes = await this.changes();
    const diffs = changes.map((change) => unifiedDiff(change.path, change.before, change.after));
    return { diff: diffs.join(''), changedFiles: changes.map((change) => change.path) };
  }

  /** Each file the run changed, as it was before the run and as it is now. */
  async changes(): Promise<EditedFile[]> {
    const changes: EditedFile[] = [];
    for (const [path, before] of this.baseline) {
      const now = await this.current(path);
      const after = now === 'binary' ? null : now.after;
      if (unifiedDiff(path, before.content, after) !== '')
        changes.push({ path, before: before.content, after });
    }
    return changes;
  }

  private async current(path: string): Promise<FileChange | 'binary'> {
    const file = await this.sandbox.readFile(path);
    if (file === null) return { before: null, after: null, mode: undefined };
    const text = new TextDecoder('utf-8', { fatal: false }).decode(file.content);
    if (text.includes('\uFFFD') || file.content.includes(0)) return 'binary';
    const change: FileChange = { before: text, after: text, mode: file.mode };
    if (file.realPath !== undefined) change.realPath = file.realPath;
    return change;
  }
}
