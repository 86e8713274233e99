import type { Sandbox, WorkspaceFile } from './sandbox.js';

/** What reads a sandbox's files. */
export type FileReader = Pick<Sandbox, 'readFile'>;

/**
 * The sandbox's files, each read once. After a run the copy-back and a
 * door's delivery (the job's fixed scripts) read the same edited files one
 * after the other, with no command between them that could change one, and
 * each read is a command in the sandbox. Only for such a stretch: a command
 * run in between could change what a read would return.
 */
export function readOnce(sandbox: FileReader): FileReader {
  const reads = new Map<string, Promise<WorkspaceFile | null>>();
  return {
    readFile(path) {
      const read = reads.get(path) ?? sandbox.readFile(path);
      reads.set(path, read);
      return read;
    },
  };
}
