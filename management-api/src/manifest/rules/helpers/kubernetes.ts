// What rules about the Kubernetes targets share: whether the manifest is rendered for a cluster,
// the exception volumes a pod would mount, and which exceptions belong to a GPU feature (their
// devices come from a device plugin).
import { boxFacts, type BoxFactsShape } from '../../../box-facts.js';
import type { Manifest } from '../../generated/manifest-types.js';
import type { RuleContext } from '../rule.js';
import { exceptionEntries, parseVolume, type ExceptionName } from './exceptions.js';

/** True when the manifest is rendered as Kubernetes objects or agent-sandbox resources. */
export function onKubernetes(context: RuleContext): boolean {
  return context.target === 'kubernetes' || context.target === 'agent-sandbox';
}

/** The target as `--target` names it, for messages. */
export function targetName(context: RuleContext): string {
  return context.target ?? 'compose';
}

/**
 * Exceptions of the features turned on by `features.gpu`: on a cluster their devices are what the
 * GPU's device plugin hands the pod (`nvidia.com/gpu`, `amd.com/gpu`), so they need no mapping.
 */
export function gpuExceptionNames(): ExceptionName[] {
  return Object.entries(boxFacts.features as BoxFactsShape['features'])
    .filter(([, f]) => f.setting.key.join('.') === 'features.gpu')
    .map(([name]) => name as ExceptionName);
}

/** An exception volume as a rule about the Kubernetes targets sees it. */
export interface ExceptionVolume {
  exception: ExceptionName;
  index: number;
  spec: string;
  host: string;
  container: string;
  mode?: string;
}

/** Every well-formed exception volume (malformed entries are E034's). */
export function exceptionVolumes(m: Manifest): ExceptionVolume[] {
  const out: ExceptionVolume[] = [];
  for (const [exception, ex] of exceptionEntries(m)) {
    ex.volumes.forEach((spec, index) => {
      const v = parseVolume(spec);
      if (v) out.push({ exception, index, spec, ...v });
    });
  }
  return out;
}
