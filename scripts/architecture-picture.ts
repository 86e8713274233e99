/**
 * Draws docs/architecture.md's picture from the code: the room-level import graph
 * (dependency-cruiser's JSON, each folder of src/ a room, each adapter its own room),
 * and the "may import" table from scripts/rooms.cjs, the list the dependency rules are
 * built from. Writes both between their markers; with `--check` it only compares and
 * fails when the committed document differs (`npm run picture:check`, part of `npm run check`).
 *
 *   npx tsx scripts/architecture-picture.ts          # rewrite docs/architecture.md
 *   npx tsx scripts/architecture-picture.ts --check  # fail if it is out of date
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const documentPath = join(root, 'docs', 'architecture.md');
const { ROOMS } = createRequire(import.meta.url)('./rooms.cjs') as { ROOMS: Record<string, string[]> };

interface Cruise {
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/** The room a module of src/ belongs to, or null for what is not ours (packages, node's modules). */
function roomOf(path: string): string | null {
  if (path === 'src/index.ts') return 'index.ts';
  const match = /^src\/(adapters\/[^/]+|[^/]+)\//.exec(path);
  return match?.[1] ?? null;
}

/** room → the rooms it imports, read from the code by dependency-cruiser. */
function importGraph(): Map<string, Set<string>> {
  const json = execFileSync(
    join(root, 'node_modules', '.bin', 'depcruise'),
    ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const graph = new Map<string, Set<string>>();
  for (const module of (JSON.parse(json) as Cruise).modules) {
    const from = roomOf(module.source);
    if (from === null || from === 'types') continue;
    const targets = graph.get(from) ?? new Set<string>();
    graph.set(from, targets);
    for (const { resolved } of module.dependencies) {
      const to = roomOf(resolved);
      if (to !== null && to !== from) targets.add(to);
    }
  }
  return graph;
}

/** Whether `to` is reachable from `from` without the direct arrow `from → skip`. */
function reachableAround(graph: Map<string, Set<string>>, from: string, skip: string): boolean {
  const seen = new Set<string>();
  const stack = [...(graph.get(from) ?? [])].filter((room) => room !== skip);
  while (stack.length > 0) {
    const room = stack.pop() as string;
    if (room === skip) return true;
    if (seen.has(room)) continue;
    seen.add(room);
    stack.push(...(graph.get(room) ?? []));
  }
  return false;
}

const nodeId = (room: string): string => room.replace(/[^a-z0-9]/gi, '_');

/** The mermaid flowchart: every room, and an arrow for each import no longer path already implies. */
function drawPicture(graph: Map<string, Set<string>>): string {
  const rooms = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((set) => [...set])])].sort();
  const lines = ['```mermaid', 'flowchart TB'];
  for (const room of rooms) lines.push(`  ${nodeId(room)}["${room === 'index.ts' ? room : `${room}/`}"]`);
  for (const from of rooms) {
    for (const to of [...(graph.get(from) ?? [])].sort()) {
      if (!reachableAround(graph, from, to)) lines.push(`  ${nodeId(from)} --> ${nodeId(to)}`);
    }
  }
  lines.push('```');
  return lines.join('\n');
}

/** The table of what each room may import, as the dependency rules enforce it. */
function drawTable(rooms: Record<string, string[]>): string {
  const name = (room: string) => `\`${room === 'index.ts' ? room : `${room}/`}\``;
  const rows = Object.entries(rooms).map(
    ([room, allowed]) =>
      `| ${name(room)} | ${allowed.length === 0 ? 'nothing of ours' : [...allowed].sort().map(name).join(', ')} |`,
  );
  return ['| Room | May import (rule `may-import:<room>`) |', '| --- | --- |', ...rows].join('\n');
}

/** Puts `content` between `<!-- name:start -->` and `<!-- name:end -->`. */
function between(document: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = document.indexOf(start);
  const to = document.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/architecture.md has no ${start} … ${end} markers`);
  return `${document.slice(0, from + start.length)}\n${content}\n${document.slice(to)}`;
}

function main(): void {
  const graph = importGraph();
  const unlisted = [...graph.keys()].filter((room) => !(room in ROOMS));
  if (unlisted.length > 0) {
    console.error(
      `Rooms missing from scripts/rooms.cjs: ${unlisted.join(', ')}. Add each with what it may import.`,
    );
    process.exit(1);
  }
  const committed = readFileSync(documentPath, 'utf8');
  const drawn = between(between(committed, 'picture', drawPicture(graph)), 'may-import', drawTable(ROOMS));
  if (!process.argv.includes('--check')) {
    writeFileSync(documentPath, drawn);
    return;
  }
  if (drawn !== committed) {
    console.error(
      'docs/architecture.md: the picture or the may-import table is out of date with the code. ' +
        'Run `npm run picture` and commit the result.',
    );
    process.exit(1);
  }
}

main();
