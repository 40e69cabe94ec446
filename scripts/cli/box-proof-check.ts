// Before a command sends a root's API key to a URL, the box there proves it holds that root's identity
// key (it signs a random challenge): a key is never handed to another box or to whatever else answers
// at a guessed or mistyped address.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { getPublicKey } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { hexToBytes } from 'nostr-tools/utils';
import { proofProblem } from '../../management-api/src/mesh/box-proof.js';
import type { RuntimePaths } from '../../management-api/src/runtime-paths.js';
import { UserError } from './cli-errors.js';

/** Long enough for a box busy with a backup or a build on two cores; a listener that never answers fails here. */
const PROOF_TIMEOUT_MS = 30_000;
/** A signed event answering one challenge is about 400 bytes. */
const MAX_PROOF_BYTES = 16_384;

/**
 * The public key of the identity under the root, or undefined when there is none to check against
 * (a root that holds only a copied API key, or a box whose identity lives elsewhere).
 */
export async function rootIdentity(paths: RuntimePaths): Promise<string | undefined> {
  const hex = (await readFile(paths.identityKeyFile, 'utf8').catch(() => '')).trim();
  return /^[0-9a-f]{64}$/.test(hex) ? getPublicKey(hexToBytes(hex)) : undefined;
}

/** An answer's JSON, read no further than a proof's size: whatever answers there may not be a box. */
async function cappedJson(res: Response): Promise<unknown> {
  const reader = res.body?.getReader();
  if (!reader) return undefined;
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_PROOF_BYTES) {
      await reader.cancel();
      return undefined;
    }
    parts.push(value);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** What came of asking a URL for its proof. */
export type ProofOutcome = { kind: 'proven' } | { kind: 'unreachable' | 'refused'; message: string };

/** Ask the box at `url` to prove it is the box whose identity is `pubkey`; `root` names it in the messages. */
export async function askBoxProof(url: string, pubkey: string, root: string): Promise<ProofOutcome> {
  const challenge = randomBytes(32).toString('hex');
  let status: number;
  let body: unknown;
  try {
    const res = await fetch(`${url}/v1/identity/proof?challenge=${challenge}`, { signal: AbortSignal.timeout(PROOF_TIMEOUT_MS) });
    status = res.status;
    body = await cappedJson(res);
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    return {
      kind: 'unreachable',
      message: `cannot reach ${url}: ${cause}. Is the box running (\`npm start\`)? \`agentbox boxes\` lists the running boxes and their API URLs: pass --root or --url`,
    };
  }
  const problem = status === 200 ? proofProblem(body, pubkey, challenge) : `it did not prove its identity (HTTP ${status} to GET /v1/identity/proof)`;
  if (!problem) return { kind: 'proven' };
  return {
    kind: 'refused',
    message: `the API key under ${root} was not sent to ${url}: the box there is not the one under ${root} (${npubEncode(pubkey)}): ${problem}. Pass the --url of the box under ${root}, or the --root of the box at ${url}; \`agentbox boxes\` lists the running boxes`,
  };
}

/** Throw unless the box at `url` proves it is the box whose identity is `pubkey`. */
export async function checkBoxProof(url: string, pubkey: string, root: string): Promise<void> {
  const outcome = await askBoxProof(url, pubkey, root);
  if (outcome.kind !== 'proven') throw new UserError(outcome.message, 1);
}
