// Checks that an agent's command exists before it is started through the launcher, which could only exit 127.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { AdapterInputError } from '../adapter-errors.js';

/**
 * `command` unchanged when it names an executable file — a path containing `/` (relative ones
 * resolve in the agent's directory, so they are left to the launcher), or a name found on
 * `searchPath` — else AdapterInputError (ENOENT or EACCES), as a direct spawn would report.
 */
export function checkCommand(command: string, searchPath: string | undefined): string {
  if (command.includes('/')) {
    if (path.isAbsolute(command) && !executable(command)) throw refused(command, 'ENOENT', 'no such executable file');
    return command;
  }
  for (const dir of (searchPath ?? '').split(':')) {
    if (dir && path.isAbsolute(dir) && executable(path.join(dir, command))) return command;
  }
  throw refused(command, 'ENOENT', 'not found on the agent PATH');
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function refused(command: string, code: string, why: string): AdapterInputError {
  return new AdapterInputError(`cannot start ${JSON.stringify(command)}: ${code} (${why})`);
}
