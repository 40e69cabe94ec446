// The log's fast appender stores exactly what the reference layout stores: the same leaf and node hashes, in the same order, for text and for bytes, from an empty tree and from one already grown.
import t from 'tap';
import { leafHash } from '../../../management-api/src/tlog/rfc6962.js';
import { hashesToStore } from '../../../management-api/src/tlog/stored-hashes.js';
import { TreeAppender } from '../../../management-api/src/tlog/tree-appender.js';

/** Lines as the log writes them, with characters of one to four UTF-8 bytes and a NUL. */
const lines = Array.from({ length: 3_000 }, (_, i) =>
  JSON.stringify({
    seq: i + 1,
    kind: 'agent.output',
    source: `agent-${i % 7}`,
    data: { text: ['plain', 'café', '日本語', '🦀 crab', 'nul\u0000inside'][i % 5]!.repeat(1 + (i % 3)) },
  }),
);

/** The reference: every entry through hashesToStore, one Buffer per hash. */
function reference(entries: readonly string[], size = 0, frontier: Buffer[] = []): { bytes: Buffer; frontier: Buffer[] } {
  const out: Buffer[] = [];
  entries.forEach((text, i) => {
    out.push(...hashesToStore(size + i, leafHash(Buffer.from(text, 'utf8')), frontier));
  });
  return { bytes: Buffer.concat(out), frontier };
}

t.test('text entries, in batches of every size, from an empty tree', async (t) => {
  const appender = new TreeAppender(0, []);
  const parts: Buffer[] = [];
  for (let at = 0, batch = 1; at < lines.length; at += batch, batch = (batch * 7) % 61 || 1) parts.push(appender.appendText(lines.slice(at, at + batch)));
  t.ok(Buffer.concat(parts).equals(reference(lines).bytes), 'the same stored hashes');
  t.equal(appender.size, lines.length);
});

t.test('bytes entries, continuing a tree grown by the reference', async (t) => {
  const grown = reference(lines.slice(0, 1_001));
  const appender = new TreeAppender(1_001, grown.frontier);
  const rest = lines.slice(1_001);
  const stored = appender.appendBytes(rest.map((s) => Buffer.from(s, 'utf8')));
  t.ok(stored.equals(reference(rest, 1_001, grown.frontier).bytes), 'the same hashes after the first 1,001');
  t.ok(appender.appendText([]).equals(Buffer.alloc(0)), 'nothing for nothing');
});
