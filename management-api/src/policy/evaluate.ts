// The policy decision: a pure function of a compiled policy and one action — the highest-ranked matching rule, found through the index, or the default.
import type { CompiledPolicy, CompiledRule, KindIndex, PreparedAction } from './compile.js';
import { prepareAction } from './prepare.js';
import type { PolicyAction, PolicyDecision } from './policy-types.js';

/** Decide `action` under `policy`. */
export function evaluate(policy: CompiledPolicy, action: PolicyAction): PolicyDecision {
  return evaluatePrepared(policy, prepareAction(action));
}

/** Decide an action already prepared (prepare.ts). */
export function evaluatePrepared(policy: CompiledPolicy, action: PreparedAction): PolicyDecision {
  const index = policy.index[action.kind];
  let best: CompiledRule | undefined;
  // Each list is in rank order: its first match is its best, and a list stops at the best so far.
  const consider = (list: readonly CompiledRule[] | undefined): void => {
    if (list === undefined) return;
    for (const rule of list) {
      if (best !== undefined && rule.rank <= best.rank) return;
      if (rule.test(action)) {
        best = rule;
        return;
      }
    }
  };
  switch (action.kind) {
    case 'egress':
    case 'egress-change':
      if (action.host !== undefined) considerHost(index, action.host.address ?? action.host.name, action.host.name !== undefined, consider);
      if (action.port !== undefined) consider(index.exact.get(`port:${action.port}`));
      break;
    case 'provider':
      if (action.provider !== undefined) consider(index.exact.get(action.provider));
      break;
    case 'spawn':
      consider(index.exact.get(`b:${action.commandBase}`));
      consider(index.exact.get(`f:${action.command}`));
      break;
  }
  consider(index.rest);
  return best?.verdict ?? policy.defaults[action.kind];
}

/** The exact entry for `host`, then every suffix of a name (`b.example.com`, `example.com`, `com`). */
function considerHost(index: KindIndex, host: string, isName: boolean, consider: (list: readonly CompiledRule[] | undefined) => void): void {
  consider(index.exact.get(host));
  if (!isName || index.suffix.size === 0) return;
  for (let dot = host.indexOf('.'); dot >= 0; dot = host.indexOf('.', dot + 1)) consider(index.suffix.get(host.slice(dot + 1)));
}
