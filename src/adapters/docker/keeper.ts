import type Docker from 'dockerode';
import { SandboxError } from '../../errors/index.js';
import { singleFileArchive } from './single-file-archive.js';

/**
 * Where a prepared image keeps the loop container's keeper: the process that
 * holds the container open between commands, under docker-init (the engine's
 * own, bind-mounted read-only from the host) as PID 1.
 */
export const KEEPER_PATH = '/opt/selfdebug/keeper';

/**
 * The keeper, a static executable of three instructions the App writes itself:
 * wait for a signal, forever (x86-64: `pause`; arm64: `ppoll` with nothing to
 * poll). Being static it runs no loader and reads no file of the image, so
 * nothing setup changed (a replaced `sleep`, a libc, /etc/ld.so.preload) can
 * take its place; docker-init forwards SIGTERM to it, and it dies of it.
 */
const CODE: Record<string, { machine: number; code: number[] }> = {
  // loop: mov eax, 34 (pause); syscall; jmp loop
  amd64: { machine: 0x3e, code: [0xb8, 0x22, 0, 0, 0, 0x0f, 0x05, 0xeb, 0xf7] },
  // loop: mov x8, #73 (ppoll); mov x0..x3, #0; svc #0; b loop
  arm64: {
    machine: 0xb7,
    code: words32([0xd2800928, 0xd2800000, 0xd2800001, 0xd2800002, 0xd2800003, 0xd4000001, 0x17fffffa]),
  },
};

const BASE = 0x400000;
const HEADERS = 64 + 56;

/** An ELF64 executable with one loadable segment holding the code right after the headers. */
function keeperExecutable(architecture: string): Buffer {
  const target = CODE[architecture];
  if (!target)
    throw new SandboxError(`No keeper for the ${architecture} architecture; use an amd64 or arm64 engine.`);
  const size = HEADERS + target.code.length;
  const elf = Buffer.alloc(size);
  elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0); // magic, 64-bit, little-endian, version 1
  elf.writeUInt16LE(2, 16); // an executable
  elf.writeUInt16LE(target.machine, 18);
  elf.writeUInt32LE(1, 20);
  elf.writeBigUInt64LE(BigInt(BASE + HEADERS), 24); // entry
  elf.writeBigUInt64LE(64n, 32); // program headers right after this one
  elf.writeUInt16LE(64, 52);
  elf.writeUInt16LE(56, 54);
  elf.writeUInt16LE(1, 56);
  elf.writeUInt32LE(1, 64); // PT_LOAD
  elf.writeUInt32LE(5, 68); // read and execute
  elf.writeBigUInt64LE(BigInt(BASE), 80);
  elf.writeBigUInt64LE(BigInt(BASE), 88);
  elf.writeBigUInt64LE(BigInt(size), 96);
  elf.writeBigUInt64LE(BigInt(size), 104);
  elf.writeBigUInt64LE(0x1000n, 112);
  elf.set(target.code, HEADERS);
  return elf;
}

/**
 * Writes the keeper into a stopped setup container, after every process of
 * setup is gone, so what the prepared image holds at KEEPER_PATH is the App's.
 * An existing file or link there is replaced, not written through.
 */
export async function installKeeper(
  docker: Docker,
  container: Docker.Container,
  image: string,
): Promise<void> {
  const info = await docker.getImage(image).inspect();
  const archive = singleFileArchive(KEEPER_PATH.slice(1), keeperExecutable(info.Architecture), 0o755, {
    uid: 0,
    gid: 0,
  });
  await container.putArchive(archive, { path: '/' });
}

function words32(values: number[]): number[] {
  const bytes = Buffer.alloc(values.length * 4);
  for (const [index, value] of values.entries()) bytes.writeUInt32LE(value, index * 4);
  return [...bytes];
}
