// pods/local-fs: a pod stored as files under the state volume (`<state>/pods/`), with metadata sidecars.
import { constants } from 'node:fs';
import { access, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { AdapterContext, SlotHealth } from '../adapter.js';
import { AdapterDegradedError, AdapterUnavailableError } from '../../adapter-errors.js';
import { removeLeftovers } from './fs-atomic.js';
import { FsPodStore } from './fs-pod-store.js';
import type { PodsAdapter } from './pods-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'pods/local-fs';
export { CONTRACT_VERSION } from './pods-adapter.js';

/** The pod root under the state directory. */
export function podRoot(context: Pick<AdapterContext, 'paths'>): string {
  return path.join(context.paths.stateDir, 'pods');
}

/** A pods adapter on the local file system. */
export function create(context: AdapterContext<'pods'>): PodsAdapter {
  const configured = podRoot(context);
  let store: FsPodStore | undefined;

  // File system errors other than the adapter's own (not found, conflict, …) mean the volume
  // itself failed (EIO, ENOSPC, EACCES): the slot is unavailable, not the request wrong.
  const guard = async <T>(operation: string, run: (s: FsPodStore) => Promise<T>): Promise<T> => {
    if (!store) throw new AdapterDegradedError('pods', 'not connected');
    try {
      return await run(store);
    } catch (err) {
      if (err instanceof Error && 'code' in err && typeof (err as NodeJS.ErrnoException).errno === 'number') {
        throw new AdapterUnavailableError('pods', `${operation} failed on the pod volume: ${(err as NodeJS.ErrnoException).code ?? err.message}`, {
          cause: err,
        });
      }
      throw err;
    }
  };

  return {
    async connect(signal) {
      await mkdir(configured, { recursive: true, mode: 0o700 });
      signal.throwIfAborted();
      await access(configured, constants.R_OK | constants.W_OK | constants.X_OK);
      // The root may itself be a link (an operator's choice of volume); nothing below it may.
      const root = await realpath(configured);
      const removed = await removeLeftovers(root);
      if (removed > 0) context.logger.info({ event: 'PodTempFilesRemoved', removed }, 'removed temporary files left by an interrupted write');
      store = new FsPodStore(root);
    },
    async health(): Promise<SlotHealth> {
      if (!store) return { state: 'degraded', reason: 'not-connected' };
      try {
        await access(store.root, constants.R_OK | constants.W_OK | constants.X_OK);
        return { state: 'healthy' };
      } catch (err) {
        return { state: 'degraded', reason: `pod-root-inaccessible: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
      }
    },
    async close() {
      store = undefined;
    },
    get: (p) => guard('get', (s) => s.get(p)),
    put: (p, body, options) => guard('put', (s) => s.put(p, body, options)),
    delete: (p, conditions) => guard('delete', (s) => s.delete(p, conditions)),
    list: (p, request) => guard('list', (s) => s.list(p, request)),
  };
}
