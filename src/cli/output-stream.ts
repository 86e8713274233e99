/**
 * Where a command writes: process.stdout or a test's buffer. Its own file so
 * the commands need not import main.ts, which loads them.
 */
export interface OutputStream {
  write(text: string): unknown;
}
