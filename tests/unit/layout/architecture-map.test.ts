// docs/developer/architecture.md opens with a map of management-api/src/ that lists every folder, and only folders that exist.
import t from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const src = path.join(repo, 'management-api/src');
const doc = readFileSync(path.join(repo, 'docs/developer/architecture.md'), 'utf8');

/** Every folder under `dir`, as `a/` and `a/b/` relative to it. */
function folders(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const rel = `${prefix}${entry.name}/`;
    out.push(rel, ...folders(path.join(dir, entry.name), rel));
  }
  return out.sort();
}

/** The folders the map section lists: its lines `- \`folder/\` — what lives there`. */
function mapped(markdown: string): { folders: string[]; blank: string[] } {
  const section = /^## Map of `management-api\/src\/`\n([\s\S]*?)(?=^## )/m.exec(markdown);
  const lines = section?.[1]?.split('\n').filter((l) => l.startsWith('- ')) ?? [];
  const entries = lines.map((l) => /^- `([a-z0-9/-]+\/)` — (.*)$/.exec(l));
  return {
    folders: entries.map((m, i) => m?.[1] ?? `unreadable line: ${lines[i]}`).sort(),
    blank: entries.filter((m) => m && m[2]!.trim().length < 10).map((m) => m![1]!),
  };
}

t.test('the map is the first section of the architecture document', async (t) => {
  t.match(doc, /^# [^\n]+\n\n## Map of `management-api\/src\/`\n/);
});

t.test('every folder under management-api/src is in the map, and every mapped folder exists', async (t) => {
  const map = mapped(doc);
  t.same(map.folders, folders(src), 'add a line "- `folder/` — what lives there" for a new folder; remove the line of a removed one');
  t.same(map.blank, [], 'each line says what lives in its folder');
});

t.test('the check reads a map and sees a missing or stale folder', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-map-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, 'a'));
  mkdirSync(path.join(dir, 'b', 'c'), { recursive: true });
  t.same(folders(dir), ['a/', 'b/', 'b/c/'], 'nested folders count');
  const sample = '# T\n\n## Map of `management-api/src/`\n\n- `a/` — the first folder here\n- `gone/` — a folder that was removed\n- `b/` — x\n\n## Next\n';
  t.same(mapped(sample), { folders: ['a/', 'b/', 'gone/'], blank: ['b/'] });
  t.notSame(mapped(sample).folders, folders(dir), 'b/c/ missing and gone/ stale make a difference');
});
