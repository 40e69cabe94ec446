// Wires the readiness inputs (seal watcher, mount checker, adapter resolver, relays, egress proxy) to the readiness model.
import type { Logger } from 'pino';
import type { AdapterResolver } from '../adapters/resolver.js';
import type { AgentEvents } from '../mesh/agent-events.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { EgressController } from '../egress/controller.js';
import { requiredMounts, type RuntimePaths } from '../runtime-paths.js';
import { DiskGuard } from './disk-guard.js';
import { MountChecker } from './mount-checker.js';
import { Readiness } from './readiness.js';
import { SealWatcher } from './seal-watcher.js';

/** Intervals of the readiness inputs, in milliseconds. */
export interface ReadinessTiming {
  /** Safety-net re-check of the seal file. */
  sealRecheckMs: number;
  /** Write probe of the required mounts. */
  mountCheckMs: number;
  /** Free space of the state volume and the workspace (one statfs each). */
  diskCheckMs: number;
}

/** Defaults: the seal is also re-checked every 5 s, mounts every 30 s, free space every 5 s. */
export const DEFAULT_READINESS_TIMING: ReadinessTiming = { sealRecheckMs: 5_000, mountCheckMs: 30_000, diskCheckMs: 5_000 };

/** The readiness model with its inputs running. */
export interface ReadinessSources {
  readiness: Readiness;
  mounts: MountChecker;
  seal: SealWatcher;
  /** Free space of the state volume and the workspace: the agent routes ask it before a spawn. */
  disk: DiskGuard;
  close(): void;
}

/** Start the seal watcher and mount checker, evaluate once, and re-evaluate on every change. */
export async function startReadinessSources(options: {
  paths: RuntimePaths;
  resolver: AdapterResolver;
  logger: Logger;
  metrics: ApiMetrics;
  clock: () => Date;
  timing: ReadinessTiming;
  minFreeDiskBytes: number;
  relays?: Pick<AgentEvents, 'relayStatus' | 'onRelayChange'>;
  egress?: Pick<EgressController, 'status' | 'onChange'>;
}): Promise<ReadinessSources> {
  const { paths, resolver, relays, egress } = options;
  const readiness = new Readiness(options);
  let started = false;
  const evaluate = (): void => {
    if (!started) return;
    const relayStatus = relays?.relayStatus();
    readiness.update({
      sealFile: paths.sealFile,
      sealPresent: seal.present,
      ...(seal.failure ? { bootstrapFailure: seal.failure } : {}),
      mounts: mounts.states,
      slots: resolver.statuses(),
      ...(relayStatus ? { relays: relayStatus } : {}),
      ...(egress ? { egress: egress.status() } : {}),
      disks: disk.states,
    });
  };
  const seal = new SealWatcher({ file: paths.sealFile, failureFile: paths.bootstrapFailedFile, recheckMs: options.timing.sealRecheckMs, onChange: evaluate });
  const mounts = new MountChecker(requiredMounts(paths), { intervalMs: options.timing.mountCheckMs, onChange: evaluate });
  const disk = new DiskGuard(diskWatched(paths), { thresholdBytes: options.minFreeDiskBytes, intervalMs: options.timing.diskCheckMs, onChange: evaluate });
  resolver.onChange(evaluate);
  relays?.onRelayChange(evaluate);
  egress?.onChange(evaluate);
  try {
    await Promise.all([seal.start(), mounts.start(), disk.start()]);
  } catch (err) {
    seal.close();
    mounts.close();
    disk.close();
    throw err;
  }
  started = true;
  evaluate();
  return {
    readiness,
    mounts,
    seal,
    disk,
    close: () => {
      seal.close();
      mounts.close();
      disk.close();
    },
  };
}

/** The directories whose free space the box guards: its state (beads, events, audit log) and the agents' workspace. */
function diskWatched(paths: RuntimePaths): Array<{ name: string; path: string }> {
  return [
    { name: 'state', path: paths.stateDir },
    { name: 'workspace', path: paths.workspaceDir },
  ];
}
