// Artifact probes: before supervisord starts, check that everything the box will run is present
// in the image (nothing is installed at start, so a missing artifact is fatal and named).
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/** One artifact the box needs: which capability needs it, where it is, and how to check it. */
export interface ArtifactProbe {
  /** What needs it, e.g. `program:management-api` or `feature:playwright`. */
  capability: string;
  /** Absolute path, or a bare command name looked up on PATH. */
  path: string;
  probe: 'executable' | 'file' | 'directory';
  /** A missing optional artifact is reported but not fatal. */
  required: boolean;
}

/** A probe that failed, with the reason. */
export interface ProbeFailure extends ArtifactProbe {
  reason: string;
}

/** Run every probe; resolves to the failures (empty when everything is present). */
export async function runArtifactProbes(probes: readonly ArtifactProbe[], envPath: string | undefined): Promise<ProbeFailure[]> {
  const results = await Promise.all(probes.map(async (p) => ({ p, reason: await check(p, envPath) })));
  return results.filter((r) => r.reason !== undefined).map((r) => ({ ...r.p, reason: r.reason! }));
}

async function check(p: ArtifactProbe, envPath: string | undefined): Promise<string | undefined> {
  const candidates = path.isAbsolute(p.path)
    ? [p.path]
    : (envPath ?? '')
        .split(':')
        .filter(Boolean)
        .map((d) => path.join(d, p.path));
  if (!candidates.length) return `${p.path} is not an absolute path and PATH is empty`;
  for (const candidate of candidates) {
    const st = await stat(candidate).catch(() => undefined);
    if (!st) continue;
    if (p.probe === 'directory') return st.isDirectory() ? undefined : `${candidate} is not a directory`;
    if (!st.isFile()) return `${candidate} is not a regular file`;
    if (p.probe === 'file') return undefined;
    const executable = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (executable) return undefined;
    return `${candidate} is not executable`;
  }
  return path.isAbsolute(p.path) ? `${p.path} does not exist` : `${p.path} was not found on PATH`;
}
