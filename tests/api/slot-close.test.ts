// Closing a slot while its adapter reconnects: the close waits for the connect under way, then closes what it opened, so a
// stopped box never has its event log opened again behind it (seen as a teardown's ENOTEMPTY when the reopened log wrote
// its tree while the root was being removed).
import t from 'tap';
import { startTestServer } from './support/harness.js';

const toml = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n';

t.test('a slot closed while it reconnects closes the adapter after the connect, not before', async (t) => {
  const box = await startTestServer({ toml });
  t.teardown(() => box.close());
  const events = box.server.app.agentbox.resolver.supervisors.get('events')!;
  const log = events.adapter as typeof events.adapter & { stats(): unknown };
  t.ok(log.stats(), 'the event log is open');
  // The log fails under the slot, as after a failed fsync; its reconnect (50 ms later in tests) is held at its start.
  await events.adapter.close();
  const connect = events.adapter.connect.bind(events.adapter);
  let started!: () => void;
  const connecting = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Held at its start, then run past the abort: the log's connect looks at its signal only before it
  // opens its files, so a close that lands while they open is not seen by it.
  let connected: Promise<void> | undefined;
  events.adapter.connect = async () => {
    started();
    await held;
    connected = connect(new AbortController().signal);
    return connected;
  };
  events.reportFailure(new Error('the log failed'));
  t.equal(events.state, 'degraded');
  await connecting;
  // The box stops while the connect is under way; the connect then goes on and opens the log.
  const closing = events.close();
  release();
  await closing;
  t.ok(connected, 'the connect went on');
  await connected;
  t.equal(log.stats(), undefined, 'the log that connect opened was closed by the close, after it: nothing is left open');
});
