// The end of a log file, for a test that fails waiting on a process and shows what it wrote.
import { readFileSync } from 'node:fs';

/** The last `n` lines of `file`. */
export const lastLines = (file: string, n: number): string => readFileSync(file, 'utf8').split('\n').slice(-n).join('\n');
