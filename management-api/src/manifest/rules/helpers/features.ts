// The optional features as rules see them (schema/box-facts.json): the exception each needs,
// whether it is on, and the parts this build cannot provide.
import type { Manifest } from '../../generated/manifest-types.js';
import { boxFacts, settingOn, settingText, type Availability, type BoxFactsShape } from '../../../box-facts.js';
import type { RuleContext } from '../rule.js';
import type { ExceptionName } from './exceptions.js';

/** A feature setting and the exception it needs. */
export interface FeatureNeed {
  segments: Array<string | number>;
  /** How the setting reads in TOML, e.g. `features.gpu = "cuda"`. */
  setting: string;
  exception: ExceptionName;
  enabled: boolean;
}

/** Every feature (each needs an exception), whether it is on, and which exception it needs. */
export function featureNeeds(m: Manifest): FeatureNeed[] {
  return Object.entries(boxFacts.features as BoxFactsShape['features']).map(([exception, f]) => ({
    segments: [...f.setting.key],
    setting: settingText(f.setting),
    exception: exception as ExceptionName,
    enabled: settingOn(m, f.setting),
  }));
}

/** A part the manifest turns on, and whether this build provides it. */
export interface RequestedPart extends Availability {
  /** `feature:<name>` or `program:<name>`. */
  part: string;
  segments: Array<string | number>;
  /** How the setting that asks for it reads in TOML, e.g. `features.desktop = true`. */
  setting: string;
  /** How to turn it off: `set <key> = false` for a flag, `remove <key>` otherwise. */
  off: string;
}

/**
 * The features and box programmes the manifest turns on, with their availability: the facts
 * file's, unless the context says the build provides a part (`provides`, by part name).
 */
export function requestedParts(m: Manifest, context: RuleContext): RequestedPart[] {
  const parts: Array<[string, Availability & { setting?: BoxFactsShape['features'][string]['setting'] }]> = [
    ...Object.entries(boxFacts.features as BoxFactsShape['features']).map(([name, f]): [string, typeof f] => [`feature:${name}`, f]),
    ...Object.entries(boxFacts.programs.box as BoxFactsShape['programs']['box']).map(([name, p]): [string, typeof p] => [`program:${name}`, p]),
  ];
  return parts
    .filter(([, p]) => p.setting !== undefined && settingOn(m, p.setting))
    .map(([part, p]) => ({
      part,
      segments: [...p.setting!.key],
      setting: settingText(p.setting!),
      off: p.setting!.value === true ? `set ${p.setting!.key.join('.')} = false` : `remove ${p.setting!.key.join('.')}`,
      available: p.available || (context.provides ?? []).includes(part),
      ...(p.reason === undefined ? {} : { reason: p.reason }),
      ...(p.instead === undefined ? {} : { instead: p.instead }),
    }));
}
