// The bound on tar downloads at once: per agent's workspace, and for the whole box, so several agents together cannot take the shared tar worker.
import t from 'tap';
import type { ApiError } from '../../management-api/src/errors.js';
import { MAX_TAR_DOWNLOADS, MAX_TAR_DOWNLOADS_PER_AGENT, TarDownloads } from '../../management-api/src/workspace-files/tar-limits.js';

/** The 429 `admit` throws, or undefined when it let the download in. */
function refusal(downloads: TarDownloads, agent: string): ApiError | undefined {
  try {
    downloads.admit(agent);
    return undefined;
  } catch (err) {
    return err as ApiError;
  }
}

t.test('the box-wide bound holds whatever agents the downloads are of; one ended lets one more in', async (t) => {
  const downloads = new TarDownloads();
  const ends: Array<() => void> = [];
  // Four agents at their own bound fill the box's sixteen.
  t.equal(MAX_TAR_DOWNLOADS, 4 * MAX_TAR_DOWNLOADS_PER_AGENT, 'the figures this test is written for');
  for (let a = 0; a < 4; a++) for (let i = 0; i < MAX_TAR_DOWNLOADS_PER_AGENT; i++) ends.push(downloads.admit(`agt_${a}`));
  const refused = refusal(downloads, 'agt_fifth');
  t.match(refused, { code: 'ABX_ERR_RATE_LIMITED', message: /the box has 16 tar downloads going, the most at once/ }, 'an agent with none going is refused');
  t.same(refused?.headers, { 'retry-after': '1' }, 'with Retry-After');
  ends[0]!();
  ends[0]!();
  t.equal(refusal(downloads, 'agt_fifth'), undefined, 'one ended (twice: counted once) lets one in');
  t.match(refusal(downloads, 'agt_sixth'), { message: /the box has 16/ }, 'and only one');
  for (const end of ends.slice(1)) end();
  for (let a = 0; a < 3; a++) for (let i = 0; i < MAX_TAR_DOWNLOADS_PER_AGENT; i++) downloads.admit(`agt_new${a}`);
  t.equal(refusal(downloads, 'agt_fifth'), undefined, 'the others ended: their places are free again');
});

t.test('the per-agent bound comes first and names the agent', async (t) => {
  const downloads = new TarDownloads();
  for (let i = 0; i < MAX_TAR_DOWNLOADS_PER_AGENT; i++) downloads.admit('agt_a');
  t.match(refusal(downloads, 'agt_a'), { code: 'ABX_ERR_RATE_LIMITED', message: /agent agt_a has 4 tar downloads going/ });
  t.equal(refusal(downloads, 'agt_b'), undefined, "another agent's workspace is let in");
});
