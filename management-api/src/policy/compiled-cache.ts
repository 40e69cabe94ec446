// One compiled policy per [policy] table: compiled on first use and kept while the (frozen) manifest object lives, so every decision shares it.
import { compilePolicy, type CompiledPolicy } from './compile.js';
import type { PolicySection } from './policy-types.js';

const compiled = new WeakMap<PolicySection, CompiledPolicy>();

/** The compiled form of `section` (the manifest is frozen once loaded, so its identity is its version). */
export function policyOf(section: PolicySection): CompiledPolicy {
  let policy = compiled.get(section);
  if (policy === undefined) {
    policy = compilePolicy(section);
    compiled.set(section, policy);
  }
  return policy;
}
