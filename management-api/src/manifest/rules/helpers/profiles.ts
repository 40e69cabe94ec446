// The agent profiles of [agents.profiles], as [name, profile] pairs in manifest order.
import type { Manifest } from '../../generated/manifest-types.js';

/** One `[agents.profiles.<name>]` table. */
export type AgentProfileEntry = NonNullable<Manifest['agents']['profiles'][string]>;

/** Every declared profile with its name. */
export function profileEntries(m: Pick<Manifest, 'agents'>): Array<[string, AgentProfileEntry]> {
  return Object.entries(m.agents.profiles).filter((e): e is [string, AgentProfileEntry] => e[1] !== undefined);
}
