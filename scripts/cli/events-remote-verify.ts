// `agentbox events verify --remote URL --against OLD`: hold a running box to a checkpoint kept from before — its current signed checkpoint, and a consistency proof that the old tree is a prefix of it.
import { readFile } from 'node:fs/promises';
import { parseCheckpoint, type Checkpoint } from '../../management-api/src/tlog/checkpoint.js';
import { verifyConsistency } from '../../management-api/src/tlog/proof-verify.js';
import { openNote, parseVerifierKey, type NoteVerifier } from '../../management-api/src/tlog/signed-note.js';
import { UserError } from './cli-errors.js';
import { boxFetch } from './box-fetch.js';

/** What a remote check found: `grown` and `same` are consistent; `forked` is a box whose history no longer holds the old one. */
export interface RemoteReport {
  ok: boolean;
  outcome: 'grown' | 'same' | 'forked';
  url: string;
  origin: string;
  old: { size: number; root: string };
  current: { size: number; root: string };
  /** Where the verifier key came from: --key, or the box's /v1/meta, accepted because the old checkpoint verifies with it. */
  keySource: 'key' | 'box';
  message: string;
}

/** Options of {@link verifyRemote}. */
export interface RemoteOptions {
  url: string;
  /** The old checkpoint file. */
  against: string;
  /** The verifier key (a key string or a file holding it); without it, the box's own, if the old checkpoint verifies with it. */
  key?: string;
  /** The box's API key. */
  apiKey?: string;
}

const KEY_SHAPE = /^[^+\s]+\+[0-9a-f]{8}\+\S+$/;

/**
 * Verify `against` and the box's current checkpoint with one key, then the consistency proof
 * between them. Exit 2 cases (unreadable, unreachable, a checkpoint that does not verify) throw a
 * UserError; a box whose log was truncated or rewritten since the old checkpoint is `forked`.
 */
export async function verifyRemote(options: RemoteOptions): Promise<RemoteReport> {
  const url = options.url.replace(/\/+$/, '');
  const oldNote = await readFile(options.against, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UserError(`cannot read the checkpoint ${options.against}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const get = remoteGetter(url, options.apiKey);
  const { verifier, source } = await verifierFor(options.key, get, oldNote, options.against);
  const old = openCheckpoint(oldNote, verifier, `the checkpoint ${options.against}`);
  const currentNote = await get('/v1/events/checkpoint', 'text');
  const current = openCheckpoint(currentNote as string, verifier, `the checkpoint ${url} serves now`);
  if (current.origin !== old.origin) throw new UserError(`${url} serves the checkpoint of log ${current.origin}, not of ${old.origin}: another log`);
  const report = (outcome: RemoteReport['outcome'], message: string): RemoteReport => ({
    ok: outcome !== 'forked',
    outcome,
    url,
    origin: old.origin,
    old: { size: old.size, root: old.root.toString('base64') },
    current: { size: current.size, root: current.root.toString('base64') },
    keySource: source,
    message,
  });
  if (current.size < old.size)
    return report('forked', `the box's log holds ${current.size} entries, the old checkpoint covers ${old.size}: it was truncated or rewritten`);
  if (current.size === old.size) {
    return current.root.equals(old.root)
      ? report('same', `unchanged at ${old.size} entries (the same root)`)
      : report('forked', `the same size ${old.size} with another root: the log was rewritten`);
  }
  // An empty tree is a prefix of every tree; there is nothing to prove.
  if (old.size === 0) return report('grown', `grown from 0 to ${current.size} entries`);
  const proof = (await get(`/v1/events/proof/consistency?from=${old.size}&to=${current.size}`, 'json')) as { path?: unknown };
  if (!Array.isArray(proof.path) || !proof.path.every((h) => typeof h === 'string'))
    throw new UserError(`${url} answered the consistency proof without a path of base64 hashes`);
  try {
    verifyConsistency(
      old.size,
      current.size,
      old.root,
      current.root,
      (proof.path as string[]).map((h) => Buffer.from(h, 'base64')),
    );
  } catch (err) {
    return report(
      'forked',
      `the consistency proof from ${old.size} to ${current.size} entries does not hold (${(err as Error).message}): the first ${old.size} entries were rewritten`,
    );
  }
  return report('grown', `grown from ${old.size} to ${current.size} entries; the consistency proof holds`);
}

/**
 * --key (a key, or a file holding one); otherwise the key the box names in /v1/meta, taken only
 * because the old checkpoint, obtained before, verifies with it. A note's signature names its key
 * by a 4-byte id only: the note alone cannot give the key, so a box that offers another key needs --key.
 */
async function verifierFor(key: string | undefined, get: Getter, oldNote: string, against: string): Promise<{ verifier: NoteVerifier; source: 'key' | 'box' }> {
  if (key !== undefined) {
    const text = KEY_SHAPE.test(key.trim())
      ? key.trim()
      : (
          await readFile(key, 'utf8').catch((err: NodeJS.ErrnoException) => {
            throw new UserError(`cannot read the verifier key ${key}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
          })
        ).trim();
    return { verifier: parseKey(text, `--key ${key}`), source: 'key' };
  }
  const meta = (await get('/v1/meta', 'json')) as { eventLog?: { verifierKey?: unknown } };
  const offered = meta.eventLog?.verifierKey;
  if (typeof offered !== 'string') throw new UserError('the box names no event log verifier key (GET /v1/meta eventLog.verifierKey): pass --key');
  const verifier = parseKey(offered, "the box's verifier key");
  try {
    openNote(oldNote, verifier);
  } catch (err) {
    throw new UserError(`${against} does not verify with the key the box offers now (${(err as Error).message}): pass --key with the verifier key you trust`);
  }
  return { verifier, source: 'box' };
}

function parseKey(text: string, what: string): NoteVerifier {
  try {
    return parseVerifierKey(text);
  } catch (err) {
    throw new UserError(`${what} is not a signed-note verifier key (<origin>+<id>+<key>): ${(err as Error).message}`);
  }
}

function openCheckpoint(note: string, verifier: NoteVerifier, what: string): Checkpoint {
  try {
    return parseCheckpoint(openNote(note, verifier));
  } catch (err) {
    throw new UserError(`${what} does not verify: ${(err as Error).message}`);
  }
}

type Getter = (pathname: string, as: 'json' | 'text') => Promise<unknown>;

/** GET on the box with the API key; anything but 200 is a user error naming the route and the box's message. */
function remoteGetter(url: string, apiKey: string | undefined): Getter {
  return async (pathname, as) => {
    // Exit 2, as the command's other failures to check: its exit 1 means the box's history forked.
    const res = await boxFetch(
      url + pathname,
      apiKey,
      { headers: { accept: as === 'json' ? 'application/json' : 'text/plain' }, signal: AbortSignal.timeout(10_000) },
      { exitCode: 2 },
    );
    const text = await res.text();
    if (res.status !== 200) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not JSON: the text as it came
      }
      throw new UserError(
        `${url}${pathname} answered ${res.status}: ${message}${res.status === 401 ? ' (pass --key-file with the box API key, or --root DIR where it is kept)' : ''}`,
      );
    }
    if (as === 'text') return text;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new UserError(`${url}${pathname} did not answer JSON`);
    }
  };
}
