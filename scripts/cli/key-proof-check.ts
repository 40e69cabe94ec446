// Before a command sends an API key to a URL, the box there proves it holds that key already (it answers
// a random challenge with an HMAC under it): a key is never handed to another box, or to whatever else
// answers at a guessed or mistyped address.
import { randomBytes } from 'node:crypto';
import { proofHolds } from '../../management-api/src/auth/key-proof.js';
import { readAtMost } from '../../management-api/src/read-at-most.js';
import { UserError } from './cli-errors.js';

/** Long enough for a box busy with a backup or a build on two cores; a listener that never answers fails here. */
const PROOF_TIMEOUT_MS = 30_000;
/** An answer is about 80 bytes; whatever answers there may not be a box, so no more is read. */
const MAX_ANSWER_BYTES = 16_384;

/** What came of asking a URL for its proof. */
export type ProofOutcome = { kind: 'proven' } | { kind: 'refused'; message: string } | { kind: 'unreachable'; message: string; cause: string };

/** Ask the box at `url` to prove it holds `key`, read from `keyFile` (named in the messages). */
export async function askKeyProof(url: string, key: string, keyFile: string): Promise<ProofOutcome> {
  const challenge = randomBytes(32).toString('hex');
  let status: number;
  let body: unknown;
  let location: string | null = null;
  try {
    // A redirect is never followed: whatever answers at `url` could send the challenge on to the key's
    // box, and the proof that came back would be that box's while the key went to `url`.
    const res = await fetch(`${url}/v1/auth/key-proof?challenge=${challenge}`, { redirect: 'manual', signal: AbortSignal.timeout(PROOF_TIMEOUT_MS) });
    status = res.status;
    location = res.headers.get('location');
    body = await cappedJson(res);
  } catch (err) {
    const cause = (err as Error & { cause?: Error }).cause?.message ?? (err as Error).message;
    return {
      kind: 'unreachable',
      cause,
      message: `cannot reach ${url}: ${cause}. Is the box running (\`npm start\`)? \`agentbox boxes\` lists the running boxes and their API URLs: pass --root or --url`,
    };
  }
  if (status === 200 && proofHolds((body as { proof?: unknown } | undefined)?.proof, key, challenge)) return { kind: 'proven' };
  const elsewhere = `the --url of that key's box, or the --root of the box at ${url} (\`agentbox boxes\` lists the running boxes)`;
  const why =
    status >= 300 && status < 400
      ? `it answered the key proof with a redirect (HTTP ${status}${location ? ` to ${JSON.stringify(location.slice(0, 200))}` : ''}): a key goes only to the URL that proves it holds it, never on to where a redirect points. If the box it points to is that key's box, pass that box's URL as --url`
      : status !== 200
        ? // A box started before key proofs answers 401 (an unknown route needs the key) and cannot be told from a stranger.
          `it did not answer the key proof (HTTP ${status} to GET /v1/auth/key-proof). If it is that key's box, an older agentbox started it: restart it (\`agentbox down\`, then \`agentbox up\` or \`npm start\`); else pass ${elsewhere}`
        : `its answer to the key proof is not that of this key: it is another box, or not a box. Pass ${elsewhere}`;
  return { kind: 'refused', message: `the API key in ${keyFile} was not sent to ${url}: ${why}` };
}

/** Throw unless the box at `url` proves it holds `key`. */
export async function checkKeyProof(url: string, key: string, keyFile: string): Promise<void> {
  const outcome = await askKeyProof(url, key, keyFile);
  if (outcome.kind !== 'proven') throw new UserError(outcome.message, 1);
}

/** An answer's JSON, read no further than MAX_ANSWER_BYTES; undefined when it is longer or not JSON. */
async function cappedJson(res: Response): Promise<unknown> {
  const { bytes, more } = await readAtMost(res.body, MAX_ANSWER_BYTES);
  if (more) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
