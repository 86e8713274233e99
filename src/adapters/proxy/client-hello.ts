/**
 * Reads the server name (SNI) out of the first bytes a client sends in a
 * tunnel: TLS records (RFC 8446 §5.1) carrying a handshake message that
 * must be a ClientHello (§4.1.2), whose server_name extension (RFC 6066 §3)
 * names the host. The message may span several records and arrive in
 * several TCP segments: until it is whole the answer is `incomplete`.
 */
export type ClientHelloVerdict =
  | { state: 'incomplete' }
  | { state: 'hello'; serverName: string | null }
  | { state: 'invalid'; reason: string };

/** Past this a "ClientHello" is not one a real client sends (a large post-quantum one is under 4 KB). */
export const MAX_CLIENT_HELLO_BYTES = 64 * 1024;

const RECORD_HEADER = 5;
const HANDSHAKE = 22;
const CLIENT_HELLO = 1;
const SERVER_NAME = 0;
/** encrypted_client_hello: the real name travels encrypted, the outer one names only the front end. */
const ENCRYPTED_CLIENT_HELLO = 0xfe0d;
const HOST_NAME = 0;
/** The largest plaintext fragment a record may carry (2^14), as TLS allows. */
const MAX_FRAGMENT = 16_384;

const incomplete: ClientHelloVerdict = { state: 'incomplete' };
const invalid = (reason: string): ClientHelloVerdict => ({ state: 'invalid', reason });

export function readClientHello(bytes: Buffer): ClientHelloVerdict {
  const handshake = handshakeBytes(bytes);
  if (!Buffer.isBuffer(handshake)) return handshake;
  if (handshake.length < 4) return incomplete;
  if (handshake[0] !== CLIENT_HELLO) return invalid('the first handshake message is not a ClientHello');
  const length = handshake.readUIntBE(1, 3);
  if (length > MAX_CLIENT_HELLO_BYTES) return invalid(`a ClientHello of ${length} bytes is too large`);
  if (handshake.length < 4 + length) return incomplete;
  return helloBody(handshake.subarray(4, 4 + length));
}

/** The handshake bytes carried by the leading records, or why the bytes are not TLS handshake records. */
function handshakeBytes(bytes: Buffer): Buffer | ClientHelloVerdict {
  const fragments: Buffer[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes[offset] !== HANDSHAKE) return invalid('the tunnel did not start with a TLS handshake record');
    if (bytes.length < offset + RECORD_HEADER) break;
    if (bytes[offset + 1] !== 3) return invalid('the tunnel did not start with a TLS record version');
    const length = bytes.readUInt16BE(offset + 3);
    if (length === 0 || length > MAX_FRAGMENT) return invalid(`a TLS record of ${length} bytes`);
    const end = offset + RECORD_HEADER + length;
    if (end > bytes.length) break;
    fragments.push(bytes.subarray(offset + RECORD_HEADER, end));
    offset = end;
  }
  return fragments.length === 0 ? incomplete : Buffer.concat(fragments);
}

/** A reader over one ClientHello body that fails (returns null) instead of reading past its end. */
class Cursor {
  private offset = 0;
  constructor(private readonly bytes: Buffer) {}
  skip(count: number): boolean {
    this.offset += count;
    return this.offset <= this.bytes.length;
  }
  /** The next big-endian integer of `width` bytes. */
  uint(width: 1 | 2): number | null {
    if (this.offset + width > this.bytes.length) return null;
    const value = this.bytes.readUIntBE(this.offset, width);
    this.offset += width;
    return value;
  }
  /** The next vector with a `width`-byte length prefix. */
  vector(width: 1 | 2): Buffer | null {
    const length = this.uint(width);
    if (length === null || this.offset + length > this.bytes.length) return null;
    this.offset += length;
    return this.bytes.subarray(this.offset - length, this.offset);
  }
  get done(): boolean {
    return this.offset === this.bytes.length;
  }
}

function helloBody(body: Buffer): ClientHelloVerdict {
  const cursor = new Cursor(body);
  // legacy_version and random; then session id, cipher suites and compression methods.
  if (!cursor.skip(2 + 32)) return invalid('a truncated ClientHello');
  if (!cursor.vector(1) || !cursor.vector(2) || !cursor.vector(1)) return invalid('a truncated ClientHello');
  if (cursor.done) return { state: 'hello', serverName: null };
  const extensions = cursor.vector(2);
  if (!extensions || !cursor.done) return invalid('a ClientHello whose extensions do not add up');
  return serverNameOf(extensions);
}

/** The host_name of the server_name extension; several extensions or names would let two readers disagree. */
function serverNameOf(extensions: Buffer): ClientHelloVerdict {
  const cursor = new Cursor(extensions);
  let serverName: string | null = null;
  while (!cursor.done) {
    const type = cursor.uint(2);
    const data = cursor.vector(2);
    if (type === null || !data) return invalid('a truncated extension');
    if (type === ENCRYPTED_CLIENT_HELLO)
      return invalid('an encrypted ClientHello (ECH) hides the server name');
    if (type !== SERVER_NAME) continue;
    if (serverName !== null) return invalid('two server_name extensions');
    const name = hostNameOf(data);
    if (typeof name !== 'string') return name;
    serverName = name;
  }
  return { state: 'hello', serverName };
}

function hostNameOf(data: Buffer): string | ClientHelloVerdict {
  const outer = new Cursor(data);
  const list = outer.vector(2);
  if (!list || !outer.done) return invalid('a malformed server_name extension');
  const names = new Cursor(list);
  let found: string | null = null;
  while (!names.done) {
    const type = names.uint(1);
    const name = names.vector(2);
    if (type === null || !name) return invalid('a malformed server_name extension');
    if (type !== HOST_NAME) continue;
    if (found !== null) return invalid('two host names in server_name');
    found = name.toString('latin1');
  }
  if (found === null || !/^[\x21-\x7e]+$/.test(found))
    return invalid('a server_name without a usable host name');
  return found;
}
