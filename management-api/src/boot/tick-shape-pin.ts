// Keeps one process.nextTick record alive for the life of the process, so nextTick stays fast after full GCs.
//
// Node 20's nextTick builds each queued record with an object literal (`{[async_id_symbol]: …,
// [trigger_async_id_symbol]: …, callback, args}`). V8 holds the map transitions of that literal
// weakly: a full collection that runs while no record is queued — the normal state of an idle
// server — drops the chain, and the next record gets a fresh one. After three such collections
// the property stores in nextTick have seen too many maps, go megamorphic and stay so: measured
// here, nextTick then costs ~290 ns instead of ~55 ns (`scripts/bench/next-tick-bench.ts`), and
// the API's CPU per /ready request grows by about a quarter, for good, once the box has idled a
// few seconds after start-up (V8's memory reducer makes exactly such collections).
//
// One record kept reachable keeps its map, and through the back pointers every map of the
// chain, alive; the transitions then survive every collection and the stores stay monomorphic.
// The record is taken from a one-shot async hook, disabled again at once (async hooks cost on
// every asynchronous operation while enabled).
import { createHook } from 'node:async_hooks';

let pinned: object | undefined;

/** Take and hold one nextTick record. Idempotent; call it as early as possible in the process. */
export function pinTickObjectShape(): boolean {
  if (pinned) return true;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && !pinned) pinned = resource;
    },
  }).enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
  return pinned !== undefined;
}

function noop(): void {}
