// The spawn form's text fields turned into a POST /v1/agents body, with a readable message for what cannot be sent.
import type { SpawnBody } from './types.js';

/** The spawn form's fields as typed. */
export interface SpawnFields {
  name: string;
  command: string;
  /** One argument per line. */
  args: string;
  /** Relative to the workspace; empty for the agent's own directory. */
  cwd: string;
  /** One NAME=value per line. */
  env: string;
  memory: string;
  cpuSeconds: string;
  processes: string;
  disk: string;
  /** Run on a pseudo-terminal (the dashboard then shows its terminal). */
  tty: boolean;
}

/** Empty fields, as the form starts. */
export const EMPTY_SPAWN: SpawnFields = { name: '', command: '', args: '', cwd: '', env: '', memory: '', cpuSeconds: '', processes: '', disk: '', tty: false };

// As the API's schema takes them: a number with an optional unit k, m or g.
const SIZE = /^[0-9]{1,15}[kmg]?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The request body, or the message saying which field is wrong (the API checks the rest and says so). */
export function spawnBody(f: SpawnFields): { body: SpawnBody } | { problem: string } {
  // No shell-style splitting to get wrong: one argument per line, kept as typed.
  const body: SpawnBody = { name: f.name.trim(), command: f.command.trim(), args: f.args.split('\n').filter((l) => l !== '') };
  if (f.cwd.trim()) body.cwd = f.cwd.trim();
  if (f.tty) body.tty = true;

  const env: Record<string, string> = {};
  for (const [i, line] of f.env.split('\n').entries()) {
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    const name = eq < 0 ? line.trim() : line.slice(0, eq).trim();
    if (eq < 0 || !ENV_NAME.test(name))
      return { problem: `Environment line ${i + 1}: write NAME=value (a name of letters, digits and _, not starting with a digit).` };
    env[name] = line.slice(eq + 1);
  }
  if (Object.keys(env).length > 0) body.env = env;

  const limits: NonNullable<SpawnBody['limits']> = {};
  const size = (label: string, text: string): string | undefined => {
    const v = text.trim().toLowerCase();
    if (v === '') return undefined;
    if (!SIZE.test(v)) throw new Error(`${label}: a number of bytes with an optional unit k, m or g, e.g. 512m.`);
    return v;
  };
  const count = (label: string, text: string): number | undefined => {
    const v = text.trim();
    if (v === '') return undefined;
    if (!/^[1-9][0-9]{0,8}$/.test(v)) throw new Error(`${label}: a whole number of at least 1.`);
    return Number(v);
  };
  try {
    const memory = size('Memory limit', f.memory);
    const disk = size('Disk limit', f.disk);
    const cpu = count('CPU seconds', f.cpuSeconds);
    const processes = count('Processes', f.processes);
    if (memory !== undefined) limits.memory = memory;
    if (cpu !== undefined) limits.cpu_seconds = cpu;
    if (processes !== undefined) limits.processes = processes;
    if (disk !== undefined) limits.disk = disk;
  } catch (err) {
    return { problem: (err as Error).message };
  }
  if (Object.keys(limits).length > 0) body.limits = limits;
  return { body };
}
