// Idle compaction as a fastify plugin: started with the app, stopped with it; `app.idleCompaction`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { startIdleCompaction, type IdleCompaction } from './idle-compaction.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Returns memory after bursts of requests (observability/idle-compaction.ts). */
    idleCompaction: IdleCompaction;
  }
}

/** Options of {@link idleCompactionPlugin}. */
export interface IdleCompactionPluginOptions {
  logger: Logger;
  timing?: { idleCompactionMs?: number };
}

/** Starts the idle watch (a quiet API gives memory back) and stops it when the app closes. */
export const idleCompactionPlugin = fp<IdleCompactionPluginOptions>(
  async (app, options) => {
    const idleCompaction = startIdleCompaction({
      logger: options.logger,
      ...(options.timing?.idleCompactionMs ? { idleMs: options.timing.idleCompactionMs } : {}),
    });
    app.decorate('idleCompaction', idleCompaction);
    app.addHook('onClose', async () => idleCompaction.stop());
  },
  { name: 'agentbox-idle-compaction' },
);
