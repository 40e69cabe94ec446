// Host prerequisites of the local embedded mode, each with the exact command that fixes it.
import { execFileSync } from 'node:child_process';

/** One prerequisite check. */
export interface PrereqCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** The command (or step) that fixes a failure, or what a warning advises. */
  fix?: string;
  /** Passed, but the box will be slower or weaker than it could be here: printed as a warning with its fix. */
  warn?: true;
}

/** The path of `command` on PATH, or undefined. */
export function which(command: string, envPath = process.env['PATH'] ?? ''): string | undefined {
  try {
    return execFileSync('/bin/sh', ['-c', 'command -v "$1"', 'sh', command], { encoding: 'utf8', env: { PATH: envPath } }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Node version, nix-instantiate and supervisord: what `agentbox up --local` needs on the host. */
export function localModePrereqs(): PrereqCheck[] {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const nodeOk = major > 20 || (major === 20 && minor >= 19);
  const tool = (name: string, command: string, pkg: string): PrereqCheck => {
    const found = which(command);
    return found ? { name, ok: true, detail: found } : { name, ok: false, detail: `${command} not found on PATH`, fix: `sudo apt-get install -y ${pkg}` };
  };
  return [
    nodeOk
      ? { name: 'node', ok: true, detail: `v${process.versions.node}` }
      : { name: 'node', ok: false, detail: `v${process.versions.node} is older than 20.19`, fix: 'install Node.js 20.19 or newer (https://nodejs.org)' },
    tool('nix', 'nix-instantiate', 'nix-bin'),
    tool('supervisord', 'supervisord', 'supervisor'),
    tool('supervisorctl', 'supervisorctl', 'supervisor'),
  ];
}
