// Child of next-tick-bench: times process.nextTick before and after full collections made while no
// tick is queued (what an idle server sees), with or without boot/tick-shape-pin.ts. Needs --expose-gc.
import { pinTickObjectShape } from '../../management-api/src/boot/tick-shape-pin.js';

const TICKS = 2_000_000;
const BATCH = 1_000;

/** Nanoseconds per nextTick call and callback, queued in batches the way a busy server does. */
function nsPerTick(): Promise<number> {
  return new Promise((resolve) => {
    let done = 0;
    let queued = 0;
    const t0 = process.hrtime.bigint();
    const onTick = (): void => {
      if (++done === TICKS) resolve(Number(process.hrtime.bigint() - t0) / TICKS);
    };
    const queueBatch = (): void => {
      for (let i = 0; i < BATCH; i++) process.nextTick(onTick);
      if ((queued += BATCH) < TICKS) setImmediate(queueBatch);
    };
    queueBatch();
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const pinned = process.argv.includes('--pin') ? pinTickObjectShape() : false;
const best = async (): Promise<number> => Math.min(await nsPerTick(), await nsPerTick(), await nsPerTick());
const before = await best();
// Idle moments: a tick now and then, and a full collection while none is queued.
for (let i = 0; i < 4; i++) {
  process.nextTick(() => undefined);
  await sleep(20);
  gc();
}
const after = await best();
process.stdout.write(`${JSON.stringify({ pinned, before, after })}\n`);
