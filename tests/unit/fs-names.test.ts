// File names that are not UTF-8 carried in strings: every byte string a name can be comes back from its string exactly, a valid name is its own string, and a name goes through a files URL and back as its bytes.
import t from 'tap';
import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { encodePathSegment } from '../../management-api/src/client/encoding.js';
import { decodeName, encodeName, fsPath, hasEscapedBytes } from '../../management-api/src/fs-names.js';
import { filePathOf, routableUrl } from '../../management-api/src/http/file-url-path.js';

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

t.test("a listed name goes back in a URL as its bytes, and the box's files routes take those bytes back", (t) => {
  const routed = (name: string) => {
    const req = { url: `/v1/agents/a1/files/d/${encodePathSegment(name)}?list` } as IncomingMessage;
    const url = routableUrl(req);
    return { path: filePathOf({ raw: req, params: { '*': decodeURIComponent(url.slice(url.indexOf('/files/') + 7, url.indexOf('?'))) } }), url };
  };
  fc.assert(
    fc.property(nameBytes, (bytes) => {
      const name = decodeName(bytes);
      const segment = encodePathSegment(name);
      // Only escapes and unreserved characters: nothing a URL parser could read as syntax (`/`, `?`, `#`, `.` segments aside).
      if (!/^(?:%[0-9A-F]{2}|[A-Za-z0-9\-_.!~*'()])+$/.test(segment)) return false;
      const { path, url } = routed(name);
      return path === `d/${name}` && encodeName(path).equals(Buffer.concat([Buffer.from('d/'), bytes])) && url.endsWith('?list');
    }),
    { numRuns: 3000 },
  );
  t.equal(encodePathSegment('caf\uDCE9.txt'), 'caf%E9.txt');
  t.equal(encodePathSegment('é/x'), '%C3%A9%2Fx', 'a valid name as encodeURIComponent encodes it');
  t.equal(routableUrl({ url: '/v1/agents/a1/files/ok%C3%A9' } as IncomingMessage), '/v1/agents/a1/files/ok%C3%A9', 'a URL that decodes is left alone');
  t.equal(routableUrl({ url: '/v1/beads/%FF' } as IncomingMessage), '/v1/beads/%FF', 'outside the files routes too (the router refuses it)');
  t.equal(routableUrl({ url: '/v1/agents/a1/files/%FF%G0' } as IncomingMessage), '/v1/agents/a1/files/%FF%G0', 'a broken escape is left to the router');
  t.end();
});
