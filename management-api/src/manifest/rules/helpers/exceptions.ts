// Security exceptions as rules see them: declared entries, and the mounts they may not shadow.
import { posix } from 'node:path';
import type { Exception, Manifest } from '../../generated/manifest-types.js';
import { boxFacts } from '../../../box-facts.js';

/**
 * The exception that belongs to a setting rather than a feature: `[security.exceptions.sandbox-namespaces]`
 * (schema/box-facts.json sandboxNamespaces). It takes a reason only and adds a seccomp profile.
 */
export const NAMESPACES_EXCEPTION = boxFacts.sandboxNamespaces.exception as 'sandbox-namespaces';

/** A feature's `[security.exceptions.<name>]` key (every key but the sandbox-namespaces one). */
export type ExceptionName = Exclude<keyof Manifest['security']['exceptions'], typeof NAMESPACES_EXCEPTION>;

/** The features' `[security.exceptions.<name>]` entries that are declared, in manifest order (not sandbox-namespaces). */
export function exceptionEntries(m: Manifest): Array<[ExceptionName, Exception]> {
  return Object.entries(m.security.exceptions).filter((e): e is [ExceptionName, Exception] => e[0] !== NAMESPACES_EXCEPTION && e[1] !== undefined);
}

/** True when the manifest declares `[security.exceptions.sandbox-namespaces]`. */
export function hasNamespacesException(m: Manifest): boolean {
  return m.security.exceptions[NAMESPACES_EXCEPTION] !== undefined;
}

/**
 * True when agents would use namespaces (sandbox.enabled and sandbox.namespaces not "off"): the
 * only case where the sandbox-namespaces exception is applied (lib/security.nix says the same).
 */
export function agentsUseNamespaces(m: Manifest): boolean {
  return m.sandbox.enabled && m.sandbox.namespaces !== 'off';
}

/**
 * The baseline path (schema/box-facts.json protectedPaths, which lib/security.nix enforces too) a
 * mount at `containerPath` would hide — the path itself or one below it — if any.
 */
export function shadowedBaselinePath(containerPath: string): string | undefined {
  const protectedPaths = boxFacts.baseline.protectedPaths;
  const p = posix.normalize(containerPath).replace(/(.)\/+$/, '$1');
  return protectedPaths.find((b) => b === p) ?? protectedPaths.find((b) => p === '/' || b.startsWith(`${p}/`));
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
