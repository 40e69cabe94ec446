// Before `agentbox backup` copies the event log: ask the running box to sign a checkpoint now, so
// the backup holds every event so far rather than those up to the last interval's checkpoint.
import { existsSync } from 'node:fs';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { boxAt, registryDir } from './box-registry.js';
import { readApiKey } from './box-target.js';
import { askKeyProof } from './key-proof-check.js';
import { boxFetch } from './box-fetch.js';
import { UserError } from './cli-errors.js';

/** How long the box may take to answer: signing is one fsync of the tree and one of the note. */
const ASK_TIMEOUT_MS = 15_000;

/**
 * Ask the box at `url` (default: the box the registry knows under `root`) to sign a checkpoint.
 * Never fails the backup: a box that is not running signed its last checkpoint when it stopped,
 * and one that cannot be asked leaves the backup at the latest checkpoint it has. Returns the line
 * to show the user, none when `root` holds no box state.
 */
export async function askForCheckpoint(root: string, url: string | undefined, env = process.env): Promise<string | undefined> {
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  // No box state there: the backup says so itself, naming the root.
  if (!existsSync(paths.stateDir)) return undefined;
  const api = url ?? boxAt(root, registryDir(env))?.apiUrl;
  const fallback = "the event log goes up to the box's latest checkpoint";
  if (!api) return `no running box under ${root} is known to this machine (agentbox boxes), so ${fallback}; a box started otherwise (a container): --url URL`;
  const base = api.replace(/\/+$/, '');
  const key = await readApiKey(paths);
  // The key goes only to a box that proves it holds it already.
  if (key) {
    const proof = await askKeyProof(base, key, paths.apiKeyFile);
    if (proof.kind === 'unreachable') return `cannot reach the box at ${api} (${proof.cause}), so ${fallback}`;
    if (proof.kind === 'refused') return `${proof.message}; so ${fallback}`;
  }
  const target = `${base}/v1/events/checkpoint`;
  try {
    const res = await boxFetch(target, key, { method: 'POST', signal: AbortSignal.timeout(ASK_TIMEOUT_MS) }, { where: `the box at ${api}` });
    const text = await res.text();
    if (res.status !== 200) return `the box at ${api} did not sign a checkpoint (${res.status}: ${errorMessage(text)}), so ${fallback}`;
    // Only shown: the copy reads the checkpoint on disk and checks the log against it. Line 2 of the note is its size.
    const size = Number(text.split('\n')[1]);
    return `the box at ${api} signed a checkpoint${Number.isSafeInteger(size) ? ` of ${size} events` : ''}`;
  } catch (err) {
    // A redirect, a box that does not answer, or one that stopped midway: the backup goes on without a new checkpoint.
    const e = err as Error & { cause?: Error };
    return `${err instanceof UserError ? e.message : `cannot reach the box at ${api} (${e.cause?.message ?? e.message})`}; so ${fallback}`;
  }
}

/** The message of an error body, or the text as it came. */
function errorMessage(text: string): string {
  try {
    return (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    return text.trim();
  }
}
