// A real Postgres with pgvector for the external-pg tests: PGlite served over the wire protocol on 127.0.0.1.
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { freePort } from '../../helpers/free-port.js';
export { freePort };

/** A running PGlite socket server. */
export interface PgliteServer {
  port: number;
  /** Connection string for `pg` (PGlite accepts any user and password). */
  url: string;
  /** Stop serving and close the database (the data directory, if any, stays). */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (bound and released: a later listen on it may still race, rarely). */
/**
 * Start PGlite with the vector extension available (not created: the adapter creates it) and
 * serve it on 127.0.0.1:`port`. With `dataDir` the database lives on disk and survives a stop.
 */
export async function startPglite(options: { port?: number; dataDir?: string; password?: string } = {}): Promise<PgliteServer> {
  const port = options.port ?? (await freePort());
  const db = await PGlite.create({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections: 8 });
  await server.start();
  return {
    port,
    url: `postgres://agentbox:${options.password ?? 'not-a-secret'}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
