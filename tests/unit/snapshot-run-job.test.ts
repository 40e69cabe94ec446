// A snapshot job's thread (run-job.ts) that throws after it answered: the job gives its answer, every time. The error can reach the API's thread before the answer does (one thread in ten to twenty here), and failed a restore whose work was done with a 500.
import t from 'tap';
import { runJob } from '../../management-api/src/snapshots/run-job.js';
import type { RegiveJob } from '../../management-api/src/snapshots/snapshot-protocol.js';

const script = new URL('../helpers/answer-then-throw-worker.mjs', import.meta.url);

t.test('a thread that throws after answering: the job gives its answer (40 threads, 4 at a time)', async (t) => {
  const answers: unknown[] = [];
  for (let round = 0; round < 10; round++) {
    const jobs = Array.from({ length: 4 }, (_, i) => runJob({ answer: round * 4 + i } as unknown as RegiveJob, script));
    answers.push(...(await Promise.allSettled(jobs)).map((r) => (r.status === 'fulfilled' ? r.value : `failed: ${(r.reason as Error).message}`)));
  }
  t.same(
    answers,
    Array.from({ length: 40 }, (_, i) => i),
  );
});

t.test('a thread that throws before answering: the job fails with its error', async (t) => {
  const failing = new URL('data:text/javascript,throw new Error("no answer")');
  await t.rejects(runJob({} as unknown as RegiveJob, failing), { message: 'no answer' });
});
