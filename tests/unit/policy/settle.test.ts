// Autonomy: an ask is denied at once for an autonomous agent and, with no approver reachable, for a supervised one; allow and deny stand; the approval seam is the one place a hold would go.
import t from 'tap';
import { compilePolicy } from '../../../management-api/src/policy/compile.js';
import { evaluate } from '../../../management-api/src/policy/evaluate.js';
import { settle, type Approver } from '../../../management-api/src/policy/settle.js';
import { policyEventData } from '../../../management-api/src/policy/audit-record.js';
import type { PolicyAction } from '../../../management-api/src/policy/policy-types.js';

const p = compilePolicy({
  default: 'allow',
  autonomy: 'autonomous',
  rules: [
    { id: 'push', action: 'spawn', decision: 'ask', command: 'git', args: ['push'] },
    { action: 'spawn', decision: 'deny', command: 'rm' },
  ],
});
const push: PolicyAction = { kind: 'spawn', agent: 'w', command: 'git', args: ['push'] };

t.test('autonomous: an ask is denied at once, naming the rule', async (t) => {
  const o = await settle(evaluate(p, push), push, 'autonomous');
  t.equal(o.allowed, false);
  t.equal(o.reason, 'rule 0 ("push") asks for approval; this agent is autonomous');
});

t.test('supervised: with no approver reachable, an ask is denied', async (t) => {
  const o = await settle(evaluate(p, push), push, 'supervised');
  t.equal(o.allowed, false);
  t.equal(o.reason, 'rule 0 ("push") asks for approval; no approver reachable');
});

t.test('supervised: the approval seam decides a held ask; an autonomous agent never reaches it', async (t) => {
  const asked: string[] = [];
  const approver: Approver = {
    hold: async (d) => {
      asked.push(d.reason);
      return { approved: true, reason: 'approved by a test approver' };
    },
  };
  t.equal((await settle(evaluate(p, push), push, 'supervised', approver)).allowed, true);
  t.equal((await settle(evaluate(p, push), push, 'autonomous', approver)).allowed, false);
  t.equal(asked.length, 1);
});

t.test('allow and deny stand whatever the autonomy', async (t) => {
  const rm: PolicyAction = { kind: 'spawn', agent: 'w', command: 'rm', args: [] };
  const ls: PolicyAction = { kind: 'spawn', agent: 'w', command: 'ls', args: [] };
  for (const autonomy of ['autonomous', 'supervised'] as const) {
    const denied = await settle(evaluate(p, rm), rm, autonomy);
    t.equal(denied.allowed, false);
    t.equal(denied.reason, 'rule 1 denies (matched command=rm)');
    t.equal((await settle(evaluate(p, ls), ls, autonomy)).allowed, true);
  }
});

t.test('the audit data carries rule, action, agent, decision, outcome, reason and version', async (t) => {
  const o = await settle(evaluate(p, push), push, 'autonomous');
  t.same(policyEventData(push, o, 'agt_1'), {
    action: 'spawn',
    subject: { name: 'w', command: 'git', args: ['push'], cwd: '.' },
    agent: 'agt_1',
    rule: { index: 0, id: 'push' },
    decision: 'ask',
    outcome: 'denied',
    autonomy: 'autonomous',
    reason: 'rule 0 ("push") asks for approval; this agent is autonomous',
    policy: p.version,
  });
});

t.test('the audit data never carries what looks like a secret', async (t) => {
  const key = 'Zx8kQ2mP9vL4tR7wY1nB6cF3hJ5gD0sAeUiOoKq';
  const leaky: PolicyAction = { kind: 'spawn', agent: 'w', command: 'git', args: ['push', `--token=${key}`, 'https://user:pw@example.com/r.git'] };
  const data = policyEventData(leaky, await settle(evaluate(p, leaky), leaky, 'autonomous'), null);
  t.notOk(JSON.stringify(data).includes(key), 'the key is not recorded');
  t.notOk(JSON.stringify(data).includes(':pw@'), 'nor a password in a URL');
  t.same((data['subject'] as { args: string[] }).args[0], 'push', 'the rest is kept');
});
