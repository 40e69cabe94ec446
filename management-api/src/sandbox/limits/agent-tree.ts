// Which processes belong to which agent: by process group, by session, by descent, and by having belonged before.
import type { ProcStat } from './proc-stat.js';

/** A process as accounting tracks it across samples: pid plus start time (pids are reused). */
export type ProcKey = `${number}:${number}`;

/** The key of a process. */
export function procKey(stat: Pick<ProcStat, 'pid' | 'startTime'>): ProcKey {
  return `${stat.pid}:${stat.startTime}`;
}

/** One sample of the whole process table, indexed the ways attribution looks things up. */
export class ProcessTable {
  readonly byPid = new Map<number, ProcStat>();
  readonly #children = new Map<number, number[]>();
  readonly #byGroup = new Map<number, number[]>();
  readonly #bySession = new Map<number, number[]>();

  constructor(stats: Iterable<ProcStat>) {
    for (const s of stats) {
      this.byPid.set(s.pid, s);
      push(this.#children, s.ppid, s.pid);
      push(this.#byGroup, s.pgrp, s.pid);
      push(this.#bySession, s.session, s.pid);
    }
  }

  /**
   * The processes of the agent led by `leader`, as stats. An agent is spawned detached, so it
   * leads its own session and process group: a process is the agent's when it is in that
   * session (which `setpgid` cannot leave), in that group, a descendant of a member (which keeps
   * a child that called `setsid` while its parent lives), or was the agent's at an earlier sample
   * (`known`: which keeps a daemon that called `setsid` and was reparented to init after that).
   * Not caught: a process that double-forks and calls `setsid` between two samples; a PID
   * namespace (sandbox.namespaces) closes that gap, since all its processes descend from one.
   */
  members(leader: number, leaderStart: number, known: ReadonlySet<ProcKey>): ProcStat[] {
    const found = new Map<number, ProcStat>();
    const add = (pid: number): void => {
      const s = this.byPid.get(pid);
      if (s && !found.has(pid)) found.set(pid, s);
    };
    const head = this.byPid.get(leader);
    // A group or session id stays reserved while any member lives, so these ids cannot name
    // another agent's processes; the leader's pid alone could be reused once it has gone.
    if (head && head.startTime === leaderStart) add(leader);
    for (const pid of this.#byGroup.get(leader) ?? []) add(pid);
    for (const pid of this.#bySession.get(leader) ?? []) add(pid);
    for (const key of known) {
      const pid = Number(key.slice(0, key.indexOf(':')));
      const s = this.byPid.get(pid);
      if (s && procKey(s) === key) add(pid);
    }
    // Descendants of every member found so far, breadth first.
    const queue = [...found.keys()];
    for (let i = 0; i < queue.length; i++) {
      for (const child of this.#children.get(queue[i]!) ?? []) {
        if (found.has(child)) continue;
        add(child);
        queue.push(child);
      }
    }
    return [...found.values()];
  }
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
