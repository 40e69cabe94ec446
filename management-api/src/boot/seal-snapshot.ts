// What a (re)started seal listener learns from supervisord before its first event: every
// programme's state, and when this boot began (so a restart does not grant a fresh timeout).
import { supervisedPrograms } from '../probes/supervisor-programs.js';
import type { ProgramSnapshot } from './seal-state.js';

/** supervisord's answer, or why there is none. */
export type SupervisorSnapshot =
  | { ok: true; programs: ProgramSnapshot[] /** Earliest programme start supervisord reports, epoch ms. */; bootStartedMs: number | undefined }
  | { ok: false; error: string };

/**
 * Ask supervisord (XML-RPC `getAllProcessInfo` on its unix socket) for the states of every
 * programme. The events of an earlier listener are gone for good (supervisord replays none), so
 * this is the only way a restarted listener can know that the one-shot already exited.
 */
export async function supervisorSnapshot(socketPath: string, timeoutMs = 5_000): Promise<SupervisorSnapshot> {
  const report = await supervisedPrograms(socketPath, timeoutMs);
  if (report === undefined) return { ok: false, error: `no supervisord socket at ${socketPath}` };
  if (!report.available) return { ok: false, error: report.error };
  // The one-shot is never restarted, so the earliest start is close to when supervisord began
  // (whole seconds: supervisord reports no finer).
  const starts = report.programs.map((p) => p.startedAt).filter((s) => s > 0);
  return {
    ok: true,
    programs: report.programs.map((p) => ({ name: p.name, state: p.state, exitStatus: p.exitStatus })),
    bootStartedMs: starts.length ? Math.min(...starts) * 1000 : undefined,
  };
}
