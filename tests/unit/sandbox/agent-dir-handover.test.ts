// As root: a directory left by an agent of another name is handed over with what that agent made
// in it, and nothing else — not the operator's files, not what a planted link points to.
import t from 'tap';
import { chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { giveDirectory } from '../../../management-api/src/sandbox/agent-ids.js';
import { AGENT_UID_BASE } from '../../../management-api/src/sandbox/agent-uids.js';

const asRoot = process.getuid?.() === 0;

t.test(
  "another name's directory is handed over; links are not followed; the operator's files stay",
  { skip: asRoot ? false : 'needs root (CI and the test machine run as root)' },
  async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-handover-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const before = { uid: AGENT_UID_BASE + 7, gid: AGENT_UID_BASE + 7 };
    const after = { uid: AGENT_UID_BASE + 8, gid: AGENT_UID_BASE + 8 };
    const outside = path.join(dir, 'outside.txt');
    writeFileSync(outside, "not the agent's");
    chownSync(outside, before.uid, before.gid); // even owned by the old uid, it is outside the tree
    const work = path.join(dir, 'work');
    mkdirSync(path.join(work, 'deep'), { recursive: true });
    writeFileSync(path.join(work, 'deep', 'made.txt'), 'x');
    writeFileSync(path.join(work, 'operator.txt'), 'put there by the operator');
    symlinkSync(outside, path.join(work, 'planted'));
    for (const p of [work, path.join(work, 'deep'), path.join(work, 'deep', 'made.txt')]) chownSync(p, before.uid, before.gid);
    lchownSync(path.join(work, 'planted'), before.uid, before.gid);

    await giveDirectory(work, after, { private: true, handOverFrom: (uid) => uid === before.uid });
    t.equal(statSync(work).uid, after.uid, 'the directory');
    t.equal(statSync(work).mode & 0o077, 0, 'closed to others');
    t.equal(statSync(path.join(work, 'deep')).uid, after.uid, 'a subdirectory the other agent made');
    t.equal(statSync(path.join(work, 'deep', 'made.txt')).gid, after.gid, 'a file it made');
    t.equal(lstatSync(path.join(work, 'planted')).uid, after.uid, 'the link itself');
    t.equal(statSync(outside).uid, before.uid, 'not what the link points to');
    t.equal(statSync(path.join(work, 'operator.txt')).uid, 0, "the operator's file stays the operator's");
  },
);

t.test('a directory of the operator is given, not its contents', { skip: asRoot ? false : 'needs root' }, async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-handover-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'repo.txt'), 'x');
  chmodSync(dir, 0o755);
  const ids = { uid: AGENT_UID_BASE + 9, gid: AGENT_UID_BASE + 9 };
  await giveDirectory(dir, ids, { handOverFrom: (uid) => uid >= AGENT_UID_BASE });
  t.equal(statSync(dir).uid, ids.uid);
  t.equal(statSync(path.join(dir, 'repo.txt')).uid, 0);
  t.not(statSync(dir).mode & 0o077, 0, 'not made private unless asked');
});
