// The depends_on graph of the manifest's programmes: its cycles, and the start order it gives
// (lib/start-order.nix derives the same priorities for supervisord; a test ties the two).
import type { Manifest } from '../../generated/manifest-types.js';
import type { DeepReadonly } from '../../deep-freeze.js';
import { programEntries } from './programs.js';

/**
 * Groups of programmes that depend on each other in a cycle (strongly connected components of
 * more than one programme; self-dependencies and unknown names are another rule's concern).
 */
export function dependencyCycles(m: Manifest): string[][] {
  const programs = new Map(programEntries(m));
  const edges = (name: string) => (programs.get(name)?.depends_on ?? []).filter((d) => d !== name && programs.has(d));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  // Tarjan's algorithm with an explicit call stack: a long depends_on chain must not overflow the JS stack.
  for (const root of programs.keys()) {
    if (index.has(root)) continue;
    const calls: Array<{ name: string; deps: string[]; at: number }> = [];
    const enter = (name: string) => {
      index.set(name, next);
      low.set(name, next++);
      stack.push(name);
      onStack.add(name);
      calls.push({ name, deps: edges(name), at: 0 });
    };
    enter(root);
    while (calls.length) {
      const frame = calls[calls.length - 1]!;
      const dep = frame.deps[frame.at++];
      if (dep !== undefined) {
        if (!index.has(dep)) enter(dep);
        else if (onStack.has(dep)) low.set(frame.name, Math.min(low.get(frame.name)!, index.get(dep)!));
        continue;
      }
      calls.pop();
      const parent = calls[calls.length - 1];
      if (parent) low.set(parent.name, Math.min(low.get(parent.name)!, low.get(frame.name)!));
      if (low.get(frame.name) !== index.get(frame.name)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.name);
      if (group.length > 1) cycles.push(group.reverse());
    }
  }
  return cycles;
}

/**
 * name → the priority supervisord starts the programme with: its declared priority, raised to one
 * more than the highest start priority among its dependencies when that is not already lower.
 * Unknown names and self-dependencies are ignored (E017 refuses them); programmes in or behind a
 * cycle (E018 refuses it) keep their declared priority.
 */
export function startPriorities(m: DeepReadonly<Manifest>): Map<string, number> {
  const programs = new Map(programEntries(m));
  const deps = new Map([...programs].map(([name, p]) => [name, p.depends_on.filter((d) => d !== name && programs.has(d))]));
  const dependants = new Map<string, string[]>([...programs.keys()].map((n) => [n, []]));
  const waiting = new Map<string, number>();
  for (const [name, ds] of deps) {
    waiting.set(name, ds.length);
    for (const d of ds) dependants.get(d)!.push(name);
  }
  const start = new Map<string, number>();
  // Kahn's algorithm: a programme is placed once all its dependencies are, so the walk is linear.
  const ready = [...programs.keys()].filter((n) => waiting.get(n) === 0);
  while (ready.length) {
    const name = ready.pop()!;
    const after = deps.get(name)!.reduce((acc, d) => Math.max(acc, start.get(d)! + 1), 0);
    start.set(name, Math.max(programs.get(name)!.priority, after));
    for (const next of dependants.get(name)!) {
      const left = waiting.get(next)! - 1;
      waiting.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  for (const [name, p] of programs) if (!start.has(name)) start.set(name, p.priority);
  return start;
}
