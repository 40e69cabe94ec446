// The entries file's bytes: lines written into one buffer give exactly what joining them and encoding the whole as UTF-8 gives, for any names an agent may choose.
import t from 'tap';
import { encodeLines, parseEntries, sha256Hex } from '../../management-api/src/snapshots/entries-file.js';

/** The general way: what the entries file held before lines were written one by one. */
const joined = (lines: string[]) => Buffer.from(new TextEncoder().encode(lines.length === 0 ? '' : `${lines.join('\n')}\n`));

const fileLine = (path: string) => JSON.stringify({ type: 'file', path, mode: 0o644, mtimeNs: '1', size: 0, chunks: [], key: '' });

t.test('ASCII lines: the same bytes, in memory of their own', async (t) => {
  const lines = [
    JSON.stringify({ type: 'dir', path: '', mode: 0o755, mtimeNs: '1' }),
    ...Array.from({ length: 2000 }, (_, i) => fileLine(`pkg${i % 7}/file ${i}.ts`)),
  ];
  const out = encodeLines(lines);
  t.same(Buffer.from(out.buffer, out.byteOffset, out.byteLength), joined(lines));
  t.equal(out.byteOffset, 0, 'starts its own memory (transferred whole, never a view of the shared pool)');
  t.equal(parseEntries(Buffer.from(out), sha256Hex(out), 'test').length, lines.length, 'read back as entries');
});

t.test('a name beyond ASCII anywhere: the same bytes as the general way', async (t) => {
  const names = [
    'café.txt', // two bytes a character
    'naïve €uro', // three
    'emoji 😀 here', // a surrogate pair: four bytes for two code units
    'lone \ud800 surrogate', // replaced, as the general way replaces it
    'aaé€', // cut short in a buffer sized by characters it would write as many bytes as it has characters
    '\u0000 and \u007f', // the ends of ASCII stay one byte each
  ];
  for (const name of names) {
    for (const at of ['first', 'middle', 'last'] as const) {
      const lines = ['{"type":"dir","path":"","mode":493,"mtimeNs":"1"}', fileLine('a.ts'), fileLine('b.ts')];
      lines.splice(at === 'first' ? 0 : at === 'middle' ? 2 : 3, 0, fileLine(name));
      const out = encodeLines(lines);
      t.same(Buffer.from(out.buffer, out.byteOffset, out.byteLength), joined(lines), `${JSON.stringify(name)}, ${at} line`);
    }
  }
  // A raw line, not JSON (which escapes nothing above ASCII but control characters): the last line alone, of several characters of each width.
  const raw = ['x', 'aaé€'];
  t.same(Buffer.from(encodeLines(raw)), joined(raw), 'a last line that would fit exactly as many bytes as characters when cut');
});

t.test('no lines: no bytes', async (t) => {
  t.equal(encodeLines([]).byteLength, 0);
});
