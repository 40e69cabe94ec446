// Publishing signed events to every configured relay, each through its own link and queue; the
// box counts as reaching the relays while at least one of them is connected.
import type { Logger } from 'pino';
import type { EventTemplate, VerifiedEvent } from 'nostr-tools/pure';
import type { BoxIdentity } from './identity.js';
import type { MeshMetrics } from './mesh-metrics.js';
import { RelayLink, type RelayLinkTiming } from './relay-link.js';

/** Which relays are configured and which are connected now. */
export interface RelayStatus {
  configured: string[];
  reachable: string[];
}

/** Signs with the box identity and fans out to one {@link RelayLink} per relay. */
export class RelayPublisher {
  readonly #links: RelayLink[];
  readonly #listeners = new Set<() => void>();

  constructor(
    relays: readonly string[],
    private readonly deps: { identity: BoxIdentity; logger: Logger; metrics: MeshMetrics; timing: RelayLinkTiming },
  ) {
    const onChange = (): void => {
      for (const listener of this.#listeners) listener();
    };
    this.#links = relays.map((url) => new RelayLink(url, { logger: deps.logger, metrics: deps.metrics, timing: deps.timing, onChange }));
  }

  /** Connect to every relay (in the background; reachability changes are announced). */
  start(): void {
    for (const link of this.#links) link.start();
  }

  /** Call `listener` whenever a relay becomes reachable or unreachable. */
  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  /** The configured and the connected relays. */
  status(): RelayStatus {
    return { configured: this.#links.map((l) => l.url), reachable: this.#links.filter((l) => l.reachable).map((l) => l.url) };
  }

  /** Sign `template` as the box and queue it for every relay; returns the signed event. */
  publish(template: EventTemplate): VerifiedEvent {
    const event = this.deps.identity.sign(template);
    for (const link of this.#links) link.enqueue(event);
    return event;
  }

  /** Close every link; queued events are abandoned. */
  close(): void {
    this.#listeners.clear();
    for (const link of this.#links) link.close();
  }
}
