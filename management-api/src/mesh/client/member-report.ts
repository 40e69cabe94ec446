// What a mesh client tells its host about itself: identity, image, manifest, adapters, API endpoint, health and capacity.
import os from 'node:os';
import type { AdapterResolver } from '../../adapters/resolver.js';
import { isSlotUsable } from '../../adapters/slot-state.js';
import type { ReadinessSources } from '../../probes/readiness-sources.js';
import type { MemberReport } from './federation-client.js';

/** Free memory as the box's cgroup sees it where Node can tell (process.availableMemory), else the host's. */
function freeMemoryBytes(): number {
  const available = (process as { availableMemory?: () => number }).availableMemory?.();
  return Math.max(0, Math.floor(available ?? os.freemem()));
}

/** The report of this box, read from the live resolver and readiness at every call (both asked for then: the client reports only once the API listens). */
export function memberReport(box: {
  pubkey: string;
  name: string;
  imageHash: string;
  manifestSha256: string;
  resolver: () => AdapterResolver;
  probes: () => ReadinessSources | undefined;
}): MemberReport {
  const capacity = async (): Promise<{ agents_running: number; free_memory_bytes: number }> => {
    let running = 0;
    const orchestrator = box
      .resolver()
      .statuses()
      .find((s) => s.slot === 'orchestrator');
    if (orchestrator && orchestrator.impl !== 'off' && isSlotUsable(orchestrator.state)) {
      // A failing listing is reported as none running rather than holding the heartbeat back.
      running = await box
        .resolver()
        .slot('orchestrator')
        .list()
        .then((agents) => agents.filter((a) => a.state === 'starting' || a.state === 'running').length)
        .catch(() => 0);
    }
    return { agents_running: running, free_memory_bytes: freeMemoryBytes() };
  };
  return {
    async registration(apiEndpoint) {
      const statuses = box.resolver().statuses();
      return {
        pubkey: box.pubkey,
        image_hash: box.imageHash,
        manifest_sha256: box.manifestSha256,
        adapters: Object.fromEntries(statuses.map((s) => [s.slot, s.impl])),
        contract_versions: Object.fromEntries(statuses.map((s) => [s.slot, s.contractVersion])),
        api_endpoint: apiEndpoint,
        capacity: await capacity(),
        name: box.name,
      };
    },
    async beat() {
      const statuses = box.resolver().statuses();
      const ready = box.probes()?.readiness.ready ?? false;
      const degraded = statuses.some((s) => !isSlotUsable(s.state));
      return {
        health: { ready, status: ready && !degraded ? 'ok' : 'degraded', slots: Object.fromEntries(statuses.map((s) => [s.slot, s.state])) },
        capacity: await capacity(),
      };
    },
  };
}
