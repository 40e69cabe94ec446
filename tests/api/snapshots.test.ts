// Workspace snapshots on a real box with real sandboxed agents: dedup across snapshots, restore in place, forks, deletes that sweep, agent-token scope and bad input.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RACY_MS } from '../../management-api/src/snapshots/capture.js';
import { MAX_TREE_DEPTH } from '../../management-api/src/workspace-files/tree-depth.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

type Agent = { id: string; pid: number; cwd: string; name: string; limits?: Record<string, number> };
type Snapshot = { id: string; stats: Record<string, number>; sharing?: Record<string, number>; changedPaths: string[] };

const spawn = async (body: Record<string, unknown>): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body });
  if (res.status !== 201) throw new Error(`spawn failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};
const sleeper = (name: string) => spawn({ name, command: '/bin/sh', args: ['-c', 'exec sleep 600'] });
const snap = async (id: string, label?: string): Promise<Snapshot> => {
  const res = await box.api(`/v1/agents/${id}/snapshots`, { body: label ? { label } : {} });
  if (res.status !== 201) throw new Error(`snapshot failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json['snapshot'] as Snapshot;
};
const stop = (id: string) => box.api(`/v1/agents/${id}?graceMs=0`, { method: 'DELETE' });
const dirOf = (agent: Agent) => path.join(box.paths.workspaceDir, agent.cwd);
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';
/** Chunks in the store: the entries of every pack index. */
const objects = async (): Promise<number> => {
  const root = path.join(box.paths.stateDir, 'snapshots/packs');
  let n = 0;
  for (const name of await readdir(root)) if (name.endsWith('.idx')) n += Object.keys(JSON.parse(await readFile(path.join(root, name), 'utf8'))).length;
  return n;
};
/** Content, permission bits and mtime of every entry under `dir`, links as their targets. */
async function treeOf(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const p = path.join(dir, name);
    const st = await lstat(p);
    const rel = prefix + name;
    if (st.isSymbolicLink()) out[rel] = `link:${await readlink(p)}`;
    else if (st.isDirectory()) {
      out[rel] = `dir:${(st.mode & 0o7777).toString(8)}`;
      Object.assign(out, await treeOf(p, `${rel}/`));
    } else if (st.isFile()) out[rel] = `file:${(st.mode & 0o7777).toString(8)}:${Math.round(st.mtimeMs)}:${(await readFile(p)).toString('base64')}`;
    else out[rel] = 'other';
  }
  return out;
}

/** A source-like little tree: small files, one of 3 MiB (three chunks), a link, a setuid file, a FIFO. */
async function fill(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'src/lib'), { recursive: true });
  for (let i = 0; i < 40; i++) await writeFile(path.join(dir, `src/lib/m${i}.ts`), `export const v${i} = ${i};\n`.repeat(50));
  await writeFile(path.join(dir, 'README.md'), '# readme\n');
  await writeFile(path.join(dir, 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  await writeFile(path.join(dir, 'tool.sh'), '#!/bin/sh\necho tool\n');
  await chmod(path.join(dir, 'tool.sh'), 0o4755);
  await writeFile(path.join(dir, 'private.key'), 'secret-ish\n', { mode: 0o600 });
  await chmod(path.join(dir, 'private.key'), 0o600);
  await utimes(path.join(dir, 'README.md'), 1_600_000_000, 1_600_000_000.123);
  await symlink('src/lib/m1.ts', path.join(dir, 'link-inside'));
  await symlink('/etc/passwd', path.join(dir, 'link-out'));
  execFileSync('mkfifo', [path.join(dir, 'pipe')]);
}

let alpha: Agent;
let first: Snapshot;
let before: Record<string, string>;
t.before(async () => {
  alpha = await sleeper('alpha');
  await fill(dirOf(alpha));
  before = await treeOf(dirOf(alpha));
  // Older than the racy margin: a file changed just before a snapshot reads it is read again by the next one, which would
  // make the reuse counted below depend on how fast this machine is.
  await sleep(RACY_MS + 20);
});

t.test('a snapshot of a running agent, then a second after a change: only the change is added', async (t) => {
  first = await snap(alpha.id, 'first');
  t.match(first.stats, { files: 44, symlinks: 2, skipped: 1, dirs: 2 }, 'files, links and directories captured; the FIFO left out');
  t.equal(first.stats['storedBytes'], first.stats['bytes']! - 2 * 1024 * 1024, "big.bin's three identical 1 MiB chunks are stored once");
  t.equal(first.stats['addedBytes'], first.stats['storedBytes'], 'the first snapshot added all it holds');
  await writeFile(path.join(dirOf(alpha), 'src/lib/m3.ts'), 'export const changed = true;\n');
  const second = await snap(alpha.id, 'second');
  t.equal(second.stats['reusedFiles'], 43, 'every unchanged file was taken from the first snapshot unread');
  t.equal(second.stats['addedBytes'], Buffer.byteLength('export const changed = true;\n'), 'only the changed file was added');
  const got = await box.api(`/v1/snapshots/${second.id}`);
  t.equal(got.status, 200);
  const sharing = (got.json['snapshot'] as Snapshot).sharing!;
  t.equal(sharing['exclusiveBytes'], Buffer.byteLength('export const changed = true;\n'), 'what only the second holds');
  t.equal(sharing['sharedBytes'], sharing['storedBytes']! - sharing['exclusiveBytes']!, 'the rest it shares with the first');
  // A second agent with the same content: its snapshot adds nothing (dedup across agents).
  const twin = await sleeper('twin');
  await fill(dirOf(twin));
  const twinSnap = await snap(twin.id);
  t.equal(twinSnap.stats['addedBytes'], 0, 'identical files of another agent are stored once');
  const list = await box.api('/v1/snapshots');
  t.same(
    (list.json['snapshots'] as Snapshot[]).map((s) => s.id),
    [first.id, second.id, twinSnap.id],
    'listed oldest first',
  );
  const mine = await box.api(`/v1/snapshots?agent=${alpha.id}`);
  t.equal((mine.json['snapshots'] as Snapshot[]).length, 2, 'filtered by agent');
  await stop(twin.id);
});

t.test('restore in place: exact content, modes and mtimes; setuid stripped; links kept; no FIFO; 409 while running', async (t) => {
  const refused = await box.api(`/v1/agents/${alpha.id}/restore`, { body: { snapshot: first.id } });
  t.equal(refused.status, 409, 'refused while the agent runs');
  t.equal(refused.json['error'], 'ABX_ERR_CONFLICT');
  await stop(alpha.id);
  // Mess the directory up after the snapshot.
  await writeFile(path.join(dirOf(alpha), 'README.md'), 'overwritten');
  await writeFile(path.join(dirOf(alpha), 'new-file'), 'not in the snapshot');
  const res = await box.api(`/v1/agents/${alpha.id}/restore`, { body: { snapshot: first.id } });
  t.equal(res.status, 200, JSON.stringify(res.json));
  t.match(res.json, { restored: first.id, files: 44, cloned: false });
  const after = await treeOf(dirOf(alpha));
  const expected = { ...before };
  delete expected['pipe'];
  expected['tool.sh'] = expected['tool.sh']!.replace(/^file:4755:/, 'file:755:');
  t.same(after, expected, 'the same tree, setuid dropped, the FIFO absent');
  t.equal(after['link-out'], 'link:/etc/passwd', 'a link is restored as a link (its target as data), never followed');
  t.equal(after['README.md']!.split(':')[2], '1600000000123', 'mtime to the millisecond');
  const st = await stat(path.join(dirOf(alpha), 'src/lib/m0.ts'));
  t.equal(st.uid, (await stat(dirOf(alpha))).uid, "restored files belong to the agent's directory owner");
  t.notOk(
    (await readdir(box.paths.workspaceDir)).some((n) => n.startsWith('.abx-')),
    'no staging directory left',
  );
});

t.test('fork: two agents from one snapshot share nothing on disk; five forks at once', async (t) => {
  const a = await spawn({
    name: 'fork-a',
    command: '/bin/sh',
    args: ['-c', 'cat README.md; echo changed > README.md; exec sleep 600'],
    fromSnapshot: first.id,
  });
  const started = await box.api('/v1/agents', { body: { name: 'fork-b', command: '/bin/sh', args: ['-c', 'exec sleep 600'], fromSnapshot: first.id } });
  t.equal(started.status, 201, JSON.stringify(started.json));
  const b = started.json['agent'] as Agent;
  t.match(started.json['fork'], { snapshot: first.id, cloned: Boolean, warm: false }, 'the answer says how the directory was made');
  t.equal((await box.api('/v1/agents', { body: { name: 'plain', command: '/bin/true', args: [] } })).json['fork'], undefined, 'no fork, no such field');
  t.match(a.cwd, /^fork-a\.[0-9a-f]{8}$/, 'a directory of its own');
  await waitFor('fork-a changed its copy', async () => (await readFile(path.join(dirOf(a), 'README.md'), 'utf8')) === 'changed\n');
  t.equal(await readFile(path.join(dirOf(b), 'README.md'), 'utf8'), '# readme\n', "one fork's change is invisible to the other");
  const out = await box.api(`/v1/agents/${a.id}/output`);
  t.match(JSON.stringify(out.json), /# readme/, 'the fork read the snapshot content at its start');
  const listed = await box.api(`/v1/agents/${b.id}/files/?list`);
  t.ok(
    (listed.json['entries'] as Array<{ name: string }>).some((e) => e.name === 'big.bin'),
    'the files API serves the fork',
  );
  const bSt = await stat(path.join(dirOf(b), 'big.bin'));
  t.equal(bSt.nlink, 1, 'a copy of its own');
  t.equal((await stat(path.join(dirOf(b), 'tool.sh'))).mode & 0o7777, 0o755, 'setuid stripped in a fork too');

  const many = await Promise.all(
    Array.from({ length: 5 }, (_, i) =>
      spawn({ name: 'swarm', command: '/bin/sh', args: ['-c', `echo n${i} > mine; exec sleep 600`], fromSnapshot: first.id, limits: {} }),
    ),
  );
  t.equal(new Set(many.map((m) => m.cwd)).size, 5, 'five forks of one name at once, five directories');
  for (const m of many) t.equal(await readFile(path.join(dirOf(m), 'src/lib/m7.ts'), 'utf8'), 'export const v7 = 7;\n'.repeat(50));
  for (const m of [a, b, ...many]) await stop(m.id);

  const named = await spawn({ name: 'named', command: '/bin/sh', args: ['-c', 'exec sleep 600'], fromSnapshot: first.id, cwd: 'forks/named' });
  t.equal(named.cwd, 'forks/named', 'cwd names the fork directory');
  await stop(named.id);
  const taken = await box.api('/v1/agents', { body: { name: 'named', command: '/bin/true', args: [], fromSnapshot: first.id, cwd: 'forks/named' } });
  t.equal(taken.status, 409, 'a fork never lands in a directory with files');
});

t.test("a fork's cwd through an agent's links: refused before anything is made, never built, renamed or removed outside", async (t) => {
  const planter = await sleeper('planter');
  const outside = await mkdtemp(path.join(tmpdir(), 'agentbox-fork-outside-'));
  t.teardown(() => rm(outside, { recursive: true, force: true }));
  // As the agent would: a link to a host directory, a dangling one, and one to its own sibling (inside, still a link).
  await symlink(outside, path.join(dirOf(planter), 'esc'));
  await symlink(path.join(outside, 'nothing-here'), path.join(dirOf(planter), 'dangling'));
  await mkdir(path.join(dirOf(planter), 'real'));
  await symlink('real', path.join(dirOf(planter), 'inner'));
  for (const cwd of ['planter/esc/made-by-box/inner', 'planter/esc/f1', 'planter/dangling/x', 'planter/inner/f2']) {
    const res = await box.api('/v1/agents', { body: { name: 'lured', command: '/bin/true', args: [], fromSnapshot: first.id, cwd } });
    t.match(res, { status: 400, json: { error: 'ABX_ERR_FILE_PATH', message: /passes through a symbolic link/ } }, `cwd ${cwd} refused`);
  }
  t.same(await readdir(outside), [], 'nothing was made outside the workspace');
  const small = await box.api('/v1/agents', {
    body: { name: 'lured', command: '/bin/true', args: [], fromSnapshot: first.id, cwd: 'planter/real/small', limits: { disk: '64k' } },
  });
  t.match(
    small,
    {
      status: 413,
      json: { error: 'ABX_ERR_FILE_TOO_LARGE', message: /builds \d+ bytes .*over the new agent's disk budget \(sandbox\.limits\.disk, 65536 bytes\)/ },
    },
    'a fork that would not fit its own disk budget is refused before it is built',
  );
  const crowded = await box.api('/v1/agents', {
    body: { name: 'lured', command: '/bin/true', args: [], fromSnapshot: first.id, cwd: 'planter/real/crowded', limits: { entries: 3 } },
  });
  t.match(
    crowded,
    {
      status: 413,
      json: {
        error: 'ABX_ERR_FILE_TOO_LARGE',
        message: /holds \d+ entries, more than the new agent may keep \(limits\.entries, 3\).*a larger entry budget .*sandbox\.limits\.entries/,
      },
    },
    'so is one with more entries than its entry budget',
  );
  t.same(await readdir(path.join(dirOf(planter), 'real')), [], 'nor through a link inside it');
  // A fork whose start fails is removed by descriptors: its directory only.
  const failed = await box.api('/v1/agents', { body: { name: 'lured', command: '/no/such/binary', args: [], fromSnapshot: first.id, cwd: 'planter/real/f3' } });
  t.not(failed.status, 201, 'the start fails');
  t.same(await readdir(path.join(dirOf(planter), 'real')), [], 'and its directory is gone again');
  await stop(planter.id);
});

t.test("a snapshot holds no more entries than its agent's entry budget (limits.entries)", async (t) => {
  const tight = await spawn({ name: 'tight', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { entries: 4 } });
  t.match(tight.limits, { entries: 4 }, 'the budget is on the record');
  for (const name of ['a', 'b', 'c', 'd', 'e']) await writeFile(path.join(dirOf(tight), name), name);
  // Whether or not a disk walk has ended the agent meanwhile, its snapshot is judged by its budget.
  const res = await box.api(`/v1/agents/${tight.id}/snapshots`, { body: {} });
  t.match(res, { status: 413, json: { error: 'ABX_ERR_FILE_TOO_LARGE', message: /more than 4 entries .*raise sandbox\.limits\.entries/ } });
  await stop(tight.id);
});

t.test('a name that is not UTF-8 is kept byte for byte: a fork started from the snapshot reads it', async (t) => {
  const odd = await sleeper('odd-names');
  await writeFile(path.join(dirOf(odd), 'plain.txt'), 'kept\n');
  const bad = Buffer.concat([Buffer.from('bad'), Buffer.from([0xff, 0xfe])]);
  await writeFile(Buffer.concat([Buffer.from(`${dirOf(odd)}/`), bad]), 'odd bytes\n');
  await writeFile(path.join(dirOf(odd), 'ok-\ufffd.txt'), 'a real U+FFFD in a name is UTF-8 and kept\n');
  const made = await snap(odd.id);
  t.match(made.stats, { files: 3, skipped: 0 }, 'three files kept, none left out');
  await stop(odd.id);
  // The fork's own shell reads the file by its bytes (a glob: the script itself stays ASCII).
  const fork = await spawn({ name: 'odd-fork', command: '/bin/sh', args: ['-c', 'cat bad?? > seen.txt; exec sleep 600'], fromSnapshot: made.id });
  await waitFor('the fork read the odd file', async () => (await readFile(path.join(dirOf(fork), 'seen.txt'), 'utf8').catch(() => '')) === 'odd bytes\n');
  t.same(
    (await readdir(dirOf(fork), { encoding: 'buffer' })).map((n) => n.toString('hex')).sort(),
    [bad, Buffer.from('ok-\ufffd.txt'), Buffer.from('plain.txt'), Buffer.from('seen.txt')].map((n) => n.toString('hex')).sort(),
    'the fork holds the same names, byte for byte',
  );
  await stop(fork.id);
});

t.test('delete frees what no other snapshot refers to and keeps what is shared', async (t) => {
  const gamma = await sleeper('gamma');
  const dir = dirOf(gamma);
  await writeFile(path.join(dir, 'kept'), 'k'.repeat(5000));
  await writeFile(path.join(dir, 'goes'), 'g'.repeat(7000));
  const one = await snap(gamma.id);
  await writeFile(path.join(dir, 'goes'), 'h'.repeat(9000));
  const two = await snap(gamma.id);
  const count = await objects();
  const sharingOf = async (id: string) => ((await box.api(`/v1/snapshots/${id}`)).json['snapshot'] as Snapshot).sharing!;
  t.match(await sharingOf(two.id), { storedBytes: 14000, sharedBytes: 5000, exclusiveBytes: 9000 }, '"kept" shared with the first');
  const del = await box.api(`/v1/snapshots/${one.id}`, { method: 'DELETE' });
  t.equal(del.status, 200);
  t.match(del.json, { deleted: one.id, freedBytes: 7000, freedChunks: 1 }, 'only the old "goes" was freed');
  t.equal(await objects(), count - 1);
  t.equal((await box.api(`/v1/snapshots/${one.id}`)).status, 404, 'gone');
  t.match(await sharingOf(two.id), { storedBytes: 14000, sharedBytes: 0, exclusiveBytes: 14000 }, 'after the delete: all its own');
  const three = await snap(gamma.id);
  t.match(await sharingOf(two.id), { storedBytes: 14000, sharedBytes: 14000, exclusiveBytes: 0 }, 'a new snapshot of the same files shares them all');
  t.equal((await box.api(`/v1/snapshots/${three.id}`, { method: 'DELETE' })).status, 200);
  await stop(gamma.id);
  const restored = await box.api(`/v1/agents/${gamma.id}/restore`, { body: { snapshot: two.id } });
  t.equal(restored.status, 200, 'the snapshot sharing its objects still restores');
  t.equal(await readFile(path.join(dir, 'kept'), 'utf8'), 'k'.repeat(5000));
  t.equal(await readFile(path.join(dir, 'goes'), 'utf8'), 'h'.repeat(9000));
});

t.test('an agent token snapshots its own workspace and nothing else', async (t) => {
  const me = await sleeper('selfie');
  const other = await sleeper('other');
  const token = await tokenOf(me.pid);
  t.ok(token, 'the agent holds a token');
  const own = await box.api(`/v1/agents/${me.id}/snapshots`, { body: {}, auth: token });
  t.equal(own.status, 201, 'its own workspace');
  const sid = (own.json['snapshot'] as Snapshot).id;
  t.equal((await box.api(`/v1/agents/${other.id}/snapshots`, { body: {}, auth: token })).status, 403, "another agent's");
  t.equal((await box.api('/v1/snapshots', { auth: token })).status, 403, 'listing is the operator’s');
  t.equal((await box.api(`/v1/snapshots/${sid}`, { auth: token })).status, 403);
  t.equal((await box.api(`/v1/snapshots/${sid}`, { method: 'DELETE', auth: token })).status, 403);
  t.equal((await box.api(`/v1/agents/${me.id}/restore`, { body: { snapshot: sid }, auth: token })).status, 403);
  await stop(me.id);
  await stop(other.id);
});

t.test("an agent's own snapshots stop at its disk budget; the operator's do not", async (t) => {
  // A 1 MiB budget; the agent writes 600 KiB of fresh bytes between its snapshots.
  const writer = await spawn({ name: 'hoarder', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '1m' } });
  const token = await tokenOf(writer.pid);
  const fresh = (n: number) => writeFile(path.join(dirOf(writer), `blob-${n}.bin`), Buffer.alloc(600 * 1024, n));
  await fresh(1);
  t.equal((await box.api(`/v1/agents/${writer.id}/snapshots`, { body: {}, auth: token })).status, 201, 'the first, 600 KiB');
  await fresh(2);
  t.equal((await box.api(`/v1/agents/${writer.id}/snapshots`, { body: {}, auth: token })).status, 201, 'the second: 600 KiB held, under 1 MiB');
  await fresh(3);
  const refused = await box.api(`/v1/agents/${writer.id}/snapshots`, { body: {}, auth: token });
  t.match(
    refused,
    {
      status: 409,
      json: {
        error: 'ABX_ERR_CONFLICT',
        message: /hoarder's snapshots already store \d+ bytes of their own, its disk budget \(sandbox\.limits\.disk, 1048576 bytes\)/,
      },
    },
    'the third: 1.2 MiB held, at its budget',
  );
  t.equal((await box.api(`/v1/agents/${writer.id}/snapshots`, { body: {} })).status, 201, 'the operator may still snapshot it');
  await stop(writer.id);
});

t.test("an agent's own snapshots of an unchanged tree are charged their records: a flood of them stops at its budget", async (t) => {
  // 3,000 empty files: no chunk to store, yet each snapshot writes about 0.7 MB of entries.
  const flooder = await spawn({ name: 'flooder', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '1m' } });
  const token = await tokenOf(flooder.pid);
  for (let i = 0; i < 3000; i++) await writeFile(path.join(dirOf(flooder), `${String(i).padStart(100, 'e')}`), '');
  const answers = [];
  for (let i = 0; i < 4; i++) answers.push(await box.api(`/v1/agents/${flooder.id}/snapshots`, { body: {}, auth: token }));
  t.same(
    answers.map((a) => a.status),
    [201, 201, 409, 409],
    'two records (about 1.4 MB) reach the 1 MiB budget, though neither stored a chunk',
  );
  t.match(
    answers[3]!.json['message'],
    /flooder's snapshots already store (\d+) bytes of their own.* \(\1 bytes of those are their records/,
    'the refusal says what holds the budget',
  );
});

t.test('a workspace of small files within its disk budget forks within the same budget: a build is counted in blocks, as the disk walk counts', async (t) => {
  // 2,000 files of 3,000 bytes: 2,000 blocks of 4 KiB (7.8 MiB) on disk, where the bytes and a block a file on top came to 13.5 MiB.
  const small = await spawn({ name: 'smallfiles', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '10m' } });
  await mkdir(path.join(dirOf(small), 'src'));
  for (let i = 0; i < 2000; i++) await writeFile(path.join(dirOf(small), 'src', `f${i}.ts`), Buffer.alloc(3000, 97));
  const made = await snap(small.id);
  t.ok(made.stats['buildBytes']! < 10 * 1024 * 1024, `counted ${made.stats['buildBytes']} bytes to build`);
  const fork = await spawn({ name: 'smallfork', command: '/bin/sh', args: ['-c', 'exec sleep 600'], fromSnapshot: made.id, limits: { disk: '10m' } });
  const du = Number(execFileSync('du', ['-s', '-B1', dirOf(fork)], { encoding: 'utf8' }).split('\t')[0]);
  t.ok(du <= made.stats['buildBytes']!, `the fork takes ${du} bytes on disk, no more than counted`);
  const tooSmall = await box.api('/v1/agents', { body: { name: 'smallfork', command: '/bin/true', fromSnapshot: made.id, limits: { disk: '4m' } } });
  t.match(tooSmall, { status: 413, json: { error: 'ABX_ERR_FILE_TOO_LARGE' } }, 'a budget it does not fit still refuses it');
  await stop(fork.id);
  await stop(small.id);
});

t.test("an agent's own snapshots sent at once are checked one after another: together they cannot pass its budget", async (t) => {
  // A 1 MiB budget, 600 KiB of fresh bytes, six requests at once. Checked all before any was charged, each would store them again.
  const rusher = await spawn({ name: 'rusher', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '1m' } });
  const token = await tokenOf(rusher.pid);
  await writeFile(path.join(dirOf(rusher), 'blob.bin'), Buffer.alloc(600 * 1024, 9));
  const answers = await Promise.all(Array.from({ length: 6 }, () => box.api(`/v1/agents/${rusher.id}/snapshots`, { body: {}, auth: token })));
  t.same(
    answers.map((a) => a.status),
    [201, 201, 201, 201, 201, 201],
    'each is made: the first stores the bytes, the rest find them stored',
  );
  const mine = ((await box.api(`/v1/snapshots?agent=${rusher.id}`)).json['snapshots'] as Array<{ stats: { addedBytes: number } }>).map(
    (s) => s.stats.addedBytes,
  );
  t.equal(mine.length, 6);
  const stored = mine.reduce((a, b) => a + b, 0);
  t.ok(stored <= 1024 * 1024, `the six stored ${stored} bytes of their own, within the 1 MiB budget (${JSON.stringify(mine)})`);
  await stop(rusher.id);
});

t.test("a deleted snapshot's chunks are charged to the oldest snapshot still holding them: no deletion leaves bytes outside every budget", async (t) => {
  // Another agent's snapshot stores 600 KiB first; the budgeted agent's snapshot of the same bytes adds nothing, and pays nothing while that one is kept.
  const blob = Buffer.alloc(600 * 1024, 41);
  const donor = await sleeper('donor');
  await writeFile(path.join(dirOf(donor), 'same.bin'), blob);
  const donated = await snap(donor.id);
  const saver = await spawn({ name: 'saver', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '1m' } });
  const token = await tokenOf(saver.pid);
  const own = async () => box.api(`/v1/agents/${saver.id}/snapshots`, { body: {}, auth: token });
  const charged = async (sid: string) => ((await box.api(`/v1/snapshots/${sid}`)).json['snapshot'] as Snapshot).sharing!['chargedBytes'];
  await writeFile(path.join(dirOf(saver), 'same.bin'), blob);
  const shared = await own();
  t.equal(shared.status, 201, 'the same bytes as the donor: made');
  const sharedId = (shared.json['snapshot'] as Snapshot).id;
  t.equal(await charged(sharedId), 0, 'the donor pays for them, being the older');
  t.equal(await charged(donated.id), blob.length);
  await writeFile(path.join(dirOf(saver), 'fresh.bin'), Buffer.alloc(600 * 1024, 42));
  const fresh = await own();
  t.equal(fresh.status, 201, 'then 600 KiB of its own: 600 KiB charged, under 1 MiB');
  t.equal(await charged((fresh.json['snapshot'] as Snapshot).id), 600 * 1024, 'the newest pays for what it added only');

  t.equal((await box.api(`/v1/snapshots/${donated.id}`, { method: 'DELETE' })).status, 200);
  t.equal(await charged(sharedId), blob.length, "the donor's is gone: the saver's oldest now holds those bytes, and pays for them");
  const refused = await own();
  t.equal(refused.status, 409);
  const [, held, records] =
    /saver's snapshots already store (\d+) bytes of their own.* \((\d+) bytes of those are their records/.exec(String(refused.json['message'])) ?? [];
  t.equal(
    Number(held) - Number(records),
    1_228_800,
    'so 1.2 MiB of chunks is charged to the saver (beside its records), past its budget: a further snapshot is refused',
  );
  await stop(donor.id);
  await stop(saver.id);
});

t.test('bad input: clear 4xx', async (t) => {
  const unknown = 'snp_AAAAAAAAAAAA';
  t.equal((await box.api(`/v1/snapshots/${unknown}`)).status, 404);
  t.equal((await box.api(`/v1/snapshots/${unknown}`, { method: 'DELETE' })).status, 404);
  t.match(
    await box.api(`/v1/snapshots/nope`),
    { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: 'params/sid must be a snapshot id (snp_…), matching ^snp_[A-Za-z0-9_-]{12}$' } },
    'a malformed id: said as what it should be, the value not repeated',
  );
  t.match(
    await box.api('/v1/agents', { body: { name: 'forked', command: '/bin/true', fromSnapshot: 'snp_short' } }),
    { status: 400, json: { message: /^body\/fromSnapshot must be a snapshot id \(snp_…\) to start the agent on a copy of \(a fork\): .*, matching \^snp_/ } },
    'in a body too',
  );
  t.match(
    await box.api(`/v1/agents/${alpha.id}/snapshots`, { body: { label: 7 } }),
    { json: { message: 'body/label must be string' } },
    "other failures in the validator's words",
  );
  t.equal((await box.api(`/v1/agents/${alpha.id}/restore`, { body: { snapshot: unknown } })).status, 404);
  t.equal((await box.api(`/v1/agents/${alpha.id}/restore`, { body: {} })).status, 400, 'no snapshot named');
  t.equal((await box.api(`/v1/agents/${alpha.id}/restore`, { body: { snapshot: first.id, extra: 1 } })).status, 400);
  t.equal((await box.api('/v1/agents/agt_unknown/snapshots', { body: {} })).status, 404, 'unknown agent');
  t.equal((await box.api(`/v1/agents/${alpha.id}/snapshots`, { body: { label: 7 } })).status, 400, 'a label is text');
  for (const label of ['two\nlines', 'tab\there', 'bell\u0007', 'del\u007f'])
    t.match(
      await box.api(`/v1/agents/${alpha.id}/snapshots`, { body: { label } }),
      {
        status: 400,
        json: { error: 'ABX_ERR_VALIDATION', message: /body\/label holds a newline, tab or other control character: a label is one line of text/ },
      },
      `${JSON.stringify(label)} refused`,
    );
  const fork = await box.api('/v1/agents', { body: { name: 'x', command: '/bin/true', args: [], fromSnapshot: unknown } });
  t.equal(fork.status, 404, 'a fork of an unknown snapshot');
  const outside = await box.api('/v1/agents', { body: { name: 'x', command: '/bin/true', args: [], fromSnapshot: first.id, cwd: '../out' } });
  t.equal(outside.status, 400, 'a fork directory outside the workspace');
  const events = await box.api('/v1/events?kind=snapshot.created');
  t.ok((events.json['items'] as unknown[]).length >= 3, `snapshot.created events recorded: ${JSON.stringify(events.json).slice(0, 300)}`);
});

t.test('a workspace nested deeper than the box walks is refused whole: 413 naming where, nothing kept', async (t) => {
  const deep = await sleeper('deep');
  // `tree` is the first level, its deepest `d` the last one walked.
  const bottom = path.join(dirOf(deep), 'tree', ...Array.from({ length: MAX_TREE_DEPTH - 1 }, () => 'd'));
  await mkdir(bottom, { recursive: true });
  await writeFile(path.join(bottom, 'end.txt'), 'at the limit\n');
  const atLimit = await snap(deep.id);
  t.equal(atLimit.stats['dirs'], MAX_TREE_DEPTH, `${MAX_TREE_DEPTH} levels below the working directory are captured`);

  await mkdir(path.join(bottom, 'd'));
  const listed = (await box.api('/v1/snapshots')).json['snapshots'] as unknown[];
  const res = await box.api(`/v1/agents/${deep.id}/snapshots`, { body: {} });
  t.match(
    res,
    {
      status: 413,
      json: {
        error: 'ABX_ERR_FILE_TOO_LARGE',
        message: new RegExp(`more than ${MAX_TREE_DEPTH} levels deep \\(at "tree/d/d/.*"\\): too deep to snapshot; flatten that tree; nothing was kept$`),
      },
    },
    'one level more is refused, naming the limit and where',
  );
  t.equal(((await box.api('/v1/snapshots')).json['snapshots'] as unknown[]).length, listed.length, 'no snapshot was listed');
  t.same(await readdir(path.join(box.paths.stateDir, 'snapshots/tmp')), [], 'and nothing half-made is left in the store');
  await stop(deep.id);
});

t.test("a workspace of sparse files holding more holes than the agent's disk budget is refused whole (413), whoever asks", async (t) => {
  // A 16 MiB budget; two files of 12 MiB that take no disk, so the budget never sees them.
  const sparse = await spawn({ name: 'sparse', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '16m' } });
  for (const name of ['a.img', 'b.img']) execFileSync('truncate', ['-s', '12M', path.join(dirOf(sparse), name)]);
  const listed = (await box.api('/v1/snapshots')).json['snapshots'] as unknown[];
  const tooSparse = {
    status: 413,
    json: { error: 'ABX_ERR_FILE_TOO_LARGE', message: /sparse files hold more than 16777216 bytes of holes \(the agent's disk budget\).*; nothing was kept$/ },
  };
  t.match(await box.api(`/v1/agents/${sparse.id}/snapshots`, { body: {}, auth: await tokenOf(sparse.pid) }), tooSparse, "the agent's own request");
  t.match(await box.api(`/v1/agents/${sparse.id}/snapshots`, { body: {} }), tooSparse, "the operator's");
  t.equal(((await box.api('/v1/snapshots')).json['snapshots'] as unknown[]).length, listed.length, 'no snapshot was listed');
  t.same(await readdir(path.join(box.paths.stateDir, 'snapshots/tmp')), [], 'and nothing half-made is left in the store');
  await writeFile(path.join(dirOf(sparse), 'b.img'), '');
  const made = await snap(sparse.id);
  t.equal(made.stats['holeBytes'], 12 * 1024 * 1024, 'with 12 MiB of holes left it is captured, holes and all');
  await stop(sparse.id);
});
