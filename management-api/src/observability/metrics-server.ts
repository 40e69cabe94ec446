// The separate listener that serves /metrics, so scraping never competes with the API's routes or auth.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/** A running metrics listener. */
export interface MetricsServer {
  /** The bound port (useful when 0 was asked for). */
  port: number;
  close(): Promise<void>;
}

/** Listen on `host:port` and answer `GET /metrics` with the registry's exposition. */
export async function startMetricsServer(options: { registry: Registry; host: string; port: number; logger: Logger }): Promise<MetricsServer> {
  const { registry, logger } = options;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: the metrics listener serves GET /metrics only\n');
      return;
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        logger.error({ err, event: 'MetricsRenderFailed' }, 'rendering /metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics rendering failed\n');
      },
    );
  });
  // Scrapers keep connections alive; short timeouts stop idle sockets from delaying shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
