// Security exceptions as rules see them: declared entries, and the mounts they may not shadow.
import { posix } from 'node:path';
import type { Exception, Manifest } from '../../generated/manifest-types.js';
import { boxFacts } from '../../../box-facts.js';

/** A `[security.exceptions.<name>]` key. */
export type ExceptionName = keyof Manifest['security']['exceptions'];

/** `[security.exceptions.<name>]` entries that are declared, in manifest order. */
export function exceptionEntries(m: Manifest): Array<[ExceptionName, Exception]> {
  return Object.entries(m.security.exceptions).filter((e): e is [ExceptionName, Exception] => e[1] !== undefined);
}

/**
 * The baseline path (schema/box-facts.json protectedPaths, which lib/security.nix enforces too) a
 * mount at `containerPath` would hide — the path itself or one below it — if any.
 */
export function shadowedBaselinePath(containerPath: string): string | undefined {
  const protectedPaths = boxFacts.baseline.protectedPaths;
  const p = posix.normalize(containerPath).replace(/(.)\/+$/, '$1');
  return protectedPaths.find((b) => b === p) ?? protectedPaths.find((b) => p === '/' || b.startsWith(p + '/'));
}

/** A volume `host:container[:mode]`, split; undefined when it has not that shape. */
export function parseVolume(spec: string): { host: string; container: string; mode?: string } | undefined {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3) return undefined;
  const [host = '', container = '', mode] = parts;
  return mode === undefined ? { host, container } : { host, container, mode };
}

/** The container path of a tmpfs entry (`/dev/shm` or `/dev/shm:size=1g`). */
export function tmpfsPath(spec: string): string {
  return spec.split(':')[0] ?? spec;
}
