// What a refused egress request tells the agent and the operator: the host, the port, the rule that refused it and the manifest key that would allow it.

/** One refusal as GET /v1/agents/{id} lists it (the dashboard displays this shape). */
export interface Refusal {
  /** When the API learnt of it (ISO 8601). */
  at: string;
  host: string;
  port: number;
  /** The rule that refused: domain-not-listed, port-not-listed, loopback, unresolvable … */
  reason: string;
  /** What would allow it: a manifest key and the value to add, or what to change instead. */
  allowWith: string;
}

/** Address classes the proxy refuses unless the host is listed by its exact name (address.ts). */
const ADDRESS_CLASSES = new Set(['unspecified', 'loopback', 'private', 'cgnat', 'link-local', 'metadata', 'multicast', 'reserved']);

/**
 * The change that would let `host:port` through after a refusal for `reason`. A host matched
 * only through `*.suffix` whose address is in a refused range is let through by listing its
 * exact name (decision.ts), so that is what is named then.
 */
export function allowWith(host: string, port: number, reason: string): string {
  if (reason === 'domain-not-listed' || ADDRESS_CLASSES.has(reason)) return `sandbox.egress.allow_domains += ${JSON.stringify(host)}`;
  if (reason === 'port-not-listed') return `sandbox.egress.allow_ports += ${port}`;
  if (reason === 'unresolvable') return `nothing in the manifest: ${JSON.stringify(host)} does not resolve from the box`;
  if (reason === 'too-many-connections') return 'fewer connections at once (each agent holds at most 128 through the proxy)';
  if (reason === 'no-credential' || reason === 'bad-credential') return "the agent's own proxy URL (HTTPS_PROXY) with its credential";
  if (reason === 'policy-denied') return 'a [policy] rule that allows it (agentbox policy test --action egress shows which rule decides)';
  return 'see docs/user/sandbox.md, "Egress"';
}

/** `host` as a header or a status line may carry it: printable ASCII only, at most 255 characters. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 255);
}

/**
 * The `X-Agentbox-Refusal` header value: `host="…"; port=N; rule=…; allow-with=…` (printable
 * ASCII only), and `; policy="…"` naming the [policy] rule and why when the policy refused.
 */
export function refusalHeader(host: string, port: number, reason: string, detail?: string): string {
  const policy = detail !== undefined ? `; policy=${JSON.stringify(printable(detail))}` : '';
  return `host=${JSON.stringify(printable(host))}; port=${port}; rule=${reason}; allow-with=${printable(allowWith(printable(host), port, reason))}${policy}`;
}

/** The body of a refusal: one line a person (or an agent reading its tool's error) can act on. */
export function refusalBody(host: string, port: number, reason: string, detail?: string): string {
  const shown = printable(host);
  if (detail !== undefined)
    return `agentbox egress refused ${shown}:${port}: ${reason}: ${printable(detail)}; to allow it: ${allowWith(shown, port, reason)} (agentbox.toml)\n`;
  return `agentbox egress refused ${shown}:${port}: ${reason}; to allow it: ${allowWith(shown, port, reason)} (agentbox.toml, or PUT /v1/sandbox/egress)\n`;
}

/**
 * The recent refusals of each agent, as the API learns them from the proxy's decision stream:
 * the last {@link RefusalLog.PER_AGENT} per agent, newest last, for the last
 * {@link RefusalLog.AGENTS} agents refused anything (older agents' lists are forgotten first).
 */
export class RefusalLog {
  static readonly PER_AGENT = 20;
  static readonly AGENTS = 512;
  readonly #byAgent = new Map<string, Refusal[]>();

  /** Record one refusal of `agent`. */
  add(agent: string, refusal: Omit<Refusal, 'allowWith' | 'at'>, at: Date = new Date()): void {
    const list = this.#byAgent.get(agent) ?? [];
    // Re-inserted so that the Map's order is by latest refusal: the first key is the one forgotten.
    this.#byAgent.delete(agent);
    this.#byAgent.set(agent, list);
    list.push({ at: at.toISOString(), ...refusal, allowWith: allowWith(refusal.host, refusal.port, refusal.reason) });
    if (list.length > RefusalLog.PER_AGENT) list.splice(0, list.length - RefusalLog.PER_AGENT);
    if (this.#byAgent.size > RefusalLog.AGENTS) this.#byAgent.delete(this.#byAgent.keys().next().value!);
  }

  /** The agent's recent refusals, oldest first (a copy). */
  of(agent: string): Refusal[] {
    return [...(this.#byAgent.get(agent) ?? [])];
  }
}
