// How a rule names a key: a finding at a JSON pointer, and the TOML key path shown in messages.
import { pointerToKeyPath, toPointer } from '../../diagnostics.js';
import type { RuleFinding } from '../rule.js';

/** A finding at the key named by `segments`. */
export function finding(segments: ReadonlyArray<string | number>, message: string, hint: string): RuleFinding {
  return { pointer: toPointer(segments), message, hint };
}

/** `['programs', 'web', 'port']` → `programs.web.port`, quoted the way TOML needs. */
export function keyPath(segments: ReadonlyArray<string | number>): string {
  return pointerToKeyPath(toPointer(segments));
}
