// The two files the seal listener keeps for the API: the seal (`bootstrap.done`) and the failure
// marker (`bootstrap.failed`, JSON `{reason}`), both written atomically.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { replaceFileAtomically } from '../durable-fs.js';

/**
 * What a failure marker holds. A seal timeout is marked `timeout: true`, a required programme that
 * stays down names its `program`: both are cleared by a later seal.
 */
export interface FailureMarker {
  reason: string;
  timeout?: boolean;
  program?: string;
  waiting_for?: string[];
}

/** The seal and failure marker of one box. Stage A removes both at every boot, so whatever is found belongs to this boot. */
export class SealFiles {
  constructor(
    readonly sealFile: string,
    readonly failedFile: string,
  ) {}

  /** The failure marker, when there is a readable one. */
  marker(): FailureMarker | undefined {
    try {
      const parsed = JSON.parse(readFileSync(this.failedFile, 'utf8')) as Partial<FailureMarker>;
      return typeof parsed.reason === 'string' ? (parsed as FailureMarker) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Write the seal, and drop a seal-timeout marker: the programmes it waited for are up now. */
  seal(body: Record<string, unknown>): void {
    replaceFileAtomically(this.sealFile, `${JSON.stringify(body)}\n`);
    const marker = this.marker();
    if (marker?.timeout || marker?.program) rmSync(this.failedFile, { force: true });
  }

  /** Remove the seal; true when there was one. */
  unseal(): boolean {
    const had = existsSync(this.sealFile);
    rmSync(this.sealFile, { force: true });
    return had;
  }

  /**
   * Record that bootstrap failed and return the reason /ready will give. Stage B writes its own,
   * more specific reason before it exits: that one is kept. A seal-timeout marker is replaced.
   */
  recordFailure(reason: string): string {
    this.unseal();
    const existing = this.marker();
    if (existing && !existing.timeout) return existing.reason;
    replaceFileAtomically(this.failedFile, `${JSON.stringify({ reason })}\n`);
    return reason;
  }

  /** Record that a required programme stays down (FATAL, or exited for good), unless stage B's failure is recorded. */
  recordProgramFailure(program: string, reason: string): void {
    this.unseal();
    const existing = this.marker();
    if (existing && !existing.timeout && !existing.program) return;
    replaceFileAtomically(this.failedFile, `${JSON.stringify({ reason, program })}\n`);
  }

  /** Record a seal timeout, unless a bootstrap failure is already recorded (it says more). */
  recordTimeout(reason: string, waitingFor: string[]): void {
    const existing = this.marker();
    if (existing && !existing.timeout) return;
    replaceFileAtomically(this.failedFile, `${JSON.stringify({ reason, timeout: true, waiting_for: waitingFor })}\n`);
  }
}
