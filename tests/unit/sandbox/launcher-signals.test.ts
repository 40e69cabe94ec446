// The launcher hands the agent the signal dispositions of a plain spawn: a signal its parent ignored
// (bubblewrap ignores SIGTERM; a shell may ignore SIGINT) is back to its default in the agent, with the
// keeper (--keep) and without; what the parent did not ignore is left as it was.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { installedLauncher } from '../../../management-api/src/sandbox/launcher-binary.js';
import { buildLauncher } from '../../helpers/sandbox-launcher.js';

buildLauncher();
const launcher = installedLauncher();

const SYSTEM = ['/usr', '/bin', '/lib', '/lib64', '/proc'].flatMap((dir) => ['--ro', dir]);
const bit = (signal: number) => 1n << BigInt(signal - 1);
const SIGINT = 2;
const SIGTERM = 15;
const SIGUSR2 = 12;

/** The agent's SigIgn mask when its parent shell ignores `ignored` (by number). */
function agentIgnores(mode: string[], ignored: number[]): bigint {
  const traps = ignored.map((s) => `trap "" ${s};`).join(' ');
  const r = spawnSync('/bin/sh', ['-c', `${traps} exec "$0" "$@"`, launcher, ...SYSTEM, ...mode, '--', '/bin/grep', '^SigIgn:', '/proc/self/status'], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`launcher exited ${r.status}: ${r.stderr}`);
  return BigInt(`0x${r.stdout.split(/\s+/)[1]}`);
}

for (const mode of [[], ['--keep']]) {
  t.test(`ignored by the parent, default in the agent (${mode.join(' ') || 'plain'})`, async (t) => {
    const mask = agentIgnores(mode, [SIGINT, SIGTERM, SIGUSR2]);
    t.equal(mask & (bit(SIGINT) | bit(SIGTERM) | bit(SIGUSR2)), 0n, `SigIgn ${mask.toString(16)}`);
  });
}
