// The manifest loader: TOML text → schema-validated, defaulted, rule-checked, deep-frozen manifest.
import { readFile } from 'node:fs/promises';
import type { Manifest } from './generated/manifest-types.js';
import { validateManifestShape } from './generated/manifest-validator.js';
import { formatDiagnostic, type Diagnostic } from './diagnostics.js';
import { parseToml } from './parse-toml.js';
import { schemaDiagnostics } from './schema-errors.js';
import { runRules } from './run-rules.js';
import { canonicalSha256 } from './canonical-json.js';
import { deepFreeze, type DeepReadonly } from './deep-freeze.js';
import type { RuleContext } from './rules/rule.js';

/** The normalized manifest as the rest of the program sees it: complete and immutable. */
export type NormalizedManifest = DeepReadonly<Manifest>;

/** What loading produced. `exitCode` follows the CLI contract: 0 valid, 1 errors, 2 unreadable. */
export interface LoadResult {
  /** Present when the document passed the schema (even if a rule then reported errors). */
  manifest?: NormalizedManifest;
  /** sha256 of the canonical JSON of `manifest`. */
  sha256?: string;
  diagnostics: Diagnostic[];
  errorCount: number;
  warningCount: number;
  exitCode: 0 | 1 | 2;
}

/** Validate TOML source text. Never throws for bad input. */
export async function loadManifestSource(source: string, context: RuleContext): Promise<LoadResult> {
  const parsed = parseToml(source);
  if (!parsed.ok) return summarise([parsed.diagnostic], undefined, 2);
  const doc = parsed.value;
  if (!validateManifestShape(doc)) {
    const diagnostics = schemaDiagnostics(validateManifestShape.errors ?? [], doc);
    await addPositions(source, diagnostics);
    return summarise(diagnostics, undefined, 1);
  }
  // Semantic rules run only on schema-valid manifests: they may rely on every key existing.
  const manifest = doc as unknown as Manifest;
  const diagnostics = runRules(manifest, context);
  if (diagnostics.length) await addPositions(source, diagnostics);
  return summarise(diagnostics, deepFreeze(manifest), 1);
}

/** Read and validate a manifest file. An unreadable file is exit code 2 with an IO diagnostic. */
export async function loadManifestFile(file: string, context: RuleContext): Promise<LoadResult> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    return summarise(
      [
        {
          id: 'IO',
          alias: 'unreadable-file',
          severity: 'error',
          source: 'io',
          message: `cannot read the manifest: ${reason}`,
          pointer: '',
          hint: e.code === 'ENOENT' ? 'create one with `npx agentbox init`, or pass the path of an existing file' : 'check the path and its permissions',
        },
      ],
      undefined,
      2,
    );
  }
  return loadManifestSource(source, context);
}

/** Load a manifest that must be valid (for the API and the runtime); throws with every diagnostic otherwise. */
export async function requireManifest(file: string, context: RuleContext): Promise<{ manifest: NormalizedManifest; sha256: string; warnings: Diagnostic[] }> {
  const r = await loadManifestFile(file, context);
  if (r.exitCode !== 0 || !r.manifest || !r.sha256) {
    throw new ManifestInvalidError(file, r.diagnostics.map((d) => formatDiagnostic(file, d)).join('\n'));
  }
  return { manifest: r.manifest, sha256: r.sha256, warnings: r.diagnostics };
}

/** Thrown by requireManifest; its message lists every diagnostic with file:line:col. */
export class ManifestInvalidError extends Error {
  constructor(
    readonly file: string,
    details: string,
  ) {
    super(`invalid manifest ${file}:\n${details}`);
    this.name = 'ManifestInvalidError';
  }
}

function summarise(diagnostics: Diagnostic[], manifest: NormalizedManifest | undefined, failCode: 1 | 2): LoadResult {
  const errorCount = diagnostics.filter((d) => d.severity === 'error').length;
  const warningCount = diagnostics.length - errorCount;
  return {
    ...(manifest ? { manifest, sha256: canonicalSha256(manifest) } : {}),
    diagnostics,
    errorCount,
    warningCount,
    exitCode: errorCount ? failCode : 0,
  };
}

/**
 * The position-keeping parser, loaded on first use: a second parse is only worth it when there is
 * something to point at. Imported once per process, not once per manifest: every import() is a
 * resolution by the module loader (under a loader thread, a round trip to it).
 */
let keyLocations: Promise<typeof import('./key-locations.js')> | undefined;

async function addPositions(source: string, diagnostics: Diagnostic[]): Promise<void> {
  keyLocations ??= import('./key-locations.js').catch((err: unknown) => {
    keyLocations = undefined;
    throw err;
  });
  const { locateKeys, nearestPosition } = await keyLocations;
  const positions = locateKeys(source);
  for (const d of diagnostics) {
    if (d.line !== undefined) continue;
    const pos = nearestPosition(positions, d.pointer);
    if (pos) {
      d.line = pos.line;
      d.column = pos.column;
    }
  }
}
