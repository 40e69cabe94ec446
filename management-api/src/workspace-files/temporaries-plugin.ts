// The records of the files API's temporaries as a fastify plugin: their directory under the box's state, swept at start, `app.workspaceTemporaries`.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { RuntimePaths } from '../runtime-paths.js';
import { TemporaryRecords } from './temporary-records.js';
import { sweepTemporaries, type SweepReport } from './temporary-sweep.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where the files API records the temporaries it makes in workspaces (temporary-records.ts). */
    workspaceTemporaries: WorkspaceTemporaries;
  }
}

/** The records, and the start's sweep of those a killed API left. */
export interface WorkspaceTemporaries {
  records: TemporaryRecords;
  /** Settles when the start's sweep is done (never rejects). */
  swept: Promise<SweepReport>;
}

/** Options of {@link temporariesPlugin}. */
export interface TemporariesPluginOptions {
  paths: RuntimePaths;
  logger: Logger;
}

/** The records' directory: on the state volume, which no agent sees (the sandbox hides it). */
export const temporaryRecordsDir = (paths: Pick<RuntimePaths, 'stateDir'>): string => path.join(paths.stateDir, 'workspace-temporaries');

/**
 * The records left are listed before the routes exist, so the sweep only ever sees a killed
 * process's, never one of a write of this start; it then runs in the background (a staging tree
 * may hold many files), and closing the app waits for it. Whatever it meets, the box starts.
 */
export const temporariesPlugin = fp<TemporariesPluginOptions>(
  async (app, { paths, logger }) => {
    const records = new TemporaryRecords(temporaryRecordsDir(paths));
    let left: string[] = [];
    try {
      await mkdir(records.dir, { recursive: true, mode: 0o700 });
      left = await records.list();
    } catch (err) {
      logger.warn({ event: 'WorkspaceTemporarySweepFailed', dir: records.dir, err }, 'the records of workspace temporaries cannot be read; none is swept');
    }
    const swept = sweepTemporaries(records, left, paths.workspaceDir, logger).then((report) => {
      if (left.length > 0) logger.info({ event: 'WorkspaceTemporariesSwept', ...report }, `${left.length} workspace temporaries a killed API left were swept`);
      return report;
    });
    app.decorate('workspaceTemporaries', { records, swept });
    app.addHook('onClose', async () => {
      await swept;
    });
  },
  { name: 'agentbox-workspace-temporaries' },
);
