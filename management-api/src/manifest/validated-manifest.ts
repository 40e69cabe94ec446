// The manifest as stage A validated it at this boot, kept in the run directory for the box's
// helper programmes (stage B, the egress proxy).
//
// Why: each of them loaded the schema validator and the rules and checked the same file again,
// about a tenth of a box's start-up CPU between them, for an answer stage A had just given. They
// now read stage A's result, and fall back to checking the file themselves whenever the result
// is missing, unreadable, for another architecture, or for other text than the file holds now
// (the file's SHA-256 is compared at every read). The API still checks the file itself: it serves
// the warnings, which depend on its environment.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { replaceFileAtomically } from '../durable-fs.js';
import type { Diagnostic } from './diagnostics.js';
import { deepFreeze } from './deep-freeze.js';
import type { NormalizedManifest } from './load-manifest.js';

/** The layout of the kept result; a different one is not read. */
const FORMAT = 1;

/** A manifest loaded and checked: what requireManifest answers. */
export interface ValidatedManifest {
  manifest: NormalizedManifest;
  sha256: string;
  warnings: Diagnostic[];
}

const sha256Of = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Keep `validated`, the result of checking `sourceText` (the manifest file's text) for
 * `targetArch`, in `keptFile` (0600, replaced atomically).
 */
export function keepValidatedManifest(keptFile: string, sourceText: string, targetArch: string, validated: ValidatedManifest): void {
  const body = JSON.stringify({
    format: FORMAT,
    source_sha256: sha256Of(sourceText),
    target_arch: targetArch,
    sha256: validated.sha256,
    manifest: validated.manifest,
    warnings: validated.warnings,
  });
  replaceFileAtomically(keptFile, body, 0o600);
}

/**
 * The kept result for `manifestFile` as it is now and for `targetArch`, or undefined when there
 * is none that fits (then the caller checks the file itself).
 */
export async function readValidatedManifest(keptFile: string, manifestFile: string, targetArch: string): Promise<ValidatedManifest | undefined> {
  try {
    const [kept, source] = await Promise.all([readFile(keptFile, 'utf8'), readFile(manifestFile, 'utf8')]);
    const parsed = JSON.parse(kept) as {
      format?: unknown;
      source_sha256?: unknown;
      target_arch?: unknown;
      sha256?: unknown;
      manifest?: unknown;
      warnings?: unknown;
    };
    if (parsed.format !== FORMAT || parsed.target_arch !== targetArch || parsed.source_sha256 !== sha256Of(source)) return undefined;
    if (typeof parsed.sha256 !== 'string' || !parsed.manifest || typeof parsed.manifest !== 'object' || !Array.isArray(parsed.warnings)) return undefined;
    return { manifest: deepFreeze(parsed.manifest as NormalizedManifest), sha256: parsed.sha256, warnings: parsed.warnings as Diagnostic[] };
  } catch {
    return undefined;
  }
}
