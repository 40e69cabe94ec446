// The snapshot store as a fastify plugin: opened under the box's state directory at start, `app.snapshots`.
import path from 'node:path';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { ApiMetrics } from '../api-metrics.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { SnapshotStore } from './snapshot-store.js';
import { WarmForks } from './warm-forks.js';
import { WARM_WANTED_FILE, WarmWanted } from './warm-wanted.js';
import { describeWorkspaceFs } from '../workspace-files/workspace-fs.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Workspace snapshots: content-addressed, deduplicated across snapshots and agents. */
    snapshots: SnapshotStore;
    /** Copies of snapshots built ahead for forks and restores (PUT /v1/snapshots/{sid}/warm). */
    warmForks: WarmForks;
  }
}

/** Options of {@link snapshotsPlugin}. */
export interface SnapshotsPluginOptions {
  paths: RuntimePaths;
  logger: Logger;
  metrics: Pick<ApiMetrics, 'snapshots'>;
}

/** The store's directory: on the state volume, which no agent sees (the sandbox hides it). */
export const snapshotStoreDir = (paths: Pick<RuntimePaths, 'stateDir'>): string => path.join(paths.stateDir, 'snapshots');

export const snapshotsPlugin = fp<SnapshotsPluginOptions>(
  async (app, options) => {
    const store = new SnapshotStore({ dir: snapshotStoreDir(options.paths), logger: options.logger, metrics: options.metrics.snapshots });
    await store.open();
    // Said once at start, where an operator reads: forks and restores on such a disk are several times slower, and nothing else would say why.
    const workspaceFs = describeWorkspaceFs(options.paths.workspaceDir);
    if (workspaceFs.warn)
      options.logger.warn(
        { event: 'WorkspaceWithoutJournal', workspaceDir: options.paths.workspaceDir, device: workspaceFs.device, fix: workspaceFs.fix },
        workspaceFs.detail,
      );
    app.decorate('snapshots', store);
    app.addHook('onClose', () => store.close());
    const spareOwners = app.sandbox.spareOwners();
    const warmForks = new WarmForks({
      store,
      workspaceDir: options.paths.workspaceDir,
      logger: options.logger,
      // The disk guard starts after the store (readiness plugin); a copy is built only once asked for, by then.
      room: () => app.probes.disk.headroom('workspace'),
      metrics: options.metrics.snapshots,
      // Beside the store, not in it: a backup holds the snapshots, not this run's wishes for copies.
      wanted: new WarmWanted(path.join(options.paths.stateDir, WARM_WANTED_FILE)),
      // A root box: each copy built as spare ids, which the fork of a new name adopts (no chown of every entry).
      ...(spareOwners ? { owners: spareOwners } : {}),
    });
    app.decorate('warmForks', warmForks);
    // Once every plugin is there (the disk guard a build asks for room): the copies the last run wanted are built again, in the background.
    app.addHook('onReady', async () => {
      void warmForks
        .resume()
        .catch((err: unknown) =>
          options.logger.warn(
            { event: 'SnapshotWarmNotResumed', err: (err as Error).message },
            'the warm forks wanted before this start were not asked for again',
          ),
        );
    });
    // Before the store closes: a copy under way ends, and every copy goes (one is trusted only while this box runs).
    app.addHook('preClose', () => warmForks.close());
  },
  { name: 'agentbox-snapshots', dependencies: ['agentbox-sandbox'] },
);
