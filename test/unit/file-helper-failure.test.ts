import { describe, expect, it } from 'vitest';
import { fileHelperFailure } from '../../src/adapters/docker/file-helper-failure.js';
import { WorkspaceFullError, WorkspaceTransferError } from '../../src/errors/index.js';

describe('fileHelperFailure: what a failed file helper exec tells the user', () => {
  it('names the signal that killed a silent helper (exit code above 128) and says to retry or raise the memory limit', () => {
    const error = fileHelperFailure('write', 'src/app.py', { exitCode: 137, stderr: '' }, 2048);
    expect(error).toBeInstanceOf(WorkspaceTransferError);
    expect(error.code).toBe('workspace-transfer');
    expect(error.message).toBe(
      'Copying the workspace into the sandbox failed: could not write src/app.py: the file helper was killed by ' +
        "signal 9 (SIGKILL) and printed nothing. A signal usually means the sandbox's memory limit was reached " +
        'or the container was stopped while the job ran: retry the job, and raise sandbox.memory_mb in ' +
        '.github/selfdebug.yml if it happens again.',
    );
  });

  it('gives the exit code of a silent helper that was not killed, and what to check', () => {
    const error = fileHelperFailure('write', 'notes.txt', { exitCode: 1, stderr: '\n' }, 2048);
    expect(error.message).toContain(
      'could not write notes.txt: the file helper exited with code 1 and printed nothing.',
    );
    expect(error.message).toContain('Check free disk space on the engine host');
    expect(error.message).not.toMatch(/notes\.txt: \./);
  });

  it('says the same of a failed read, as a copy out of the sandbox', () => {
    const error = fileHelperFailure('read', 'out.log', { exitCode: 143, stderr: '' }, 2048);
    expect(error.message).toMatch(
      /^Copying the workspace out of the sandbox failed: could not read out\.log: /,
    );
    expect(error.message).toContain('killed by signal 15 (SIGTERM)');
  });

  it('keeps a signal the platform does not name as a bare number', () => {
    const error = fileHelperFailure('write', 'a.txt', { exitCode: 255, stderr: '' }, 2048);
    expect(error.message).toContain('killed by signal 127 and printed nothing');
  });

  it('passes on what a helper printed, with the default advice', () => {
    const error = fileHelperFailure(
      'write',
      'a.txt',
      { exitCode: 1, stderr: 'sh: cannot create a.txt: Read-only file system\n' },
      2048,
    );
    expect(error.message).toBe(
      'Copying the workspace into the sandbox failed: could not write a.txt: sh: cannot create a.txt: Read-only ' +
        'file system. Check free disk space on the engine host and that the workspace path exists.',
    );
  });

  it('turns a full disk on write into the workspace-full error with the limit to raise', () => {
    const error = fileHelperFailure(
      'write',
      'big.bin',
      { exitCode: 1, stderr: 'write: No space left on device' },
      512,
    );
    expect(error).toBeInstanceOf(WorkspaceFullError);
    expect(error.message).toContain(
      'The file big.bin does not fit in the workspace, which holds at most 512 MB.',
    );
  });
});
