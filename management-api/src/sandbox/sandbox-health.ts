// The sandbox part of /health: the namespaces setting and what the probe found on this machine.
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { lastNamespacesVerdict } from './namespaces-probe.js';

/** What /health says about agent confinement. */
export interface SandboxHealth {
  /** `sandbox.namespaces`, or `off` when the sandbox is disabled. */
  namespaces: string;
  /** User namespaces work here (absent before the local orchestrator probed, or when off). */
  available?: boolean;
  reason?: string;
  proc?: 'fresh' | 'ro-bind';
  checkedAt?: string;
}

/** The sandbox's health view for `manifest`, from the verdict the orchestrator reached (probed once per process). */
export function sandboxHealth(manifest: NormalizedManifest): SandboxHealth {
  const namespaces = manifest.sandbox.enabled ? manifest.sandbox.namespaces : 'off';
  const v = namespaces === 'off' ? undefined : lastNamespacesVerdict();
  if (!v) return { namespaces };
  return { namespaces, available: v.available, ...(v.reason ? { reason: v.reason } : {}), ...(v.available ? { proc: v.freshProc ? 'fresh' : 'ro-bind' } : {}), checkedAt: v.checkedAt };
}
