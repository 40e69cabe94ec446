// Agent uids of a root box: one per name, kept across restarts in the box's state, one block per
// box root on the machine, a block whose root is gone taken over. Real files in a claims directory of the test's own.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AGENT_UID_BASE, AGENT_UID_BLOCK, AgentUids } from '../../../management-api/src/sandbox/agent-uids.js';
import { repoRoot } from '../../helpers/cli.js';

function fixture(t: Test) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-uids-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const claimsDir = path.join(dir, 'claims');
  const box = (name: string) => {
    const root = path.join(dir, name);
    mkdirSync(root, { recursive: true });
    return { root, stateFile: path.join(root, 'state', 'agent-uids.jsonl'), claimsDir };
  };
  return { dir, claimsDir, box };
}

t.test('each name gets a uid of its own, the same one again after a restart', async (t) => {
  const { box } = fixture(t);
  const a = box('a');
  const uids = new AgentUids(a);
  const [x, y, x2] = await Promise.all([uids.idsFor('x'), uids.idsFor('y'), uids.idsFor('x')]);
  t.equal(x.uid, AGENT_UID_BASE, 'the first slot of the first block');
  t.equal(x.gid, x.uid, 'a group of its own');
  t.not(y.uid, x.uid, 'another name, another uid');
  t.same(x2, x, 'the same name, the same uid');
  t.ok(uids.owns(y.uid), 'its own block');
  t.notOk(uids.owns(0) || uids.owns(65534) || uids.owns(AGENT_UID_BASE + AGENT_UID_BLOCK), 'nothing outside it');
  t.equal(statSync(a.stateFile).mode & 0o777, 0o600, 'the record is 0600');
  const restarted = new AgentUids(a);
  t.same(await restarted.idsFor('y'), y, 'a restarted box gives the name its uid again');
  t.equal((await restarted.idsFor('z')).uid, y.uid + 1, 'and the next name the next slot');
});

t.test('two boxes on one machine get different blocks', async (t) => {
  const { box, claimsDir } = fixture(t);
  const [p, q] = await Promise.all([new AgentUids(box('p')).idsFor('same-name'), new AgentUids(box('q')).idsFor('same-name')]);
  t.not(p.uid, q.uid);
  t.equal(Math.abs(p.uid - q.uid), AGENT_UID_BLOCK, 'a block apart');
  t.same(
    [readFileSync(path.join(claimsDir, '0'), 'utf8'), readFileSync(path.join(claimsDir, '1'), 'utf8')].sort(),
    [box('p').root, box('q').root].sort(),
    'each claim names its root',
  );
});

t.test("a block whose box's root is gone is taken over; one whose root exists is not", async (t) => {
  const { box, claimsDir, dir } = fixture(t);
  mkdirSync(claimsDir, { recursive: true });
  writeFileSync(path.join(claimsDir, '0'), path.join(dir, 'removed-long-ago'));
  const live = box('live');
  writeFileSync(path.join(claimsDir, '1'), live.root);
  const ids = await new AgentUids(box('new')).idsFor('n');
  t.equal(ids.uid, AGENT_UID_BASE, 'block 0, whose root is gone');
  t.equal(readFileSync(path.join(claimsDir, '0'), 'utf8'), box('new').root);
  t.equal((await new AgentUids(live).idsFor('n')).uid, AGENT_UID_BASE + AGENT_UID_BLOCK, 'the live box keeps block 1');
});

t.test('eight boxes starting at once in processes of their own, two stale claims among the blocks: eight different blocks', async (t) => {
  const { box, claimsDir, dir } = fixture(t);
  mkdirSync(claimsDir, { recursive: true });
  writeFileSync(path.join(claimsDir, '0'), path.join(dir, 'gone-a'));
  writeFileSync(path.join(claimsDir, '2'), path.join(dir, 'gone-b'));
  const compiled = path.join(repoRoot, 'dist/management-api/src/sandbox/agent-uids.js');
  const boxes = Array.from({ length: 8 }, (_, i) => box(`box-${i}`));
  const uids = await Promise.all(
    boxes.map(
      (b) =>
        new Promise<number>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--input-type=module',
              '-e',
              `import { AgentUids } from ${JSON.stringify(compiled)}; console.log((await new AgentUids(${JSON.stringify(b)}).idsFor('n')).uid);`,
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          let out = '';
          child.stdout.on('data', (d: Buffer) => (out += d.toString()));
          child.once('exit', (code) => (code === 0 ? resolve(Number(out.trim())) : reject(new Error(`exit ${code}`))));
        }),
    ),
  );
  t.equal(new Set(uids).size, 8, `eight blocks (${uids.map((u) => (u - AGENT_UID_BASE) / AGENT_UID_BLOCK).join(', ')})`);
  for (const [i, uid] of uids.entries())
    t.equal(readFileSync(path.join(claimsDir, String((uid - AGENT_UID_BASE) / AGENT_UID_BLOCK)), 'utf8'), boxes[i]!.root, `box-${i}'s claim names it`);
});

t.test('a box whose block another box took gets a new block and new slots', async (t) => {
  const { box, claimsDir } = fixture(t);
  const a = box('a');
  await new AgentUids(a).idsFor('x');
  writeFileSync(path.join(claimsDir, '0'), box('b').root);
  const ids = await new AgentUids(a).idsFor('x');
  t.equal(ids.uid, AGENT_UID_BASE + AGENT_UID_BLOCK);
});

t.test('an unreadable record names the file and what to do', async (t) => {
  const { box } = fixture(t);
  const a = box('a');
  mkdirSync(path.dirname(a.stateFile), { recursive: true });
  mkdirSync(a.stateFile);
  await t.rejects(new AgentUids(a).idsFor('x'), { message: new RegExp(`${a.stateFile} is unreadable .*move it away`) });
});

t.test('the record is appended to; a line cut short by a crash is left out', async (t) => {
  const { box } = fixture(t);
  const a = box('a');
  const uids = new AgentUids(a);
  const x = await uids.idsFor('x');
  await uids.idsFor('y');
  t.equal(readFileSync(a.stateFile, 'utf8').split('\n').filter(Boolean).length, 3, 'the block and one line per name');
  appendFileSync(a.stateFile, '{"name":"z","sl');
  const restarted = new AgentUids(a);
  t.same(await restarted.idsFor('x'), x, 'whole lines still count');
  t.equal((await restarted.idsFor('z')).uid, x.uid + 2, 'the cut name gets the next slot again');
  const w = await restarted.idsFor('w');
  const again = new AgentUids(a);
  t.same([await again.idsFor('z'), await again.idsFor('w')], [{ uid: x.uid + 2, gid: x.uid + 2 }, w], 'names recorded after the cut line keep their slots');
});

t.test('a record whose first line names no block is refused with what to do', async (t) => {
  const { box } = fixture(t);
  const a = box('a');
  mkdirSync(path.dirname(a.stateFile), { recursive: true });
  writeFileSync(a.stateFile, 'not json\n');
  await t.rejects(new AgentUids(a).idsFor('x'), { message: /names no block.*move it away/ });
});

t.test('spare ids for warm copies: lent to one copy at a time, adopted by a new name for good, free again at the next start', async (t) => {
  const { box } = fixture(t);
  const a = box('a');
  const uids = new AgentUids(a);
  const x = await uids.idsFor('x');
  const [s1, s2] = await Promise.all([uids.spareIds(), uids.spareIds()]);
  t.not(s1.uid, s2.uid, 'two copies, two spare uids');
  t.same([s1.uid, s2.uid].sort(), [x.uid + 1, x.uid + 2], 'the next slots of the block');
  t.equal(s1.gid, s1.uid);
  t.equal((await uids.idsFor('y')).uid, x.uid + 3, 'a name run meanwhile never gets a spare slot');

  t.notOk(await uids.adoptSpare('x', s1.uid), 'a name that ran before keeps its own ids');
  t.notOk(await uids.adoptSpare('z', x.uid), "another name's uid is no spare");
  t.notOk(await uids.adoptSpare('z', x.uid + 100), 'nor is a slot never set aside');
  t.ok(await uids.adoptSpare('fork-1', s1.uid), 'a new name adopts the ids its copy was built as');
  t.same(await uids.idsFor('fork-1'), s1, 'and runs as them');
  t.notOk(await uids.adoptSpare('fork-2', s1.uid), 'an adopted slot is no longer spare');

  uids.releaseSpare(s2.uid);
  t.same(await uids.spareIds(), s2, 'a slot given back is lent again, not a new one');
  const lines = () => readFileSync(a.stateFile, 'utf8').split('\n').filter(Boolean).length;
  const before = lines();
  uids.releaseSpare(s1.uid);
  t.not((await uids.spareIds()).uid, s1.uid, 'giving back an adopted slot lends nothing of it');
  t.equal(lines(), before + 1, 'a new spare slot is one line');

  const restarted = new AgentUids(a);
  t.same(await restarted.idsFor('fork-1'), s1, "the adopted slot is the name's after a restart");
  t.same(await restarted.idsFor('y'), { uid: x.uid + 3, gid: x.uid + 3 });
  const again = await Promise.all([restarted.spareIds(), restarted.spareIds()]);
  t.same(
    again.map((s) => s.uid).sort(),
    [s2.uid, x.uid + 4],
    'the spare slots not adopted are free at the next start (copies do not outlive a run), and nothing new was set aside',
  );
  t.equal(lines(), before + 1, 'no line for slots lent again');
  t.equal((await restarted.idsFor('w')).uid, x.uid + 5, 'a new name gets the slot after every spare one');
  t.ok(restarted.owns(s2.uid), 'spare ids are of the block');
});
