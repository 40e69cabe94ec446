// The seal state machine: seal, unseal after a required programme dies, re-seal, stage-B failure.
import t from 'tap';
import { SealState } from '../../management-api/src/boot/seal-state.js';
import { parseTokens } from '../../management-api/src/boot/supervisor-protocol.js';

const ev = (s: SealState, state: string, name: string, extra: Record<string, string> = {}) => s.apply(`PROCESS_STATE_${state}`, { processname: name, ...extra });

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
  t.same(ev(s, 'RUNNING', 'api'), { kind: 'seal' });
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
  t.same(parseTokens('ver:3.0 server:supervisor eventname:PROCESS_STATE_RUNNING len:54\n'), { ver: '3.0', server: 'supervisor', eventname: 'PROCESS_STATE_RUNNING', len: '54' });
});

t.test('seeding from supervisord: a restarted listener knows what no event will tell it again', async (t) => {
  const p = (name: string, state: string, exitStatus = 0) => ({ name, state, exitStatus });
  const done = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(done.seed([p('bootstrap', 'EXITED'), p('api', 'RUNNING'), p('seal-listener', 'STARTING')]), { kind: 'seal' }, 'one-shot exited 0 and api runs: sealed at once');
  t.equal(done.sealed, true);
  t.same(ev(done, 'STOPPING', 'api', { from_state: 'RUNNING' }), { kind: 'unseal', program: 'api', state: 'STOPPING' }, 'events continue from the seeded state');

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

t.test('events queued before the snapshot are history: skipped until one continues from the seeded state', async (t) => {
  const s = new SealState({ required: ['api'], oneshot: 'bootstrap' });
  t.same(s.seed([{ name: 'bootstrap', state: 'EXITED', exitStatus: 0 }, { name: 'api', state: 'RUNNING', exitStatus: 0 }]), { kind: 'seal' });
  // supervisord delivers what it queued while the listener started: the way to the snapshot.
  t.same(ev(s, 'STARTING', 'bootstrap', { from_state: 'STOPPED' }), { kind: 'none' });
  t.same(ev(s, 'STARTING', 'api', { from_state: 'STOPPED' }), { kind: 'none' }, 'no false withdrawal');
  t.same(ev(s, 'RUNNING', 'api', { from_state: 'STARTING' }), { kind: 'none' });
  t.same(ev(s, 'EXITED', 'bootstrap', { from_state: 'RUNNING', expected: '1' }), { kind: 'none' });
  t.equal(s.sealed, true);
  t.same(ev(s, 'STOPPING', 'api', { from_state: 'RUNNING' }), { kind: 'unseal', program: 'api', state: 'STOPPING' }, 'the first event from the seeded state is live');
  t.same(ev(s, 'STOPPED', 'api', { from_state: 'STOPPING' }), { kind: 'none' });
  t.same(ev(s, 'STARTING', 'api', { from_state: 'STOPPED' }), { kind: 'none' }, 'live from then on');
  t.same(ev(s, 'RUNNING', 'api', { from_state: 'STARTING' }), { kind: 'seal' });
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
