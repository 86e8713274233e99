import { describe, expect, it } from 'vitest';
import { runDoctorModel } from '../../src/cli/doctor-model.js';
import { run } from '../../src/cli/main.js';
import { parseArguments } from '../../src/cli/parse-arguments.js';
import { startLlamaCppFake } from '../fakes/model-servers/llama-cpp.js';
import { startOllamaFake } from '../fakes/model-servers/ollama.js';
import { OPENAI_KEY, startOpenAIFake } from '../fakes/model-servers/openai.js';
import { startQuirkyFake } from '../fakes/model-servers/quirky.js';
import type { FakeModelServer } from '../fakes/model-servers/shared.js';

/** Half a second per call to the clock: the speed line does not depend on this machine. */
function steadyClock(): () => number {
  let now = 0;
  return () => {
    now += 500;
    return now;
  };
}

async function doctor(server: FakeModelServer, env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const code = await runDoctorModel({
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { SELFDEBUG_MODEL_BASE_URL: server.url, SELFDEBUG_MODEL_MAX_RETRIES: '0', ...env },
    now: steadyClock(),
  });
  return { code, stdout: stdout.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT'), stderr };
}

describe('selfdebug doctor --model', () => {
  it('is what `doctor --model` parses to, and takes no other arguments', () => {
    expect(parseArguments(['doctor', '--model'])).toEqual({ kind: 'doctor', model: true });
    expect(parseArguments(['doctor'])).toEqual({ kind: 'doctor' });
    expect(parseArguments(['doctor', '--model', 'x'])).toMatchObject({ kind: 'usage-error' });
  });

  it('passes a llama.cpp server started with --jinja, with the window from /props', async () => {
    const server = await startLlamaCppFake({ jinja: true, contextSize: 8192 });
    try {
      const result = await doctor(server, { SELFDEBUG_MODEL: 'qwen2.5-coder-7b-instruct-q4_k_m.gguf' });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('✔ reachable');
      expect(result.stdout).toContain('✔ tools');
      expect(result.stdout).toContain('✔ json_schema');
      expect(result.stdout).toMatch(/✔ context length\s+8192 tokens \(llama\.cpp \/props n_ctx\)/);
      expect(result.stdout).toMatch(/\nusable\.\n$/);
    } finally {
      await server.close();
    }
  });

  it('flags refused tools with the fix, without blocking', async () => {
    const server = await startLlamaCppFake({ jinja: false });
    try {
      const result = await doctor(server, { SELFDEBUG_MODEL: 'qwen2.5-coder-7b-instruct-q4_k_m.gguf' });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/⚠ tools\s+refused by the server/);
      expect(result.stdout).toContain('fix: llama.cpp: start llama-server with --jinja');
      expect(result.stdout).toContain('usable (1 warning: selfdebug works around it).');
    } finally {
      await server.close();
    }
  });

  it('blocks on a window below 4096 tokens and on an unreachable server', async () => {
    const small = await startOllamaFake({ numCtx: 2048 });
    try {
      const result = await doctor(small, { SELFDEBUG_MODEL: 'qwen2.5-coder:7b' });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/✘ context length\s+2048 tokens \(Ollama num_ctx\)/);
      expect(result.stdout).toContain(
        'fix (blocks use): start the server with a window of at least 4096 tokens',
      );
      expect(result.stdout).toContain('not usable: fix context length first.');
    } finally {
      await small.close();
    }
    const gone = await startOllamaFake();
    const url = gone.url;
    await gone.close();
    const result = await doctor({ ...gone, url }, { SELFDEBUG_MODEL: 'qwen2.5-coder:7b' });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/✘ reachable\s+no answer/);
    expect(result.stdout).toContain('ECONNREFUSED');
  });

  it('reports json_schema as not used on a server that refuses it, and an unknown window', async () => {
    const server = await startQuirkyFake();
    try {
      const result = await doctor(server, { SELFDEBUG_MODEL: 'quirky-model' });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /⚠ json_schema\s+not used: answers use json_object, and this one was valid/,
      );
      expect(result.stdout).toMatch(/– context length\s+16384 tokens \(the server does not say; assumed\)/);
      expect(result.stdout).toContain('✔ tools');
    } finally {
      await server.close();
    }
  });

  it('runs from the CLI entry point, needing the key for a remote server', async () => {
    const server = await startOpenAIFake();
    try {
      let stdout = '';
      const code = await run(['doctor', '--model'], {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => {} },
        env: {
          SELFDEBUG_MODEL_BASE_URL: server.url,
          SELFDEBUG_MODEL_API_KEY: OPENAI_KEY,
          SELFDEBUG_MODEL: 'gpt-4.1-mini',
        },
      });
      expect(code).toBe(0);
      expect(stdout).toContain('✔ model listed');
    } finally {
      await server.close();
    }
  });
});
