// Every TCP port the box will listen on, and the key (or feature) that sets it.
import type { Manifest } from '../../generated/manifest-types.js';
import type { DeepReadonly } from '../../deep-freeze.js';
import { boxFacts, settingOn, valueAt, type BoxFactsShape } from '../../../box-facts.js';
import { programEntries } from './programs.js';

/** One TCP port the box listens on, and the key that sets it. */
export interface PortUse {
  segments: Array<string | number>;
  port: number;
  /** How to name this use in a message, when the key alone does not say it (a feature's fixed port). */
  label?: string;
}

/**
 * Every port the box will listen on: enabled features' fixed ports first (they cannot be moved,
 * so a key that collides with one is the one to change), then the box's own programmes' ports
 * (the API, metrics, the relay when enabled; schema/box-facts.json portKeys), then programme ports.
 */
export function portUses(m: DeepReadonly<Manifest>): PortUse[] {
  const uses: PortUse[] = [];
  for (const feature of Object.values(boxFacts.features as BoxFactsShape['features'])) {
    if (!settingOn(m, feature.setting)) continue;
    for (const p of feature.programs) {
      if (p.port !== 0)
        uses.push({ segments: [...feature.setting.key], port: p.port, label: `${feature.setting.key.join('.')} (its programme listens on ${p.port})` });
    }
  }
  for (const p of Object.values(boxFacts.programs.box as BoxFactsShape['programs']['box'])) {
    if (p.setting && !settingOn(m, p.setting)) continue;
    for (const key of p.portKeys ?? []) uses.push({ segments: [...key], port: valueAt(m, key) as number });
  }
  for (const [name, p] of programEntries(m)) {
    if (p.port !== 0) uses.push({ segments: ['programs', name, 'port'], port: p.port });
  }
  return uses;
}
