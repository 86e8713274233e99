import { CappedOutput } from './capped-output.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 1_000_000;

/** Captures stdout and stderr apart and together, each under the same cap. */
export class OutputRecorder {
  private readonly stdout: CappedOutput;
  private readonly stderr: CappedOutput;
  private readonly combined: CappedOutput;

  constructor(
    maxBytes: number = DEFAULT_MAX_OUTPUT_BYTES,
    private readonly onOutput?: (chunk: Buffer) => void,
  ) {
    this.stdout = new CappedOutput(maxBytes);
    this.stderr = new CappedOutput(maxBytes);
    this.combined = new CappedOutput(maxBytes);
  }

  write(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    (stream === 'stdout' ? this.stdout : this.stderr).push(chunk);
    this.combined.push(chunk);
    this.onOutput?.(chunk);
  }

  result(): { stdout: string; stderr: string; output: string; truncated: boolean } {
    return {
      stdout: this.stdout.toString(),
      stderr: this.stderr.toString(),
      output: this.combined.toString(),
      truncated: this.stdout.truncated || this.stderr.truncated || this.combined.truncated,
    };
  }
}
