// Many empty files made quickly in a test's directory: what a hostile agent fills a directory with.
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';

/** `count` empty files named `<prefix><i>` in `dir` (which exists). */
export function emptyFiles(dir: string, count: number, prefix = 'f'): void {
  for (let i = 0; i < count; i++) closeSync(openSync(path.join(dir, `${prefix}${i}`), 'w'));
}
