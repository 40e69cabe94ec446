// `agentbox policy test --action …`: which [policy] rule decides one action of a manifest, why, and what becomes of it (an ask settled by autonomy).
import { parseArgs } from 'node:util';
import { loadManifestFile, type NormalizedManifest } from '../../management-api/src/manifest/load-manifest.js';
import { formatDiagnostic } from '../../management-api/src/manifest/diagnostics.js';
import { brokeredProviders } from '../../management-api/src/manifest/rules/helpers/providers.js';
import { compilePolicy } from '../../management-api/src/policy/compile.js';
import { evaluate } from '../../management-api/src/policy/evaluate.js';
import { ruleName, settle } from '../../management-api/src/policy/settle.js';
import { ACTION_KINDS, AUTONOMIES, type ActionKind, type Autonomy, type PolicyAction } from '../../management-api/src/policy/policy-types.js';
import { Allowlist } from '../../management-api/src/egress/allowlist.js';
import type { SpawnRequest } from '../../management-api/src/adapters/orchestrator/orchestrator-adapter.js';
import { resolveSpawn, type AgentProfiles, type SpawnBody } from '../../management-api/src/adapters/orchestrator/agent-profiles.js';
import { AdapterInputError } from '../../management-api/src/adapter-errors.js';
import { ruleContextFrom, targetArchHelp } from './rule-context.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox policy test --action spawn|egress|provider|egress-change [fields] [--file FILE] [--json]

Print which rule of FILE's [policy] (default ./agentbox.toml) decides one action, the fields that
matched (or that the default applied), the policy version, and the outcome: an ask is refused at
once for an autonomous agent, and for a supervised one held as an approval request until an
operator decides (agentbox approvals) or policy.approval_timeout_sec denies it. For
egress and provider actions it also says when the box refuses the action before the policy is
asked (the egress allowlist, an undeclared provider): a policy never widens either.

Fields, by action:
  spawn          --agent NAME --command CMD [--arg A]… [--cwd DIR] (an ad-hoc spawn), or
                 --profile NAME [--agent NAME] [--arg A]… [--cwd DIR] (a spawn of agents.profiles.NAME:
                 its command, args and cwd, as POST /v1/agents {"profile"} resolves them)
  egress         --host HOST --port N [--method M --path P (plain HTTP only)] [--agent NAME]
  provider       --provider NAME [--agent NAME] (no agent: an operator's call)
  egress-change  [--host ENTRY] [--port N] (what the change adds; neither: it only removes)

Options:
  --autonomy A        autonomous or supervised (default: the manifest's policy.autonomy)
  --file FILE         the manifest (default ./agentbox.toml)
  --json              print {action, decision, rule, matched, reason, version, outcome, before} as JSON
${targetArchHelp}
  -h, --help          show this help

Exit codes: 0 decided (whatever the decision), 1 the manifest has errors, 2 unreadable / usage.`;

const FIELD_OPTIONS: Readonly<Record<ActionKind, readonly string[]>> = {
  spawn: ['profile', 'agent', 'command', 'arg', 'cwd'],
  egress: ['agent', 'host', 'port', 'method', 'path'],
  provider: ['agent', 'provider'],
  'egress-change': ['host', 'port'],
};

type Values = Record<string, string | string[] | boolean | undefined>;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      action: { type: 'string' },
      profile: { type: 'string' },
      agent: { type: 'string' },
      command: { type: 'string' },
      arg: { type: 'string', multiple: true },
      cwd: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      method: { type: 'string' },
      path: { type: 'string' },
      provider: { type: 'string' },
      autonomy: { type: 'string' },
      file: { type: 'string' },
      json: { type: 'boolean' },
      'target-arch': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected ${JSON.stringify(positionals[0])}: the manifest is given with --file`);
  const kind = kindFrom(values);
  const autonomy = values.autonomy;
  if (autonomy !== undefined && !(AUTONOMIES as readonly string[]).includes(autonomy))
    throw new UsageError(`--autonomy must be autonomous or supervised, not "${autonomy}"`);
  const file = values.file ?? 'agentbox.toml';
  const loaded = await loadManifestFile(file, ruleContextFrom(values['target-arch']));
  for (const d of loaded.diagnostics) process.stderr.write(`${formatDiagnostic(file, d)}\n`);
  if (loaded.exitCode !== 0 || !loaded.manifest) return loaded.exitCode || 1;
  const action = actionFrom(values, kind, loaded.manifest.agents.profiles);
  const policy = compilePolicy(loaded.manifest.policy);
  const decision = evaluate(policy, action);
  // Offline there is no queue: a supervised ask is shown as held, which is what the box would do with it.
  const timeout = loaded.manifest.policy.approval_timeout_sec;
  const held = {
    hold: async () => ({ approved: false, reason: `held for an operator's decision (agentbox approvals); denied after ${timeout} s without one` }),
  };
  const outcome = await settle(decision, action, (autonomy as Autonomy | undefined) ?? policy.autonomy, held);
  const isHeld = decision.decision === 'ask' && outcome.autonomy === 'supervised';
  const before = refusedBefore(loaded.manifest, action);
  if (values.json) {
    const report = {
      action,
      decision: decision.decision,
      rule: decision.rule,
      matched: decision.matched,
      reason: decision.reason,
      version: decision.version,
      outcome: { allowed: outcome.allowed, held: isHeld, autonomy: outcome.autonomy, reason: outcome.reason },
      before: before ?? null,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}
`);
    return 0;
  }
  const lines = [
    `decision: ${decision.decision}`,
    `rule:     ${decision.rule === null ? 'policy.default (no rule matches)' : `${ruleName(decision)} = policy.rules[${decision.rule.index}]`}`,
    `why:      ${decision.reason}`,
    `outcome:  ${outcome.allowed ? 'allowed' : isHeld ? 'held' : 'denied'}${outcome.allowed ? '' : ` — ${outcome.reason}`}${decision.decision === 'ask' ? ` (autonomy ${outcome.autonomy})` : ''}`,
    `policy:   ${decision.version}`,
  ];
  if (before) lines.push(`before:   ${before}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** The action kind, before the manifest is read; a UsageError names an option of another kind. */
function kindFrom(values: Values): ActionKind {
  const kind = values['action'] as string | undefined;
  if (kind === undefined) throw new UsageError('--action is required: spawn, egress, provider or egress-change');
  if (!(ACTION_KINDS as readonly string[]).includes(kind)) throw new UsageError(`--action must be spawn, egress, provider or egress-change, not "${kind}"`);
  const k = kind as ActionKind;
  for (const option of ['profile', 'agent', 'command', 'arg', 'cwd', 'host', 'port', 'method', 'path', 'provider']) {
    if (values[option] !== undefined && !FIELD_OPTIONS[k].includes(option))
      throw new UsageError(
        `--${option} is not a field of ${k === 'spawn' || k === 'provider' ? 'a' : 'an'} ${k} action (its fields: ${FIELD_OPTIONS[k].map((o) => `--${o}`).join(', ')})`,
      );
  }
  return k;
}

/** The action the options describe (a spawn by profile resolved against the manifest's profiles); a UsageError names a missing field. */
function actionFrom(values: Values, k: ActionKind, profiles: AgentProfiles): PolicyAction {
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const need = (name: string): string => text(name) ?? fail(`${k === 'spawn' || k === 'provider' ? 'a' : 'an'} ${k} action needs --${name}`);
  const port = (required: boolean): number | undefined => {
    const raw = required ? need('port') : text('port');
    if (raw === undefined) return undefined;
    if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) throw new UsageError(`--port must be a port 1-65535, not "${raw}"`);
    return Number(raw);
  };
  switch (k) {
    case 'spawn': {
      if (text('profile') === undefined && text('agent') === undefined) fail('a spawn action needs --agent NAME and --command CMD, or --profile NAME');
      if (text('profile') === undefined) need('command');
      const body = {
        ...optional('profile', text('profile')),
        ...optional('name', text('agent')),
        ...optional('command', text('command')),
        ...optional('args', values['arg'] as string[] | undefined),
        ...optional('cwd', text('cwd')),
      };
      const spawn = spawnOf(body, profiles);
      return {
        kind: 'spawn',
        agent: spawn.name,
        command: spawn.command,
        args: spawn.args,
        ...(spawn.cwd !== undefined ? { cwd: spawn.cwd } : {}),
        ...(spawn.profile !== undefined ? { profile: spawn.profile } : {}),
      };
    }
    case 'egress': {
      if ((text('method') === undefined) !== (text('path') === undefined))
        throw new UsageError('--method and --path go together (a plain HTTP request); leave both out for a CONNECT');
      return {
        kind: 'egress',
        host: need('host'),
        port: port(true)!,
        ...(text('agent') !== undefined ? { agent: text('agent')! } : {}),
        ...(text('method') !== undefined ? { method: text('method')!, path: text('path')! } : {}),
      };
    }
    case 'provider':
      return { kind: 'provider', provider: need('provider'), ...(text('agent') !== undefined ? { agent: text('agent')! } : {}) };
    case 'egress-change': {
      const p = port(false);
      return { kind: 'egress-change', ...(text('host') !== undefined ? { host: text('host')! } : {}), ...(p !== undefined ? { port: p } : {}) };
    }
  }
}

/** What the box decides on: the request a profile stands for, resolved as POST /v1/agents resolves it. */
function spawnOf(body: SpawnBody, profiles: AgentProfiles): SpawnRequest {
  try {
    return resolveSpawn(body, profiles);
  } catch (err) {
    if (err instanceof AdapterInputError) fail(err.message.replace('leave it out, or spawn ad hoc without "profile"', 'leave out --command, or --profile'));
    throw err;
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function fail(message: string): never {
  throw new UsageError(message);
}

/** What the box refuses before [policy] is asked, from the manifest alone (the allowlist may change at run time). */
function refusedBefore(m: NormalizedManifest, action: PolicyAction): string | undefined {
  if (action.kind === 'egress') {
    if (!m.sandbox.enabled) return 'no egress proxy runs (sandbox.enabled = false): the policy is never asked about egress';
    const list = new Allowlist({ allow_domains: [...m.sandbox.egress.allow_domains], allow_ports: [...m.sandbox.egress.allow_ports] });
    if (list.match(action.host) === undefined)
      return `the egress proxy refuses ${action.host} first (domain-not-listed: no sandbox.egress.allow_domains entry admits it)`;
    if (!list.allowsPort(action.port)) return `the egress proxy refuses port ${action.port} first (port-not-listed: not in sandbox.egress.allow_ports)`;
  }
  if (action.kind === 'provider' && !brokeredProviders(m).some((p) => p.name === action.provider))
    return `the broker serves no provider ${action.provider} (declared under [providers], enabled, with a base_url): the call is refused first`;
  return undefined;
}
