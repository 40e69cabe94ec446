// The form of an agent's name, and of the names several agents started at once take (NAME-1 … NAME-N): the box checks them, the CLI and the dashboard make them.

/** The longest agent name. */
export const AGENT_NAME_MAX = 64;

/**
 * Agent names: what crash loops are counted by and logs show. No dot: an agent's memory
 * namespaces are `agent.<name>` and `agent.<name>.<more>`, so with a dot in names `team` would
 * own `agent.team.x`, the namespace of an agent named `team.x`.
 */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** `base-1` … `base-count`, as `agentbox run --count` and the dashboard's fork name several agents started at once. */
export function numberedNames(base: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${base}-${i + 1}`);
}

/** Why numbered names of `base` would not all be names the box accepts (the longest, `base-count`, is past AGENT_NAME_MAX), or undefined when they fit. */
export function numberedNamesTooLong(base: string, count: number): string | undefined {
  const longest = `${base}-${count}`;
  return longest.length > AGENT_NAME_MAX ? `${JSON.stringify(longest)} is longer than an agent name may be (${AGENT_NAME_MAX} characters)` : undefined;
}
