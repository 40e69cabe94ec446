// A time given on the command line: an ISO-8601 time, or an age before now (30m, 12h, 7d), as `audit --since` and the backups' `--not-before` take it.
import { UsageError } from './cli-errors.js';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `text` as an ISO time: itself normalised, or now less the age it gives; else a usage error naming `option`. */
export function timeOrAge(option: string, text: string, now = Date.now()): string {
  const age = /^(\d+)([smhd])$/.exec(text);
  if (age) return new Date(now - Number(age[1]) * UNIT_MS[age[2] as keyof typeof UNIT_MS]).toISOString();
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new UsageError(`${option} ${JSON.stringify(text)} is neither an ISO-8601 time nor an age such as 30m, 12h or 7d`);
  return new Date(ms).toISOString();
}
