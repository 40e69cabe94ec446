// The pack write-back that runs beside a capture: it waits for the pack to exist, holds one descriptor of it while it flushes,
// and once stopped holds none (the service renames or removes the pack right after).
import t from 'tap';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeBackWhileWritten } from '../../management-api/src/snapshots/pack-writeback.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-pack-writeback-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** How many of this process's descriptors are open on `file`. */
function descriptorsOn(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // Closed while listed (the directory's own descriptor).
    }
  }
  return n;
}

t.test('waits for the pack, holds one descriptor of it while it is written, none once stopped', async (t) => {
  const pack = path.join(work, 'pck_test.pack');
  const writeBack = writeBackWhileWritten(pack);
  t.equal(descriptorsOn(pack), 0, 'nothing open before the pack exists');
  writeFileSync(pack, Buffer.alloc(4 << 20, 1));
  while (descriptorsOn(pack) === 0) await sleep(10);
  t.equal(descriptorsOn(pack), 1, 'one descriptor once it exists');
  await writeBack.stop();
  t.equal(descriptorsOn(pack), 0, 'none once stopped');
});

t.test('stopped before the pack ever existed (a capture that stored nothing new): ends, holding nothing', async (t) => {
  const pack = path.join(work, 'pck_never.pack');
  const writeBack = writeBackWhileWritten(pack);
  await writeBack.stop();
  writeFileSync(pack, 'late');
  t.equal(descriptorsOn(pack), 0, 'nothing opened after the stop');
});
