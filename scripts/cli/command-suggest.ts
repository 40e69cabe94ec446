// What `agentbox` suggests for a command it does not know: one of its own spelled nearly so, or the one that does what a Docker user's word does there.
import { closest, distance } from 'fastest-levenshtein';

/** Words a container user types, and this CLI's command for them (ours differ where the meaning does: an agent is ended, never stopped and started again). */
const FAMILIAR: Readonly<Record<string, string>> = {
  stop: 'kill',
  start: 'run',
  top: 'ps',
  list: 'ps',
  log: 'logs',
  copy: 'cp',
  snapshots: 'snapshot',
};

/** The command `word` most likely meant among `names` (each a word, or a group's subcommand), or undefined when none is close. */
export function suggestCommand(word: string, names: readonly string[]): string | undefined {
  const familiar = FAMILIAR[word.toLowerCase()];
  if (familiar !== undefined && names.includes(familiar)) return familiar;
  if (names.length === 0 || word.length === 0) return undefined;
  const best = closest(word.toLowerCase(), [...names]);
  // A typo: a letter or two, more for a long word; "cp" for "ps" is not one.
  const limit = word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3));
  return distance(word.toLowerCase(), best) <= limit ? best : undefined;
}

/** The line said after "unknown command": a `did you mean` when there is one, else nothing. */
export function didYouMean(prefix: string, word: string, names: readonly string[]): string {
  const best = suggestCommand(word, names);
  return best === undefined ? '' : `; did you mean "${prefix}${best}"?`;
}
