// Role: the failed assertions of a tap run, in a few lines each. `npm test` prints this digest
// after the coverage table, so the end of a CI log (often all that is kept of it) names the
// file, the subtest path and the assertion that failed, with the start of tap's diagnostics.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const subtestLine = /^( *)# Subtest: (.*)$/;
const notOkLine = /^( *)not ok \d+ - (.*?)(?: # time=[\d.]+m?s)?$/;
const DIAG_LINES = 12;
const MAX_LISTED = 15;
// Keys that say where or how, not what failed: the source excerpt, the stack, and how tap
// started a test file's process.
const NOISE = new Set(['source', 'stack', 'stdio', 'cwd', 'externalID', 'command', 'args', 'env']);

/**
 * Reads TAP text (tap's output when it writes to a pipe) and returns one entry per failed
 * assertion: the subtests above it, its name, and the first lines of its YAML diagnostics.
 * A subtest's own "not ok" (it failed because something inside it did) is left out when an
 * assertion inside it is already listed, so each failure is named once.
 * @param {string} tap
 * @returns {{ path: string[], name: string, diag: string[] }[]}
 */
export const tapFailures = (tap) => {
  const lines = tap.split('\n');
  /** @type {string[]} subtest names by depth (4 spaces a level) */
  const open = [];
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const subtest = subtestLine.exec(lines[i]);
    if (subtest) {
      const depth = subtest[1].length / 4;
      open.length = depth;
      open[depth] = subtest[2];
      continue;
    }
    const failed = notOkLine.exec(lines[i]);
    if (!failed) continue;
    const depth = failed[1].length / 4;
    const path = open.slice(0, depth);
    const name = failed[2];
    // A subtest's summary comes after what failed inside it: skip it when a listed failure lies below it.
    const whole = [...path, name];
    if (failures.some((f) => f.path.length >= whole.length && startsWith(f.path, whole))) continue;
    failures.push({ path, name, diag: diagnostics(lines, i + 1, failed[1].length + 2) });
  }
  return failures;
};

const startsWith = (list, prefix) => prefix.every((part, k) => list[k] === part);

/**
 * The YAML block after a "not ok" line (between "---" and "..."), cut to what names the failure:
 * the location as "at: file:line", then its other keys (diff, found, wanted, signal, …) but the
 * NOISE ones, at most DIAG_LINES lines.
 */
const diagnostics = (lines, from, indent) => {
  const pad = ' '.repeat(indent);
  if (lines[from] !== `${pad}---`) return [];
  const block = [];
  for (let i = from + 1; i < lines.length && lines[i] !== `${pad}...`; i++) block.push(lines[i].slice(indent));
  const out = [];
  const at = {};
  let key = '';
  for (const line of block) {
    const top = /^([A-Za-z]\w*):/.exec(line);
    if (top) key = top[1];
    if (key === 'at') {
      const field = /^ {2}(fileName|lineNumber): (.*)$/.exec(line);
      if (field) at[field[1]] = field[2];
    } else if (!NOISE.has(key)) {
      out.push(line);
    }
  }
  if (at.fileName) out.unshift(`at: ${at.fileName}:${at.lineNumber ?? '?'}`);
  return out.length > DIAG_LINES ? [...out.slice(0, DIAG_LINES), '…'] : out;
};

/** The digest as printed: nothing when no assertion failed, at most MAX_LISTED failures. */
export const formatFailures = (failures) => {
  if (failures.length === 0) return '';
  const listed = failures.slice(0, MAX_LISTED);
  const more = failures.length - listed.length;
  return [
    `failed assertions (${failures.length}):`,
    ...listed.flatMap((f) => [`✖ ${[...f.path, f.name].join(' › ')}`, ...f.diag.map((d) => `    ${d}`)]),
    ...(more > 0 ? [`… and ${more} more (the log above has them all)`] : []),
    '',
  ].join('\n');
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file || file === '--help') {
    process.stdout.write('usage: node scripts/lib/tap-failures.mjs TAP_LOG\nPrints the failed assertions of a tap run.\n');
    process.exit(file ? 0 : 2);
  }
  process.stdout.write(formatFailures(tapFailures(readFileSync(file, 'utf8'))));
}
