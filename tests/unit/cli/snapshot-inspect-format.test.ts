// How snapshot listings and diffs show names: a name with a control character or a byte that is not UTF-8 quoted as bash's $'…',
// which bash reads back as the name's exact bytes; one line an entry whatever the names hold.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { decodeName } from '../../../management-api/src/fs-names.js';
import { formatDiff, formatListing, shownName } from '../../../scripts/cli/snapshot-inspect-format.js';

/** A name's bytes: anything but '/' and NUL. */
const nameBytes = fc.uint8Array({ minLength: 1, maxLength: 24 }).map((a) => Buffer.from(a.map((b) => (b === 0 || b === 0x2f ? 0x41 : b))));

t.test('bash reads a quoted name back as its bytes; a plain one is shown as it is', (t) => {
  const samples = fc.sample(nameBytes, 400);
  const quoted = samples.filter((bytes) => shownName(decodeName(bytes)).startsWith("$'"));
  t.ok(quoted.length > 300, `most random byte names need quoting (${quoted.length} of 400)`);
  for (const bytes of samples.filter((b) => !quoted.includes(b))) t.equal(shownName(decodeName(bytes)), decodeName(bytes), 'shown as it is');
  // One bash for all the quoted: each a word, printed with a NUL after it (no name holds one).
  const printed = execFileSync('bash', ['-c', `printf '%s\\0' ${quoted.map((b) => shownName(decodeName(b))).join(' ')}`]);
  const back = printed.subarray(0, -1).toString('latin1').split('\0');
  t.same(
    back.map((b) => Buffer.from(b, 'latin1').toString('hex')),
    quoted.map((b) => b.toString('hex')),
    'every quoted name read back by bash, byte for byte',
  );
  t.equal(shownName('src/app.ts'), 'src/app.ts', 'a plain name untouched');
  t.equal(shownName('é ü'), 'é ü', 'UTF-8 and spaces untouched');
  t.equal(shownName('a\tb'), "$'a\\tb'");
  t.equal(shownName("it's\n"), "$'it\\'s\\n'");
  t.equal(shownName('caf\uDCE9.txt'), "$'caf\\xe9.txt'");
  t.end();
});

t.test('a listing and a diff: one line an entry, whatever the names hold', (t) => {
  const entry = (name: string, extra: Partial<{ type: string; target: string }> = {}) => ({
    name,
    type: 'file',
    size: 3,
    mode: '0644',
    mtime: '2026-01-01T00:00:00.000Z',
    ...extra,
  });
  const listing = formatListing({
    path: '',
    truncated: false,
    entries: [entry('plain'), entry('tab\there'), entry('new\nline', { type: 'dir' }), entry('odd\uDCFF', { type: 'symlink', target: 'to\nx' })],
  });
  t.same(
    listing.split('\n').map((l) => l.replace(/^.*Z {2}/, '')),
    ['plain', "$'tab\\there'", "$'new\\nline'/", "$'odd\\xff' -> $'to\\nx'"],
  );
  const diff = formatDiff({
    from: 'snp_a',
    to: 'snp_b',
    counts: { added: 1, deleted: 0, modified: 0 },
    addedBytes: 3,
    deletedBytes: 0,
    changes: [{ path: 'dir/new\nfile', change: 'added', type: 'file', size: 3 }],
    truncated: false,
  });
  t.equal(diff.split('\n').length, 2, 'the change and the counts');
  t.match(diff, /^A {2}\$'dir\/new\\nfile' {2}3 B$/m);
  t.end();
});
