/**
 * A git config file without the credentials a CI runner persists in it:
 * actions/checkout's `http.<url>.extraheader` (the job's token), credential
 * helpers, `url.<base>.insteadOf` rewrites (which carry a token in the base
 * more often than not), includes of files outside the repository (where newer
 * checkouts keep the header), and userinfo in any URL. Line-based, so every
 * other line (comments, spacing, order) stays as the runner wrote it.
 */

const SECTION = /^(\s*)\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/;
const KEY = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/;

/** http(s) URLs lose any userinfo (a token passed as the user name); others lose a `user:password`. */
export function withoutUserinfo(text: string): string {
  return text
    .replace(/\b(https?:\/\/)[^\s/@"'?#]+@/gi, '$1')
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:"'?#]+:[^\s/@"'?#]*@/gi, '$1');
}

interface Section {
  name: string;
  subsection: string | null;
}

/** Whether the key of `section` must not reach a container. */
function credentialKey(section: Section, key: string, value: string): boolean {
  const name = section.name.toLowerCase();
  if (name === 'credential') return true;
  if (name === 'http' && key === 'extraheader') return true;
  if (name === 'url' && (key === 'insteadof' || key === 'pushinsteadof')) return true;
  // A path of the host (absolute or in a home folder) is the runner's file, never the repository's.
  return (name === 'include' || name === 'includeif') && key === 'path' && /^\s*"?[/~]/.test(value);
}

function sectionName(section: Section): string {
  return section.subsection === null ? section.name : `${section.name}.${section.subsection}`;
}

export function stripGitConfig(text: string): { text: string; removed: string[] } {
  const removed = new Set<string>();
  const kept: string[] = [];
  let section: Section = { name: '', subsection: null };
  let dropping = false;
  for (const line of text.split('\n')) {
    const continued = dropping;
    dropping = false;
    if (continued) {
      dropping = /(^|[^\\])(\\\\)*\\$/.test(line);
      continue;
    }
    const header = SECTION.exec(line);
    let body = line;
    if (header) {
      const subsection = header[3] === undefined ? null : withoutUserinfo(header[3]);
      if (subsection !== (header[3] ?? null)) removed.add(`the user name and password in ${header[2]}`);
      section = { name: header[2] ?? '', subsection };
      const rebuilt = `${header[1]}[${section.name}${subsection === null ? '' : ` "${subsection}"`}]`;
      body = header[4] ?? '';
      if (!KEY.test(body) || body.trim() === '') {
        kept.push(`${rebuilt}${body}`);
        continue;
      }
      kept.push(rebuilt);
    }
    const entry = KEY.exec(body);
    if (entry && credentialKey(section, (entry[1] ?? '').toLowerCase(), entry[2] ?? '')) {
      removed.add(`${sectionName(section)}.${entry[1]}`);
      dropping = /(^|[^\\])(\\\\)*\\$/.test(body);
      continue;
    }
    const clean = withoutUserinfo(body);
    if (clean !== body) removed.add(`the user name and password in ${sectionName(section)}`);
    kept.push(clean);
  }
  return { text: kept.join('\n'), removed: [...removed] };
}
