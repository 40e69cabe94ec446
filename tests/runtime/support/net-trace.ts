// Reading the network syscalls of a box traced with strace, and stopping a box that runs under strace.
import { readFileSync } from 'node:fs';
import type { BoxRun } from '../../runtime-contract/support/box-runner.js';

/** The strace wrapper a traced box runs under: every connect and send* of its process tree, into `traceFile`. */
export function straceWrap(traceFile: string): string[] {
  // --seccomp-bpf: only the traced syscalls stop the process, so the box runs at nearly full speed.
  return ['strace', '-f', '--seccomp-bpf', '-qq', '-e', 'trace=connect,sendto,sendmsg,sendmmsg', '-o', traceFile];
}

/** One network syscall from the trace: its kind and, for an address, family, host and port. */
export interface NetCall {
  line: string;
  family: string;
  host?: string;
  port?: number;
}

/** The connect and send* calls of an strace log that name an address (a send on a connected socket names none). */
export function networkCalls(trace: string): NetCall[] {
  const calls: NetCall[] = [];
  for (const line of trace.split('\n')) {
    if (!/\b(connect|sendto|sendmsg|sendmmsg)\(/.test(line)) continue;
    const family = /sa_family=(AF_[A-Z0-9]+)/.exec(line)?.[1];
    if (!family) continue;
    // Netlink to the kernel (nl_pid=0) configures this host, e.g. bwrap bringing up the loopback of
    // an agent's new network namespace: it reaches no other machine.
    if (family === 'AF_NETLINK' && /sa_family=AF_NETLINK, nl_pid=0\b/.test(line)) continue;
    const port = /sin6?_port=htons\((\d+)\)/.exec(line)?.[1];
    const host = /inet_addr\("([^"]+)"\)/.exec(line)?.[1] ?? /inet_pton\(AF_INET6, "([^"]+)"/.exec(line)?.[1];
    calls.push({ line, family, ...(host ? { host } : {}), ...(port ? { port: Number(port) } : {}) });
  }
  return calls;
}

/**
 * SIGTERM the box under strace and wait for it. strace is the spawned process and the box
 * (supervisord) its child: the signal goes to the box itself, and strace ends when the last
 * traced process does.
 */
export async function stopTraced(box: BoxRun): Promise<void> {
  const tracer = box.proc.pid!;
  const children = readFileSync(`/proc/${tracer}/task/${tracer}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  for (const pid of children) process.kill(pid, 'SIGTERM');
  await box.exit;
}
