// Wires the dashboard into the app: sessions for the gate, change notifications, static files, session routes and the live stream (two fastify plugins, before and after the routes).
import type { FastifyInstance } from 'fastify';
import { fastifyCookie } from '@fastify/cookie';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import '../app-state.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { Nip98Verifier } from '../mesh/nip98.js';
import type { DashboardMetrics } from './metrics.js';
import { DashboardHub } from './hub.js';
import { snapshotProducer, type Topic } from './snapshots.js';
import { registerDashboardStream } from './stream.js';
import { sessionAuthenticator } from './session-auth.js';
import { registerSessionRoutes } from './session-routes.js';
import { SessionStore } from './session-store.js';
import { registerStaticFiles } from './static-files.js';

/** Settings of the dashboard (tests point it elsewhere and shorten it). */
export interface UiOptions {
  /** The built dashboard (default: dist/ui found from this module's location). */
  root?: string;
  /** Session lifetime (default 8 h). */
  sessionTtlMs?: number;
  /** The shared sampling interval of the live stream (default 1 s). */
  sampleMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The dashboard of this app: its sessions (for the request gate), its routes registered by {@link dashboardPlugin}. */
    dashboard: Dashboard;
  }
}

/** The dashboard of one app, in two steps around route registration. */
export interface Dashboard {
  /** For the request gate: accepts the session cookie. */
  sessions: ReturnType<typeof sessionAuthenticator>;
  /** Register the /ui routes and the stream (after the app's state is decorated). */
  register(): Promise<void>;
}

// Mutations through these routes change what a topic shows; the topic is rebuilt as soon as they answer.
const MUTATED: ReadonlyArray<[prefix: string, topic: Topic]> = [
  ['/v1/agents', 'agents'],
  ['/v1/beads', 'beads'],
];

/**
 * Step one, before any route is declared: the session store and the hub, and a response hook on
 * the agent and bead mutation routes only (other routes pay nothing).
 */
export function prepareDashboard(
  app: FastifyInstance,
  options: { key: string; nip98?: Nip98Verifier; clock: () => Date; logger: Logger; metrics: DashboardMetrics; ui?: UiOptions },
): Dashboard {
  const store = new SessionStore({ clock: options.clock, ...(options.ui?.sessionTtlMs ? { ttlMs: options.ui.sessionTtlMs } : {}) });
  const hub = new DashboardHub({
    produce: snapshotProducer(app),
    logger: options.logger,
    metrics: options.metrics,
    ...(options.ui?.sampleMs ? { sampleMs: options.ui.sampleMs } : {}),
  });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => m === 'GET' || m === 'HEAD')) return;
    const topic = MUTATED.find(([prefix]) => route.url.startsWith(prefix))?.[1];
    if (!topic) return;
    const hook = async (_request: unknown, reply: { statusCode: number }): Promise<void> => {
      if (reply.statusCode < 400) hub.changed(topic);
    };
    route.onResponse = route.onResponse === undefined ? [hook] : [...(Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]), hook];
  });
  // Before the server stops accepting: fastify's close would otherwise wait on streams that never end.
  app.addHook('preClose', async () => {
    hub.close();
    store.clear();
  });
  return {
    // fastifyCookie.parse works once the plugin is registered (below, in the session routes' scope).
    sessions: sessionAuthenticator(store, (header) => fastifyCookie.parse(header)),
    async register() {
      const { probes, resolver, approvals, inputRequests } = app.agentbox;
      probes.readiness.onChange(() => hub.changed('overview'));
      // A request held or settled (by a decision, a timeout, the API's close) shows at once.
      const unsubscribe = approvals.queue.subscribe(() => hub.changed('approvals'));
      app.addHook('onClose', async () => void unsubscribe());
      // So does an agent starting or ceasing to wait for a person.
      const unsubscribeInputs = inputRequests.subscribe(() => hub.changed('inputs'));
      app.addHook('onClose', async () => void unsubscribeInputs());
      // A slot's state shows in the overview and decides whether agents and beads are available.
      resolver.onChange(() => hub.changed('overview', 'agents', 'beads'));
      await registerStaticFiles(app, options.ui?.root !== undefined ? { root: options.ui.root } : {});
      // The cookie plugin lives in this scope only: its onSend hook never runs for the rest of the API.
      await app.register(async (scope) => {
        await scope.register(fastifyCookie, { hook: false });
        registerSessionRoutes(scope, { store, key: options.key, metrics: options.metrics, ...(options.nip98 ? { nip98: options.nip98 } : {}) });
      });
      registerDashboardStream(app, hub);
    },
  };
}

/** Options of {@link dashboardSessionsPlugin}. */
export interface DashboardPluginOptions {
  clock: () => Date;
  logger: Logger;
  metrics: Pick<ApiMetrics, 'dashboard'>;
  ui?: UiOptions;
}

/** Step one as a plugin, before the request gate (which takes its sessions) and before any route: `app.dashboard`. */
export const dashboardSessionsPlugin = fp<DashboardPluginOptions>(
  async (app, options) => {
    const nip98 = app.nip98;
    app.decorate(
      'dashboard',
      prepareDashboard(app, {
        key: app.apiKey,
        clock: options.clock,
        logger: options.logger,
        metrics: options.metrics.dashboard,
        ...(nip98 ? { nip98 } : {}),
        ...(options.ui ? { ui: options.ui } : {}),
      }),
    );
  },
  { name: 'agentbox-dashboard-sessions', dependencies: ['agentbox-api-key', 'agentbox-identity'] },
);

/** Step two as a plugin, once the app's state is decorated: the /ui routes and the live stream. */
export const dashboardPlugin = fp(
  async (app) => {
    await app.dashboard.register();
  },
  { name: 'agentbox-dashboard', dependencies: ['agentbox-dashboard-sessions', 'agentbox-state'] },
);
