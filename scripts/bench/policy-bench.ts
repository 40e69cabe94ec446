// Policy benchmark: one decision under 1,000 rules through the compiled index, beside a plain scan of the same compiled rules in the same run; compile and shadow-analysis times.
import { performance } from 'node:perf_hooks';
import { compilePolicy, type CompiledPolicy } from '../../management-api/src/policy/compile.js';
import { evaluate } from '../../management-api/src/policy/evaluate.js';
import { prepareAction } from '../../management-api/src/policy/prepare.js';
import { shadowedRules } from '../../management-api/src/policy/shadowing.js';
import type { PolicyAction, PolicyDecision, PolicyRule } from '../../management-api/src/policy/policy-types.js';
import { median, quantile, table } from './stats.js';

const RULES = 1_000;
const DECISIONS = 200_000;

/** 1,000 rules of every kind: exact hosts, suffixes, ports, methods and paths, agents, commands, providers. */
function rules(): PolicyRule[] {
  const out: PolicyRule[] = [];
  const decisions = ['allow', 'deny', 'ask'] as const;
  for (let i = 0; out.length < RULES; i++) {
    const decision = decisions[i % 3]!;
    switch (i % 10) {
      case 0:
      case 1:
      case 2:
      case 3:
        out.push({ action: 'egress', decision, host: `h${i}.example${i % 40}.com`, ...(i % 8 === 0 ? { port: 443 } : {}) });
        break;
      case 4:
        out.push({ action: 'egress', decision, host: `*.example${i % 40}.com`, ...(i % 20 === 4 ? { agent: `team-${i % 7}*` } : {}) });
        break;
      case 5:
        out.push({ action: 'egress', decision, host: `api${i}.example${i % 40}.com`, method: 'POST', path: `/v${i % 5}/*/push` });
        break;
      case 6:
        out.push({ action: 'spawn', decision, command: i % 2 ? `tool${i}` : `/opt/bin/tool${i}`, ...(i % 4 === 0 ? { args: ['run', `*${i}`] } : {}) });
        break;
      case 7:
        out.push({ action: 'spawn', decision, agent: `worker-${i % 13}*`, cwd: `repos/r${i}/*` });
        break;
      case 8:
        out.push({ action: 'provider', decision, provider: `p${i % 60}`, ...(i % 3 === 0 ? { agent: `team-${i % 9}*` } : {}) });
        break;
      case 9:
        out.push({ action: 'egress', decision, agent: `bot-${i}`, port: 1024 + (i % 100) });
        break;
    }
  }
  return out;
}

/** A mix of actions: hits on exact hosts and suffixes, misses, plain HTTP, spawns and provider calls. */
function actions(count: number): PolicyAction[] {
  const out: PolicyAction[] = [];
  for (let i = 0; i < count; i++) {
    switch (i % 8) {
      case 0:
      case 1:
        out.push({ kind: 'egress', agent: `team-${i % 7}x`, host: `h${(i * 10) % 2000}.example${(i * 10) % 40}.com`, port: 443 });
        break;
      case 2:
        out.push({ kind: 'egress', agent: `bot-${i % 500}`, host: `deep.sub.example${i % 40}.com`, port: 1024 + (i % 100) });
        break;
      case 3:
        out.push({
          kind: 'egress',
          agent: 'team-1',
          host: `api${(i % 100) * 10 + 5}.example${((i % 100) * 10 + 5) % 40}.com`,
          port: 80,
          method: 'POST',
          path: `/v${i % 5}/repo/push`,
        });
        break;
      case 4:
        out.push({ kind: 'egress', host: `nowhere${i}.org`, port: 443 });
        break;
      case 5:
        out.push({
          kind: 'spawn',
          agent: `worker-${i % 13}`,
          command: `/usr/bin/tool${(i % 100) * 10 + 6}`,
          args: ['run', `x${i}`],
          cwd: `repos/r${(i % 100) * 10 + 7}/src`,
        });
        break;
      case 6:
        out.push({ kind: 'provider', provider: `p${i % 60}`, agent: `team-${i % 9}a` });
        break;
      case 7:
        out.push({ kind: 'spawn', agent: 'x', command: 'unknown', args: [] });
        break;
    }
  }
  return out;
}

/** The baseline: every rule of the action's kind tested, the highest rank kept — no index, the same compiled rules. */
function scan(policy: CompiledPolicy, action: PolicyAction): PolicyDecision {
  const prepared = prepareAction(action);
  let best: CompiledPolicy['rules'][number] | undefined;
  for (const rule of policy.rules) if (rule.kind === prepared.kind && (best === undefined || rule.rank > best.rank) && rule.test(prepared)) best = rule;
  return best?.verdict ?? policy.defaults[action.kind];
}

/** Per-decision times (µs) of `decide` over `work`, measured one by one. */
function times(work: readonly PolicyAction[], decide: (a: PolicyAction) => PolicyDecision): number[] {
  const out = new Array<number>(work.length);
  for (let i = 0; i < work.length; i++) {
    const t0 = process.hrtime.bigint();
    decide(work[i]!);
    out[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  return out;
}

/** Run the policy benchmark and return its report. */
export async function runPolicyBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const list = rules();
  const section = { default: 'allow' as const, autonomy: 'autonomous' as const, rules: list };
  const compileStart = performance.now();
  const policy = compilePolicy(section);
  const compileMs = performance.now() - compileStart;
  const shadowStart = performance.now();
  const shadowed = shadowedRules(policy, list).length;
  const shadowMs = performance.now() - shadowStart;
  const work = actions(DECISIONS);
  // The index and the scan must agree before either is timed.
  for (const a of work.slice(0, 5_000))
    if (evaluate(policy, a).rule?.index !== scan(policy, a).rule?.index) throw new Error(`index and scan disagree on ${JSON.stringify(a)}`);
  times(work.slice(0, 20_000), (a) => evaluate(policy, a)); // warm-up (JIT)
  times(work.slice(0, 20_000), (a) => scan(policy, a));
  // Interleaved halves, so both see the same machine state.
  const half = DECISIONS / 2;
  const indexed = [...times(work.slice(0, half), (a) => evaluate(policy, a)), ...times(work.slice(half), (a) => evaluate(policy, a))];
  const naive = [...times(work.slice(half), (a) => scan(policy, a)), ...times(work.slice(0, half), (a) => scan(policy, a))];
  const row = (name: string, s: number[]) => [
    name,
    median(s).toFixed(2),
    quantile(s, 0.99).toFixed(2),
    quantile(s, 0.999).toFixed(2),
    s.reduce((m, x) => Math.max(m, x), 0).toFixed(1),
  ];
  const figures = {
    rules: RULES,
    decisions: DECISIONS,
    compileMs,
    shadowAnalysisMs: shadowMs,
    shadowed,
    indexedUs: { p50: median(indexed), p99: quantile(indexed, 0.99), p999: quantile(indexed, 0.999) },
    scanUs: { p50: median(naive), p99: quantile(naive, 0.99), p999: quantile(naive, 0.999) },
  };
  const text = [
    `Policy: one decision under ${RULES} rules (egress exact hosts and suffixes, methods and paths, agents, spawns, providers), ${DECISIONS} mixed actions, each timed alone (µs):`,
    table(['decision', 'p50', 'p99', 'p99.9', 'max'], [row('compiled index (evaluate)', indexed), row('baseline: scan of the same rules', naive)]),
    `compile ${compileMs.toFixed(1)} ms; shadow analysis (W022) ${shadowMs.toFixed(1)} ms (${shadowed} shadowed rules found); target: p99 ≤ 50 µs`,
  ].join('\n');
  return { text, json: figures };
}
