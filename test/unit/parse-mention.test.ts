import { describe, expect, it } from 'vitest';
import { parseHandle, parseMention } from '../../src/app/parse-mention.js';
import { ConfigError } from '../../src/errors/config-errors.js';

describe('parseMention', () => {
  describe('commands', () => {
    it.each([
      ['@selfdebug fix', 'fix'],
      ['@selfdebug explain', 'explain'],
      ['@selfdebug retry', 'retry'],
      ['@selfdebug stop', 'stop'],
      ['@selfdebug help', 'help'],
    ])('reads %j as %s', (body, command) => {
      expect(parseMention(body)).toEqual({ kind: 'command', command, arguments: '' });
    });

    it('treats a bare mention as help', () => {
      expect(parseMention('@selfdebug')).toEqual({ kind: 'command', command: 'help', arguments: '' });
      expect(parseMention('hey @selfdebug   ')).toEqual({ kind: 'command', command: 'help', arguments: '' });
    });

    it('keeps the rest of the line as arguments, inline code included', () => {
      expect(parseMention('@selfdebug fix `pytest -x tests/test_report.py`  ')).toEqual({
        kind: 'command',
        command: 'fix',
        arguments: '`pytest -x tests/test_report.py`',
      });
    });

    it('stops the arguments at the end of the line', () => {
      expect(parseMention('@selfdebug fix npm test\nThanks in advance!')).toEqual({
        kind: 'command',
        command: 'fix',
        arguments: 'npm test',
      });
    });

    it('finds a mention in the middle of a sentence and on a later line', () => {
      expect(parseMention('Could you take a look, @selfdebug fix?')).toMatchObject({ command: 'fix' });
      expect(parseMention('Context first.\r\n\r\n@selfdebug explain make build')).toEqual({
        kind: 'command',
        command: 'explain',
        arguments: 'make build',
      });
    });

    it('accepts a colon or comma after the handle and punctuation after the command', () => {
      expect(parseMention('@selfdebug: help')).toMatchObject({ command: 'help' });
      expect(parseMention('@selfdebug, stop!')).toMatchObject({ command: 'stop' });
      expect(parseMention('@selfdebug help.')).toMatchObject({ command: 'help' });
    });

    it('ignores case in the handle and the command', () => {
      expect(parseMention('@SelfDebug HELP')).toEqual({ kind: 'command', command: 'help', arguments: '' });
      expect(parseMention('@SELFDEBUG Fix It')).toEqual({ kind: 'command', command: 'fix', arguments: 'It' });
    });

    it('reports a word it does not know as unknown, keeping the word as typed', () => {
      expect(parseMention('@selfdebug Frobnicate the thing')).toEqual({
        kind: 'unknown',
        word: 'Frobnicate',
        arguments: 'the thing',
      });
    });

    it('does not read a longer word as a command', () => {
      expect(parseMention('@selfdebug fix2')).toMatchObject({ kind: 'unknown', word: 'fix2' });
      expect(parseMention('@selfdebug helpful bot')).toMatchObject({ kind: 'unknown', word: 'helpful' });
    });

    it('uses the first mention when there are several', () => {
      expect(parseMention('@selfdebug stop\n@selfdebug fix')).toMatchObject({ command: 'stop' });
    });

    it('reads a mention wrapped in brackets or after markdown emphasis', () => {
      expect(parseMention('(@selfdebug help)')).toMatchObject({ command: 'help' });
      expect(parseMention('**@selfdebug** help')).toMatchObject({ command: 'help' });
      expect(parseMention('_@selfdebug fix_')).toMatchObject({ command: 'fix' });
      expect(parseMention('- @selfdebug retry')).toMatchObject({ command: 'retry' });
    });
  });

  describe('whole-word handle', () => {
    it.each([
      'no mention here',
      '@selfdebugger help',
      '@selfdebug_bot help',
      '@selfdebug-bot help',
      '@selfdebug[bot] help',
      '@selfdebug/maintainers help',
      'mail me at me@selfdebug help',
      'see https://example.com/@selfdebug help',
      'selfdebug help',
      '@@selfdebug help',
      '',
    ])('returns null for %j', (body) => {
      expect(parseMention(body)).toBeNull();
    });

    it('still finds the real handle after a longer one', () => {
      expect(parseMention('@selfdebugger no, @selfdebug fix')).toMatchObject({ command: 'fix' });
    });

    it('uses the configured handle, and only that one', () => {
      expect(parseMention('@fixbot help', 'fixbot')).toMatchObject({ command: 'help' });
      expect(parseMention('@selfdebug help', 'fixbot')).toBeNull();
    });

    it('treats regular expression characters in the handle literally', () => {
      expect(parseMention('@a-b help', 'a-b')).toMatchObject({ command: 'help' });
      expect(parseMention('@aXb help', 'a.b')).toBeNull();
    });
  });

  describe('code and quotes', () => {
    it('ignores a mention in inline code', () => {
      expect(parseMention('Type `@selfdebug fix` to start a job')).toBeNull();
      expect(parseMention('Type ``@selfdebug `fix` `` to start')).toBeNull();
    });

    it('reads a mention after inline code on the same line', () => {
      expect(parseMention('`code` then @selfdebug help')).toMatchObject({ command: 'help' });
    });

    it('reads a mention after an unclosed backtick, which is not code', () => {
      expect(parseMention('a stray ` then @selfdebug help')).toMatchObject({ command: 'help' });
    });

    it('ignores mentions inside backtick and tilde fences', () => {
      expect(parseMention('```\n@selfdebug fix\n```')).toBeNull();
      expect(parseMention('~~~text\n@selfdebug fix\n~~~')).toBeNull();
      expect(parseMention('```bash\n@selfdebug fix\n```\n')).toBeNull();
    });

    it('reads a mention after a closed fence', () => {
      expect(parseMention('```\n@selfdebug fix\n```\n@selfdebug help')).toMatchObject({ command: 'help' });
    });

    it('closes a fence only with the same marker, at least as long', () => {
      expect(parseMention('````\n```\n@selfdebug fix\n````\n@selfdebug stop')).toMatchObject({
        command: 'stop',
      });
      expect(parseMention('```\n~~~\n@selfdebug fix\n```\n@selfdebug stop')).toMatchObject({
        command: 'stop',
      });
      expect(parseMention('```\n``` not a close\n@selfdebug fix')).toBeNull();
    });

    it('treats an unclosed fence as code to the end', () => {
      expect(parseMention('```\n@selfdebug fix\nmore')).toBeNull();
    });

    it('recognises fences indented inside list items', () => {
      expect(parseMention('1. Run:\n   ```\n   @selfdebug fix\n   ```')).toBeNull();
    });

    it('ignores quoted lines, nested and indented ones too', () => {
      expect(parseMention('> @selfdebug fix')).toBeNull();
      expect(parseMention('>@selfdebug fix')).toBeNull();
      expect(parseMention('> > @selfdebug fix')).toBeNull();
      expect(parseMention('  > @selfdebug fix')).toBeNull();
    });

    it('reads a reply below a quote', () => {
      expect(parseMention('> @selfdebug fix\n\nYes, @selfdebug retry')).toMatchObject({ command: 'retry' });
    });
  });
});

describe('parseHandle', () => {
  it('defaults to selfdebug when unset or blank', () => {
    expect(parseHandle(undefined)).toBe('selfdebug');
    expect(parseHandle('  ')).toBe('selfdebug');
  });

  it('accepts a GitHub login, with or without @', () => {
    expect(parseHandle('fix-bot')).toBe('fix-bot');
    expect(parseHandle('@FixBot2')).toBe('FixBot2');
  });

  it.each(['fix bot', '-fixbot', 'fixbot-', 'fix--bot', 'fix.bot', 'a'.repeat(40)])(
    'rejects %j with a ConfigError naming the variable',
    (value) => {
      expect(() => parseHandle(value)).toThrow(ConfigError);
      expect(() => parseHandle(value)).toThrow(/SELFDEBUG_HANDLE/);
    },
  );
});
