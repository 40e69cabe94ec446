// The seal state machine: seal, unseal after a required programme dies, re-seal, stage-B failure.
import t from 'tap';
import { SealState } from '../../management-api/src/boot/seal-state.js';
import { listen, parseTokens } from '../../management-api/src/boot/supervisor-protocol.js';
import { reportStageBCompleted, STAGE_B_COMPLETED } from '../../management-api/src/boot/stage-b-report.js';

const ev = (s: SealState, state: string, name: string, extra: Record<string, string> = {}) =>
  s.apply(`PROCESS_STATE_${state}`, { processname: name, ...extra });

t.test('seals only when the one-shot exited cleanly and every required programme runs', async (t) => {
  const s = new SealState({ required: ['management-api', 'worker'], oneshot: 'bootstrap' });
  t.same(s.pending(), ['management-api', 'worker', 'bootstrap (one-shot)']);
  t.same(ev(s, 'STARTING', 'management-api'), { kind: 'none' });
  t.same(ev(s, 'RUNNING', 'management-api'), { kind: 'none' });
  t.same(ev(s, 'RUNNING', 'worker'), { kind: 'none' }, 'bootstrap still running');
  t.same(ev(s, 'EXITED', 'bootstrap', { expected: '1' }), { kind: 'seal' });
  t.equal(s.sealed, true);
  t.same(ev(s, 'RUNNING', 'other'), { kind: 'none' }, 'unrelated programmes do not matter');
});

t.test('a required programme leaving RUNNING withdraws the seal; its return restores it', async (t) => {
  const s = new SealState({ required: ['api'] });
  t.same(ev(s, 'RUNNING', 'api'), { kind: 'seal' });
  t.same(ev(s, 'EXITED', 'api', { expected: '0' }), { kind: 'unseal', program: 'api', state: 'EXITED' });
  t.equal(s.sealed, false);
  t.same(ev(s, 'STARTING', 'api'), { kind: 'none' });
  t.same(ev(s, 'RUNNING', 'api'), { kind: 'seal', again: true }, 'a re-seal, not a second completed bootstrap');
});

t.test('a required programme that stays down (FATAL, or an exit supervisord does not restart) is reported, before or after the seal', async (t) => {
  const s = new SealState({ required: ['egress-proxy', 'api'] });
  ev(s, 'RUNNING', 'api');
  ev(s, 'RUNNING', 'egress-proxy');
  t.equal(s.sealed, true);
  t.same(ev(s, 'EXITED', 'egress-proxy', { expected: '1' }), { kind: 'down', program: 'egress-proxy', state: 'EXITED' });
  t.equal(s.sealed, false);
  t.same(ev(s, 'RUNNING', 'egress-proxy'), { kind: 'seal', again: true }, 'started again by hand: sealed again');
  const early = new SealState({ required: ['relay'] });
  t.same(ev(early, 'BACKOFF', 'relay'), { kind: 'none' });
  t.same(ev(early, 'FATAL', 'relay'), { kind: 'down', program: 'relay', state: 'FATAL' });
  t.equal(early.sealed, false);
  const seeded = new SealState({ required: ['relay'] });
  t.same(
    seeded.seed([{ name: 'relay', state: 'FATAL', exitStatus: 0 }]),
    { kind: 'down', program: 'relay', state: 'FATAL' },
    'a restarted listener finds it in the snapshot',
  );
});

t.test('failed starts in a row count as FATAL even when supervisord keeps restarting the programme', async (t) => {
  let now = 0;
  const dead = new Set<number>();
  const s = new SealState({ required: ['crash'], now: () => now, processAlive: (pid) => !dead.has(pid) });
  const run = (pid: number, lastsMs: number, alive = true) => {
    if (!alive) dead.add(pid);
    const running = ev(s, 'RUNNING', 'crash', { pid: String(pid) });
    now += lastsMs;
    return { running, exited: ev(s, 'EXITED', 'crash', { expected: '0', pid: String(pid) }) };
  };
  // supervisord's race: a process that already exited is called RUNNING; it never seals.
  t.same(run(10, 1, false).running, { kind: 'none' }, 'a RUNNING whose process is gone does not seal');
  t.equal(s.sealed, false);
  t.same(ev(s, 'BACKOFF', 'crash'), { kind: 'none' });
  t.same(ev(s, 'BACKOFF', 'crash'), { kind: 'none' });
  t.same(run(11, 100), { running: { kind: 'seal' }, exited: { kind: 'unseal', program: 'crash', state: 'EXITED' } }, 'four failed starts');
  t.same(run(12, 4_999).exited, { kind: 'unseal', program: 'crash', state: 'EXITED' }, 'five');
  t.same(run(13, 10).exited, {
    kind: 'down',
    program: 'crash',
    state: 'EXITED',
    reason: 'crash could not be started (its last 6 starts each ended within 5 s)',
  });
  t.equal(s.sealed, false);
  // Until supervisord has stopped it (the listener asks it to), its restarts do not seal.
  t.same(ev(s, 'STARTING', 'crash'), { kind: 'none' });
  t.same(ev(s, 'RUNNING', 'crash', { pid: '14' }), { kind: 'none' }, 'a restart before the stop: not back');
  t.same(s.pending(), ['crash']);
  t.same(ev(s, 'STOPPING', 'crash'), { kind: 'none' });
  t.same(ev(s, 'STOPPED', 'crash'), { kind: 'none' });
  t.same(ev(s, 'RUNNING', 'crash', { pid: '15' }), { kind: 'seal', again: true }, 'started again by hand after the stop: sealed');
  // A run that lasted counts as a crash of a running programme: counting starts over.
  const steady = new SealState({ required: ['api'], now: () => now });
  for (let i = 0; i < 5; i++) ev(steady, 'BACKOFF', 'api');
  ev(steady, 'RUNNING', 'api', { pid: '20' });
  now += 5_000;
  t.same(ev(steady, 'EXITED', 'api', { expected: '0' }), { kind: 'unseal', program: 'api', state: 'EXITED' });
  for (let i = 0; i < 5; i++) t.same(ev(steady, 'BACKOFF', 'api'), { kind: 'none' }, `failed start ${i + 1} after the steady run`);
  t.match(ev(steady, 'BACKOFF', 'api'), { kind: 'down', reason: /last 6 starts/ });
  // supervisord's own FATAL (four backoffs) still comes first when its count holds.
  const plain = new SealState({ required: ['relay'], now: () => now });
  for (let i = 0; i < 4; i++) t.same(ev(plain, 'BACKOFF', 'relay'), { kind: 'none' });
  t.same(ev(plain, 'FATAL', 'relay'), { kind: 'down', program: 'relay', state: 'FATAL' });
  // Programmes the seal does not wait for are never counted.
  const other = new SealState({ required: ['api'], now: () => now });
  for (let i = 0; i < 8; i++) t.same(ev(other, 'BACKOFF', 'worker'), { kind: 'none' });
});

t.test('stage B failing is final: never sealed afterwards', async (t) => {
  const s = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  ev(s, 'RUNNING', 'api');
  t.same(ev(s, 'EXITED', 'bootstrap', { expected: '0' }), { kind: 'fail', reason: 'bootstrap exited with an unexpected status' });
  t.same(ev(s, 'RUNNING', 'api'), { kind: 'none' });
  t.equal(s.sealed, false);
  const fatal = new SealState({ required: [], oneshot: 'bootstrap' });
  t.match(ev(fatal, 'FATAL', 'bootstrap'), { kind: 'fail', reason: /could not be started/ });
});

t.test('non-state events are ignored; tokens parse', async (t) => {
  const s = new SealState({ required: ['api'] });
  t.same(s.apply('TICK_5', { when: '1' }), { kind: 'none' });
  t.same(parseTokens('ver:3.0 server:supervisor eventname:PROCESS_STATE_RUNNING len:54\n'), {
    ver: '3.0',
    server: 'supervisor',
    eventname: 'PROCESS_STATE_RUNNING',
    len: '54',
  });
});

t.test('seeding from supervisord: a restarted listener knows what no event will tell it again', async (t) => {
  const p = (name: string, state: string, exitStatus = 0) => ({ name, state, exitStatus });
  const done = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(
    done.seed([p('bootstrap', 'EXITED'), p('api', 'RUNNING'), p('seal-listener', 'STARTING')]),
    { kind: 'seal' },
    'one-shot exited 0 and api runs: sealed at once',
  );
  t.equal(done.sealed, true);
  t.same(
    ev(done, 'STOPPING', 'api', { from_state: 'RUNNING' }),
    { kind: 'unseal', program: 'api', state: 'STOPPING' },
    'events continue from the seeded state',
  );

  const waiting = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(waiting.seed([p('bootstrap', 'EXITED'), p('api', 'BACKOFF')]), { kind: 'none' });
  t.same(waiting.pending(), ['api']);
  t.same(ev(waiting, 'RUNNING', 'api'), { kind: 'seal' });

  const fresh = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(fresh.seed([p('bootstrap', 'STOPPED'), p('api', 'STOPPED')]), { kind: 'none' }, 'at first boot nothing has run yet');
  t.same(fresh.pending(), ['api', 'bootstrap (one-shot)']);

  const failed = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(failed.seed([p('bootstrap', 'EXITED', 1), p('api', 'RUNNING')]), { kind: 'fail', reason: 'bootstrap exited with status 1' });
  t.equal(failed.failed, true);
  t.same(ev(failed, 'RUNNING', 'api'), { kind: 'none' }, 'and stays failed');
  t.match(new SealState({ required: [], oneshot: 'bootstrap' }).seed([p('bootstrap', 'FATAL')]), { kind: 'fail', reason: /could not be started/ });
});

t.test('a required programme that could not start before the listener looked: down from the snapshot, not pending for ever', async (t) => {
  // The egress proxy found its port taken and exited with the start-failure status (expected: not
  // restarted) while the listener was still starting; the events replayed lead up to EXITED and are history.
  const failed = new Set(['egress-proxy']);
  const s = new SealState({ required: ['egress-proxy', 'api'], failedToStart: (name) => failed.has(name) });
  t.same(
    s.seed([
      { name: 'egress-proxy', state: 'EXITED', exitStatus: 78 },
      { name: 'api', state: 'STARTING', exitStatus: 0 },
    ]),
    { kind: 'down', program: 'egress-proxy', state: 'EXITED' },
  );
  for (const [state, from] of [
    ['STARTING', 'STOPPED'],
    ['RUNNING', 'STARTING'],
    ['EXITED', 'RUNNING'],
  ] as const)
    t.same(ev(s, state, 'egress-proxy', { from_state: from, expected: '1' }), { kind: 'none' }, `replayed ${state} is history`);
  t.same(ev(s, 'RUNNING', 'api', { from_state: 'STARTING' }), { kind: 'none' }, 'the API up: still not sealed');
  t.same(s.pending(), ['egress-proxy']);
  // Started again by hand once the port is free (a start that listens clears the record).
  failed.clear();
  t.same(ev(s, 'STARTING', 'egress-proxy', { from_state: 'EXITED' }), { kind: 'none' });
  t.same(ev(s, 'RUNNING', 'egress-proxy', { from_state: 'STARTING' }), { kind: 'seal' });

  // EXITED without a record (an unexpected exit, which supervisord restarts): only pending.
  const restarting = new SealState({ required: ['api'], failedToStart: () => false });
  t.same(restarting.seed([{ name: 'api', state: 'EXITED', exitStatus: 1 }]), { kind: 'none' });
  t.same(restarting.pending(), ['api']);
});

t.test('events queued before the snapshot are history: skipped until one continues from the seeded state', async (t) => {
  const s = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(
    s.seed([
      { name: 'bootstrap', state: 'EXITED', exitStatus: 0 },
      { name: 'api', state: 'RUNNING', exitStatus: 0 },
    ]),
    { kind: 'seal' },
  );
  // supervisord delivers what it queued while the listener started: the way to the snapshot.
  t.same(ev(s, 'STARTING', 'bootstrap', { from_state: 'STOPPED' }), { kind: 'none' });
  t.same(ev(s, 'STARTING', 'api', { from_state: 'STOPPED' }), { kind: 'none' }, 'no false withdrawal');
  t.same(ev(s, 'RUNNING', 'api', { from_state: 'STARTING' }), { kind: 'none' });
  t.same(ev(s, 'EXITED', 'bootstrap', { from_state: 'RUNNING', expected: '1' }), { kind: 'none' });
  t.equal(s.sealed, true);
  t.same(
    ev(s, 'STOPPING', 'api', { from_state: 'RUNNING' }),
    { kind: 'unseal', program: 'api', state: 'STOPPING' },
    'the first event from the seeded state is live',
  );
  t.same(ev(s, 'STOPPED', 'api', { from_state: 'STOPPING' }), { kind: 'none' });
  t.same(ev(s, 'STARTING', 'api', { from_state: 'STOPPED' }), { kind: 'none' }, 'live from then on');
  t.same(ev(s, 'RUNNING', 'api', { from_state: 'STARTING' }), { kind: 'seal', again: true });
});

t.test('the seal timeout is about the first seal of a boot only', async (t) => {
  const s = new SealState({ required: ['api', 'worker'], oneshot: 'bootstrap' });
  t.same(s.timeoutPending(), ['api', 'worker', 'bootstrap (one-shot)'], 'at start everything is awaited');
  ev(s, 'RUNNING', 'api');
  ev(s, 'EXITED', 'bootstrap', { expected: '1' });
  t.same(s.timeoutPending(), ['worker']);
  ev(s, 'RUNNING', 'worker');
  t.equal(s.timeoutPending(), undefined, 'sealed: nothing to time out');
  t.same(ev(s, 'EXITED', 'worker', { expected: '0' }), { kind: 'unseal', program: 'worker', state: 'EXITED' });
  t.equal(s.timeoutPending(), undefined, 'a programme down after the seal is not a slow boot');
  const failed = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  ev(failed, 'FATAL', 'bootstrap');
  t.equal(failed.timeoutPending(), undefined, 'a failed boot has its own reason');
});

t.test("stage B's completion report counts as its clean exit; a later bad exit still fails the boot", async (t) => {
  const s = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  ev(s, 'RUNNING', 'api');
  ev(s, 'RUNNING', 'bootstrap');
  const comm = (name: string, data: string) => s.apply('PROCESS_COMMUNICATION_STDOUT', { processname: name, groupname: name, pid: '7' }, data);
  t.same(comm('api', STAGE_B_COMPLETED), { kind: 'none' }, "another programme's report is not stage B's");
  t.same(comm('bootstrap', 'something else'), { kind: 'none' }, 'another message is not the completion');
  t.same(comm('bootstrap', STAGE_B_COMPLETED), { kind: 'seal' }, 'sealed before the exit');
  t.same(ev(s, 'EXITED', 'bootstrap', { expected: '1' }), { kind: 'none' }, 'the clean exit that follows changes nothing');

  const late = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  ev(late, 'RUNNING', 'api');
  late.apply('PROCESS_COMMUNICATION_STDOUT', { processname: 'bootstrap' }, STAGE_B_COMPLETED);
  t.equal(late.sealed, true);
  t.match(ev(late, 'EXITED', 'bootstrap', { expected: '0' }), { kind: 'fail' }, 'an unexpected exit after the report fails the boot');
  t.equal(late.sealed, false);
});

t.test('the listener protocol hands over the message of a communication event', async (t) => {
  const { PassThrough } = await import('node:stream');
  const input = new PassThrough();
  const output = new PassThrough();
  const seen: Array<{ eventName: string; processname?: string; data: string }> = [];
  const done = listen(input, output, (e) => void seen.push({ eventName: e.eventName, processname: e.payload['processname'], data: e.data }));
  const payload = `processname:bootstrap groupname:bootstrap pid:42\n${STAGE_B_COMPLETED}`;
  const state = 'processname:api groupname:api from_state:STARTING pid:43';
  input.write(
    `ver:3.0 server:supervisor serial:1 pool:seal-listener poolserial:1 eventname:PROCESS_COMMUNICATION_STDOUT len:${Buffer.byteLength(payload)}\n${payload}`,
  );
  input.end(`ver:3.0 server:supervisor serial:2 pool:seal-listener poolserial:2 eventname:PROCESS_STATE_RUNNING len:${state.length}\n${state}`);
  await done;
  t.same(seen, [
    { eventName: 'PROCESS_COMMUNICATION_STDOUT', processname: 'bootstrap', data: STAGE_B_COMPLETED },
    { eventName: 'PROCESS_STATE_RUNNING', processname: 'api', data: '' },
  ]);
});

t.test('stage B reports only under supervisord', async (t) => {
  const { mkdtempSync, openSync, readFileSync, closeSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'abx-report-')), 'stdout');
  const fd = openSync(file, 'w');
  t.equal(reportStageBCompleted({}, fd), false, 'not under supervisord: nothing on a terminal');
  t.equal(reportStageBCompleted({ SUPERVISOR_ENABLED: '1' }, fd), true);
  closeSync(fd);
  t.equal(readFileSync(file, 'utf8'), `<!--XSUPERVISOR:BEGIN-->${STAGE_B_COMPLETED}<!--XSUPERVISOR:END-->`, "supervisord's capture markers around the message");
});
