// File names that are not UTF-8 carried in strings: every byte string a name can be comes back from its string exactly, and a valid name is its own string.
import t from 'tap';
import fc from 'fast-check';
import { decodeName, encodeName, fsPath, hasEscapedBytes } from '../../management-api/src/fs-names.js';

/** A name's bytes: anything but '/' and NUL, as the kernel allows. */
const nameBytes = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((a) => Buffer.from(a.map((b) => (b === 0 || b === 0x2f ? 0x41 : b))));

t.test('every byte string comes back from its string exactly', (t) => {
  fc.assert(
    fc.property(nameBytes, (bytes) => encodeName(decodeName(bytes)).equals(bytes)),
    { numRuns: 5000 },
  );
  t.end();
});

t.test('a valid UTF-8 name is its own string, escapes nothing, and is passed to the filesystem as a string', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), (s) => {
      const bytes = Buffer.from(s, 'utf8');
      return decodeName(bytes) === s && !hasEscapedBytes(s) && fsPath(s) === s;
    }),
    { numRuns: 2000 },
  );
  t.end();
});

t.test('what is escaped, case by case', (t) => {
  const cases: Array<[string, number[], string]> = [
    ['a lone 0xff', [0x61, 0xff, 0x62], 'a\uDCFFb'],
    ['a sequence cut short', [0x64, 0xc3], 'd\uDCC3'],
    ['a surrogate encoded (CESU-8)', [0xed, 0xb2, 0x80], '\uDCED\uDCB2\uDC80'],
    ['an overlong "/"', [0xc0, 0xaf], '\uDCC0\uDCAF'],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80], '\uDCF4\uDC90\uDC80\uDC80'],
    ['a real U+FFFD beside an invalid byte', [0xef, 0xbf, 0xbd, 0xfe], '\uFFFD\uDCFE'],
    ['a four-byte character beside one', [0xf0, 0x9f, 0x98, 0x80, 0x80], '\u{1F600}\uDC80'],
  ];
  for (const [label, bytes, want] of cases) {
    const name = decodeName(Buffer.from(bytes));
    t.equal(name, want, `${label}: escaped byte by byte, valid parts kept`);
    t.ok(hasEscapedBytes(name), `${label}: known to hold bytes`);
    t.same([...encodeName(name)], bytes, `${label}: the same bytes back`);
    t.ok(Buffer.isBuffer(fsPath(`/w/${name}`)), `${label}: a path holding it goes to the filesystem as bytes`);
  }
  t.equal(JSON.parse(JSON.stringify('a\uDCFFb')), 'a\uDCFFb', 'JSON keeps an escaped name as it is');
  t.notOk(hasEscapedBytes('\u{1F600}'), 'a surrogate pair is not an escape');
  t.end();
});
