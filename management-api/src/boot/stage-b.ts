// Stage B (supervisord programme `bootstrap`, one-shot): gathers runtime hints — the resources the
// box really got and the devices its features need — writes them for the API, and fails when
// the box cannot do what its manifest asks (so readiness is refused with that reason).
import { readFile, stat, access, statfs } from 'node:fs/promises';
import { constants } from 'node:fs';
import os from 'node:os';
import { runtimePaths } from '../runtime-paths.js';
import { loadValidatedBoxManifest } from '../manifest/load-box-manifest.js';
import { bootEvents, type BootEvents } from './boot-events.js';
import { replaceFileAtomically } from '../durable-fs.js';
import { reportStageBCompleted } from './stage-b-report.js';

/** What stage B found out about the box it runs in. */
export interface RuntimeHints {
  cpus: number;
  /** cgroup memory limit in bytes, or null when unlimited / unknown. */
  memoryLimitBytes: number | null;
  workspaceFreeBytes: number;
  gpu: { requested: string; devices: string[] };
}

const gpuDevices: Record<string, string[]> = { rocm: ['/dev/kfd', '/dev/dri'], cuda: ['/dev/nvidiactl', '/dev/nvidia0'] };

/** Run stage B; resolves to the exit code (non-zero makes the seal listener record a failure). */
export async function runStageB(env: Readonly<Record<string, string | undefined>>, events: BootEvents = bootEvents('B')): Promise<number> {
  const paths = runtimePaths(env);
  events.emit('StageBStarted');
  // Only the checks' failures are the boot's: what is said once they passed (the log line, the
  // report to supervisord) cannot turn a finished stage B into a recorded failure.
  let hints: RuntimeHints;
  try {
    const { manifest } = await loadValidatedBoxManifest(env);
    await access(paths.workspaceDir, constants.W_OK).catch(() => {
      throw new Error(`the workspace ${paths.workspaceDir} is not writable; mount a writable volume there`);
    });
    const requested = manifest.features.gpu;
    const wanted = gpuDevices[requested] ?? [];
    const present = (await Promise.all(wanted.map(async (d) => ((await stat(d).catch(() => undefined)) ? d : undefined)))).filter(
      (d): d is string => d !== undefined,
    );
    if (wanted.length && present.length !== wanted.length) {
      const missing = wanted.filter((d) => !present.includes(d));
      throw new Error(
        `features.gpu = "${requested}" but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not present; pass the devices in (security.exceptions.gpu-${requested}.devices) or set gpu = "none"`,
      );
    }
    const fs = await statfs(paths.workspaceDir);
    hints = {
      cpus: os.availableParallelism(),
      memoryLimitBytes: await cgroupMemoryLimit(),
      workspaceFreeBytes: fs.bavail * fs.bsize,
      gpu: { requested, devices: present },
    };
    replaceFileAtomically(paths.runtimeHintsFile, `${JSON.stringify(hints, null, 2)}\n`);
  } catch (err) {
    const reason = (err as Error).message;
    // The specific reason, for /ready; the seal listener keeps it when it records the exit.
    replaceFileAtomically(paths.bootstrapFailedFile, `${JSON.stringify({ reason })}\n`);
    events.fail('StageBFailed', { reason }, reason);
    return 1;
  }
  events.emit('StageBCompleted', { hints });
  reportStageBCompleted(env);
  return 0;
}

/** The cgroup v2 (or v1) memory limit, or null when there is none. */
async function cgroupMemoryLimit(): Promise<number | null> {
  for (const file of ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes']) {
    const text = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (!text || text === 'max') continue;
    const n = Number(text);
    // cgroup v1 reports "unlimited" as a huge page-aligned number.
    if (Number.isFinite(n) && n < 2 ** 60) return n;
  }
  return null;
}
