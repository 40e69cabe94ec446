// An action in the form rules compare: canonical host, the command's last segment, a normalized working directory and an HTTP path with needless percent-escapes undone.
import { posix } from 'node:path';
import { canonicalHost } from './host-pattern.js';
import type { PreparedAction } from './compile.js';
import type { PolicyAction } from './policy-types.js';

/** Prepare `action` once for every rule it meets. */
export function prepareAction(action: PolicyAction): PreparedAction {
  switch (action.kind) {
    case 'spawn': {
      const slash = action.command.lastIndexOf('/');
      return {
        kind: 'spawn',
        agent: action.agent,
        command: action.command,
        commandBase: slash >= 0 ? action.command.slice(slash + 1) : action.command,
        args: action.args,
        cwd: normalCwd(action.cwd),
        ...(action.profile !== undefined ? { profile: action.profile } : {}),
      };
    }
    case 'egress':
      return {
        kind: 'egress',
        ...(action.agent !== undefined ? { agent: action.agent } : {}),
        host: canonicalHost(action.host),
        port: action.port,
        ...(action.method !== undefined ? { method: action.method.toUpperCase() } : {}),
        ...(action.path !== undefined ? { path: normalPath(action.path) } : {}),
      };
    case 'provider':
      return { kind: 'provider', provider: action.provider, ...(action.agent !== undefined ? { agent: action.agent } : {}) };
    case 'egress-change':
      return {
        kind: 'egress-change',
        ...(action.host !== undefined ? { host: canonicalHost(action.host) } : {}),
        ...(action.port !== undefined ? { port: action.port } : {}),
      };
  }
}

/** `sub/dir/`, `./sub//dir` → `sub/dir`; nothing → `.`. */
export function normalCwd(cwd: string | undefined): string {
  if (cwd === undefined || cwd === '') return '.';
  const normal = posix.normalize(cwd).replace(/\/+$/, '');
  return normal === '' ? '/' : normal;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The path as servers read it (RFC 3986 6.2.2): a percent-escape of an unreserved character is
 * that character (`/%61dmin` is `/admin`, so a rule on `/admin*` cannot be stepped round), other
 * escapes upper-cased, `%2F` left encoded. Dot segments are already resolved by the URL parser.
 */
export function normalPath(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : escaped.toUpperCase();
  });
}
