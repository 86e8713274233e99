import type { OpenSandboxRequest, Sandbox, SandboxProvider } from './sandbox.js';

/**
 * Opens a sandbox, hands it to `work`, and removes it afterwards whatever
 * happens: a normal end, a thrown error, or the request's signal aborting
 * (which removes the sandbox at once, even while `work` is still running).
 */
export async function withSandbox<T>(
  provider: SandboxProvider,
  request: OpenSandboxRequest,
  work: (sandbox: Sandbox) => Promise<T>,
): Promise<T> {
  request.signal?.throwIfAborted();
  const sandbox = await provider.open(request);
  const disposeOnAbort = () => void sandbox.dispose().catch(() => {});
  request.signal?.addEventListener('abort', disposeOnAbort, { once: true });
  try {
    return await work(sandbox);
  } finally {
    request.signal?.removeEventListener('abort', disposeOnAbort);
    await sandbox.dispose();
  }
}
