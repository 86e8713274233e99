import { describe, expect, it } from 'vitest';
import { MAX_CLIENT_HELLO_BYTES, readClientHello } from '../../src/adapters/proxy/client-hello.js';
import { serverNameMismatch } from '../../src/adapters/proxy/tls-tunnel.js';
import { capturedClientHello } from '../security/tls-stand-in.js';

/** The same handshake bytes re-framed into records of at most `size` bytes each, as TLS allows. */
function reframe(record: Buffer, size: number): Buffer {
  const handshake = record.subarray(5);
  const records: Buffer[] = [];
  for (let offset = 0; offset < handshake.length; offset += size) {
    const fragment = handshake.subarray(offset, offset + size);
    const header = Buffer.from([22, 3, 1, 0, 0]);
    header.writeUInt16BE(fragment.length, 3);
    records.push(header, fragment);
  }
  return Buffer.concat(records);
}

/** A captured one-record ClientHello with one more extension at the end, every length adjusted. */
function withExtension(record: Buffer, type: number, data: Buffer): Buffer {
  let at = 5 + 4 + 2 + 32;
  at += 1 + record[at]!;
  at += 2 + record.readUInt16BE(at);
  at += 1 + record[at]!;
  const extension = Buffer.alloc(4 + data.length);
  extension.writeUInt16BE(type, 0);
  extension.writeUInt16BE(data.length, 2);
  data.copy(extension, 4);
  const grown = Buffer.concat([record, extension]);
  grown.writeUInt16BE(record.readUInt16BE(3) + extension.length, 3);
  grown.writeUIntBE(record.readUIntBE(6, 3) + extension.length, 6, 3);
  grown.writeUInt16BE(record.readUInt16BE(at) + extension.length, at);
  return grown;
}

describe('reading the ClientHello at the start of a tunnel', () => {
  it('reads the server name of a real ClientHello, and none when the client sent none', async () => {
    expect(readClientHello(await capturedClientHello('mirror.test'))).toEqual({
      state: 'hello',
      serverName: 'mirror.test',
    });
    expect(readClientHello(await capturedClientHello(''))).toEqual({ state: 'hello', serverName: null });
  });

  it('waits for a ClientHello cut at any byte, then reads the same name', async () => {
    const hello = await capturedClientHello('registry.test');
    for (let cut = 0; cut < hello.length; cut++)
      expect(readClientHello(hello.subarray(0, cut)), `cut at ${cut}`).toEqual({ state: 'incomplete' });
    expect(readClientHello(hello)).toEqual({ state: 'hello', serverName: 'registry.test' });
  });

  it('reads a ClientHello spread over several records, each cut anywhere', async () => {
    const split = reframe(await capturedClientHello('registry.test'), 100);
    expect(split.length).toBeGreaterThan(300);
    for (let cut = 0; cut < split.length; cut += 7)
      expect(readClientHello(split.subarray(0, cut)).state).toBe('incomplete');
    expect(readClientHello(split)).toEqual({ state: 'hello', serverName: 'registry.test' });
  });

  it.each([
    ['plain HTTP', Buffer.from('GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n')],
    ['SSH', Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')],
    ['an application-data record', Buffer.from([23, 3, 3, 0, 5, 1, 2, 3, 4, 5])],
    ['a record of another version', Buffer.from([22, 2, 0, 0, 5, 1, 0, 0, 1, 0])],
    ['an empty record', Buffer.from([22, 3, 1, 0, 0])],
    ['a ServerHello', Buffer.from([22, 3, 3, 0, 4, 2, 0, 0, 0])],
  ])('refuses %s', (_name, bytes) => {
    expect(readClientHello(bytes).state).toBe('invalid');
  });

  it('refuses a ClientHello that claims to be larger than any real one', () => {
    const length = MAX_CLIENT_HELLO_BYTES + 1;
    const bytes = Buffer.from([22, 3, 1, 0, 4, 1, length >> 16, (length >> 8) & 255, length & 255]);
    expect(readClientHello(bytes)).toEqual({
      state: 'invalid',
      reason: `a ClientHello of ${length} bytes is too large`,
    });
  });

  it('refuses a ClientHello whose lengths do not add up, or that names two hosts', async () => {
    const hello = await capturedClientHello('mirror.test');
    // One byte more in the record and the handshake, which the extensions' length no longer covers.
    const padded = Buffer.concat([hello, Buffer.from([0])]);
    padded.writeUInt16BE(hello.readUInt16BE(3) + 1, 3);
    padded.writeUIntBE(hello.readUIntBE(6, 3) + 1, 6, 3);
    expect(readClientHello(padded)).toMatchObject({ state: 'invalid' });
    // The name's own length byte made too long: the server_name extension is malformed.
    const at = hello.indexOf(Buffer.from('mirror.test'));
    const broken = Buffer.from(hello);
    broken.writeUInt16BE(200, at - 2);
    expect(readClientHello(broken)).toMatchObject({ state: 'invalid' });
  });

  it('refuses an encrypted ClientHello (ECH), whose outer name hides the one the front end serves', async () => {
    const hello = await capturedClientHello('mirror.test');
    // The same hello with an unknown extension added still reads: the lengths were adjusted right.
    expect(readClientHello(withExtension(hello, 0xaaaa, Buffer.from([1, 2])))).toEqual({
      state: 'hello',
      serverName: 'mirror.test',
    });
    expect(readClientHello(withExtension(hello, 0xfe0d, Buffer.alloc(40, 7)))).toEqual({
      state: 'invalid',
      reason: 'an encrypted ClientHello (ECH) hides the server name',
    });
  });

  it('compares the server name with the CONNECT host, case and a trailing dot aside', () => {
    expect(serverNameMismatch('Mirror.Test.', 'mirror.test')).toBeNull();
    expect(serverNameMismatch('mirror.test', 'MIRROR.test.')).toBeNull();
    expect(serverNameMismatch('evil.test', 'mirror.test')).toMatch(/names evil\.test, not mirror\.test/);
    expect(serverNameMismatch(null, 'mirror.test')).toMatch(/without a server name/);
  });
});
