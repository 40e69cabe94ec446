// net.ipv4.ip_forward across private engines that run at the same time (test files run in
// parallel): the value before the first engine is kept, and put back when the last one stops.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { takeFileLock } from '../../../management-api/src/file-lock.js';

/** Where the setting lives, and the registry shared by every engine of this machine (one file per live engine, the value to put back). */
export interface ForwardFiles {
  setting: string;
  registry: string;
}

const MACHINE: ForwardFiles = { setting: '/proc/sys/net/ipv4/ip_forward', registry: path.join(tmpdir(), 'agentbox-engines') };
/** Its holders keep the lock for a few file operations: waiting longer than this means something is wrong. */
const LOCK_WAIT_MS = 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Engines still registered, after forgetting those whose process is gone. */
export function liveEngines(files: ForwardFiles = MACHINE): string[] {
  const live: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(files.registry);
  } catch {
    return [];
  }
  for (const name of names) {
    const pid = /^engine-(\d+)-/.exec(name)?.[1];
    if (!pid) continue;
    if (alive(Number(pid))) live.push(name);
    else rmSync(path.join(files.registry, name), { force: true });
  }
  return live;
}

/** Run `fn` holding the registry's lock (takeFileLock: the kernel's, released when its holder ends). */
async function locked<T>(files: ForwardFiles, fn: () => T): Promise<T> {
  mkdirSync(files.registry, { recursive: true, mode: 0o700 });
  const lock = path.join(files.registry, 'lock.db');
  const release = await takeFileLock(lock, LOCK_WAIT_MS);
  if (!release) throw new Error(`${lock} has been held by another engine's start or stop for more than ${LOCK_WAIT_MS / 1000} s`);
  try {
    return fn();
  } finally {
    release();
  }
}

/**
 * Register an engine about to start (`name` unique to it). The first live engine records the
 * current value; returns the function that unregisters it and, when it was the last, puts the
 * recorded value back.
 */
export async function holdIpForward(name: string, files: ForwardFiles = MACHINE): Promise<() => Promise<void>> {
  const entry = path.join(files.registry, `engine-${process.pid}-${name}`);
  const original = path.join(files.registry, 'ip_forward.original');
  await locked(files, () => {
    if (liveEngines(files).length === 0) writeFileSync(original, readFileSync(files.setting, 'utf8').trim());
    writeFileSync(entry, '');
  });
  return () =>
    locked(files, () => {
      rmSync(entry, { force: true });
      if (liveEngines(files).length > 0) return;
      const value = readFileSync(original, 'utf8').trim();
      if (readFileSync(files.setting, 'utf8').trim() !== value) writeFileSync(files.setting, value);
      rmSync(original, { force: true });
    });
}
