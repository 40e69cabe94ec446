// `agentbox audit` on a real event log written by events/local-jsonl at chosen times: --since as an ISO time and as an age
// (30m, 12h, 7d), bad input refused with a clear error, --agent by id and by name, decisions only (approval.decided among them).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalJsonlEvents } from '../../../management-api/src/adapters/events/local-jsonl.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';
import { timeOrAge } from '../../../scripts/cli/time-or-age.js';
import { runAgentbox } from '../../helpers/cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentbox-audit-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const dir = path.join(runtimePaths({ AGENTBOX_ROOT: root }).stateDir, 'events');

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// Each age sits well inside its window (20 min against 30m, 5 h against 12h, 2 d and 10 d against 7d): the seconds the CLI takes to start cannot move one across.
const now = Date.now();
const at = {
  tenDays: new Date(now - 10 * DAY),
  twoDays: new Date(now - 2 * DAY),
  fiveHours: new Date(now - 5 * HOUR),
  twentyMin: new Date(now - 20 * MIN),
};
type Decision = { seq: number; time: string; kind: string; agent: string | null; data: Record<string, unknown> };

t.before(async () => {
  let clock = at.tenDays;
  const log = new LocalJsonlEvents({
    dir,
    clock: () => clock,
    transparency: { keyFile: path.join(root, 'var/lib/agentbox/secrets/event-log.key'), checkpointIntervalMs: 3_600_000 },
  });
  await log.connect(AbortSignal.timeout(10_000));
  const append = (kind: string, data: Record<string, unknown>, source = 'agents') => log.append([{ kind, source, data }]);
  await append('agent.spawn', { agent: 'agt_old', name: 'archiver', by: { kind: 'api-key' } });
  await append('test.note', { agent: 'agt_old', text: 'not a decision' }, 'cli-test');
  clock = at.twoDays;
  await append('policy.decision', { agent: 'agt_b', action: 'egress', outcome: 'denied', by: { kind: 'agent', agent: 'agt_b' } }, 'policy');
  clock = at.fiveHours;
  await append(
    'approval.decided',
    {
      request: 'apr_000000000000000001',
      agent: null,
      name: 'releaser',
      outcome: 'approved',
      signed: true,
      approver: 'ab'.repeat(32),
      actor: { kind: 'session' },
    },
    'approvals',
  );
  clock = at.twentyMin;
  await append('agent.exit', { agent: 'agt_old', name: 'archiver', state: 'exited' });
  await log.close();
});

const audit = (...args: string[]) => runAgentbox(['audit', '--root', root, ...args]);
const decisions = (...args: string[]): Decision[] => {
  const r = audit('--json', ...args);
  if (r.code !== 0) throw new Error(`agentbox audit ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { decisions: Decision[] }).decisions;
};
const kinds = (list: Decision[]) => list.map((d) => d.kind);

t.test('every decision, and only decisions; the text form names a signed approval by its key', async (t) => {
  t.same(kinds(decisions()), ['agent.spawn', 'policy.decision', 'approval.decided', 'agent.exit'], 'test.note is not a decision');
  const r = audit();
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /: 5 entries, 4 decisions/);
  t.match(r.stdout, /approval\.decided by abababababab… \(signed\) → approved/);
});

t.test('--since as an age: 30m, 12h, 7d, and seconds', async (t) => {
  t.same(kinds(decisions('--since', '30m')), ['agent.exit']);
  t.same(kinds(decisions('--since', '12h')), ['approval.decided', 'agent.exit']);
  t.same(kinds(decisions('--since', '7d')), ['policy.decision', 'approval.decided', 'agent.exit']);
  t.same(kinds(decisions('--since', '3600s')), ['agent.exit']);
});

t.test('--since as an ISO time is inclusive', async (t) => {
  t.same(kinds(decisions('--since', at.twoDays.toISOString())), ['policy.decision', 'approval.decided', 'agent.exit'], 'an event at exactly that time is kept');
  t.same(kinds(decisions('--since', new Date(at.twoDays.getTime() + 1).toISOString())), ['approval.decided', 'agent.exit'], 'a millisecond later it is not');
  t.same(decisions('--since', new Date(now + DAY).toISOString()), [], 'a time after every event');
});

t.test('bad --since input: exit 2 and a message saying what is accepted', async (t) => {
  for (const bad of ['yesterday', '30x', '5min', '12 h', '']) {
    const r = audit('--since', bad);
    t.equal(r.code, 2, `--since ${JSON.stringify(bad)}${r.signal ? ` (ended by ${r.signal} after ${r.ms} ms)` : ''}`);
    t.match(r.stderr, `--since ${JSON.stringify(bad)} is neither an ISO-8601 time nor an age such as 30m, 12h or 7d`);
  }
  t.match(audit('stray'), { code: 2, stderr: /unexpected argument stray/ });
});

t.test('--since: an age counts back from now; an ISO time is normalised', async (t) => {
  const fixed = Date.parse('2026-03-10T12:00:00.000Z');
  t.equal(timeOrAge('--since', '30m', fixed), '2026-03-10T11:30:00.000Z');
  t.equal(timeOrAge('--since', '12h', fixed), '2026-03-10T00:00:00.000Z');
  t.equal(timeOrAge('--since', '7d', fixed), '2026-03-03T12:00:00.000Z');
  t.equal(timeOrAge('--since', '2026-03-01T08:00:00+01:00', fixed), '2026-03-01T07:00:00.000Z');
  t.throws(() => timeOrAge('--since', '7w', fixed), /--since "7w" is neither an ISO-8601 time nor an age/);
});

t.test('--agent by id and by name, alone and with --since', async (t) => {
  t.same(kinds(decisions('--agent', 'agt_old')), ['agent.spawn', 'agent.exit'], 'by id');
  t.same(kinds(decisions('--agent', 'archiver')), ['agent.spawn', 'agent.exit'], 'by name');
  t.same(kinds(decisions('--agent', 'releaser')), ['approval.decided'], 'an approval by the agent name it was asked for');
  t.same(kinds(decisions('--agent', 'agt_b')), ['policy.decision']);
  t.same(decisions('--agent', 'nobody'), [], 'an agent with no decision');
  t.same(kinds(decisions('--agent', 'agt_old', '--since', '1d')), ['agent.exit'], 'both filters apply');
});
