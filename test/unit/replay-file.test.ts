import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { RecordingModel } from '../../src/model/recording-model.js';
import { parseReplayFile } from '../../src/model/replay-file.js';
import { ScriptedModel } from '../../src/model/scripted-model.js';

const request = (purpose: 'generate' | 'reflect') => ({
  purpose,
  messages: [{ role: 'user' as const, content: 'x' }],
});

describe('replay files', () => {
  it('replays the example from docs/replay.md', async () => {
    const doc = readFileSync(new URL('../../docs/replay.md', import.meta.url), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const model = parseReplayFile(example, 'docs/replay.md');
    expect(model.model).toBe('recorded-gpt-4.1');
    const first = await model.complete(request('generate'));
    expect(first.toolCalls).toEqual([
      { id: 'call_1_0', name: 'read_file', arguments: '{"path":"stats.py"}' },
    ]);
    const second = await model.complete(request('generate'));
    expect(JSON.parse(second.content ?? '')).toMatchObject({
      analysis: 'statistics is used but never imported',
    });
    expect(second.usage).toEqual({ promptTokens: 1200, completionTokens: 80, totalTokens: 1280 });
    await expect(model.complete(request('generate'))).rejects.toThrow(
      /"reflect" but the loop asked for "generate"/,
    );
  });

  it('refuses files that are not JSON or do not follow the format, saying where', () => {
    expect(() => parseReplayFile('{', 'session.json')).toThrow(ConfigError);
    expect(() => parseReplayFile('{"responses": []}', 'session.json')).toThrow(
      /session\.json[\s\S]*responses/,
    );
    expect(() => parseReplayFile('{"responses": [{"content": "a", "json": {}}]}', 'session.json')).toThrow(
      /either "content" or "json"/,
    );
  });

  it('records a session that replays to the same answers', async () => {
    const recorder = new RecordingModel(
      new ScriptedModel([ScriptedModel.toolCall('list_files', {}), ScriptedModel.json({ ok: true })], 'real'),
    );
    const live = [await recorder.complete(request('generate')), await recorder.complete(request('reflect'))];
    const replayed = parseReplayFile(JSON.stringify(recorder.replayFile()), 'recorded.json');
    const again = [await replayed.complete(request('generate')), await replayed.complete(request('reflect'))];
    expect(
      again.map((response) => [
        response.content,
        response.toolCalls.map((call) => call.name),
        response.usage,
      ]),
    ).toEqual(
      live.map((response) => [response.content, response.toolCalls.map((call) => call.name), response.usage]),
    );
    expect(replayed.model).toBe('real');
  });
});
