// Shared check of the `off` contract: every operation returns a promise (never throws
// synchronously) that rejects with ABX_ERR_ADAPTER_OFF.
import type { Test } from 'tap';

/** For each `[name, call]`: the call does not throw, and its promise rejects matching `expected`. */
export async function expectRefusedAsOff(t: Test, calls: ReadonlyArray<readonly [string, () => Promise<unknown>]>, expected: object): Promise<void> {
  for (const [name, call] of calls) {
    let result: Promise<unknown> | undefined;
    t.doesNotThrow(() => (result = call()), `${name} does not throw synchronously`);
    await t.rejects(result!, { code: 'ABX_ERR_ADAPTER_OFF', ...expected }, `${name} is refused as off`);
  }
}
