// The adapter resolver: builds each slot's adapter from the manifest, connects them, supervises them.
import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { AgentSandbox } from '../sandbox/agent-sandbox.js';
import { sandboxSettings } from '../sandbox/sandbox-settings.js';
import type { AgentAuditHooks } from '../sandbox/agent-audit-hooks.js';
import type { AgentInputHooks } from './orchestrator/agent-input-hooks.js';
import type { AgentCredentialHooks } from '../credentials/hooks.js';
import type { AgentEgress } from '../egress/agent-credential.js';
import { SLOTS, type AdapterContext, type AdapterLifecycle, type AdapterModule, type SlotName } from './adapter.js';
import { FatalAdapterError } from '../adapter-errors.js';
import { dispatchingOperations } from './dispatch.js';
import { loadImplementation, registry as builtInRegistry, type AdapterRegistry, type RegistryOverrides } from './registry.js';
import { isSlotUsable } from './slot-state.js';
import { SlotSupervisor, type ResolverTiming, type SlotStatus } from './slot-supervisor.js';
import type { SlotAdapters, SlotOperations } from './slot-types.js';

/** Defaults: connect deadline from the manifest, health every 15 s, reconnect from 0.5 s to 30 s. */
export const DEFAULT_TIMING: Omit<ResolverTiming, 'connectTimeoutMs'> = {
  healthIntervalMs: 15_000,
  healthTimeoutMs: 5_000,
  reconnectInitialMs: 500,
  reconnectMaxMs: 30_000,
};

/** What the resolver is built from. */
export interface ResolverOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  logger: Logger;
  metrics: ApiMetrics;
  tracer: Tracer;
  env: Readonly<Record<string, string | undefined>>;
  clock: () => Date;
  /** Overrides of DEFAULT_TIMING and of the manifest's connect deadline. */
  timing?: Partial<ResolverTiming>;
  overrides?: RegistryOverrides;
  registry?: AdapterRegistry;
  /** The agent sandbox for the orchestrator; default: one from the manifest's [sandbox] (agents get no API port). */
  sandbox?: AgentSandbox;
  /** Handed to the orchestrator slot: agent tokens and provider addresses. */
  agentCredentials?: AgentCredentialHooks;
  /** Given to the orchestrator's context: each agent's egress proxy credential. */
  egress?: AgentEgress;
  /** Given to the orchestrator's context: the audit trail's hooks around each agent's life. */
  agentAudit?: AgentAuditHooks;
  /** Given to the orchestrator's context: prompts on quiet terminals and agents' ends (the input requests). */
  agentInput?: AgentInputHooks;
}

/** The running adapters of a box. */
export class AdapterResolver {
  readonly #listeners: Array<(status: SlotStatus) => void> = [];
  readonly #operations = new Map<SlotName, unknown>();

  private constructor(
    readonly supervisors: ReadonlyMap<SlotName, SlotSupervisor>,
    private readonly metrics: ApiMetrics,
    tracer: Tracer,
  ) {
    for (const [slot, supervisor] of supervisors) this.#operations.set(slot, dispatchingOperations(slot, supervisor, metrics, tracer));
  }

  /**
   * Load, create and connect every slot (in parallel, each within the connect deadline). A
   * critical slot (the orchestrator, plus `adapters.critical`) that cannot connect is fatal:
   * everything is closed and FatalAdapterError thrown. Other failing slots start degraded and
   * reconnect in the background.
   */
  static async start(options: ResolverOptions): Promise<AdapterResolver> {
    const { manifest, logger } = options;
    const timing: ResolverTiming = { ...DEFAULT_TIMING, connectTimeoutMs: manifest.adapters.connect_timeout_sec * 1000, ...options.timing };
    const critical = new Set<SlotName>(['orchestrator', ...manifest.adapters.critical]);
    let resolver: AdapterResolver | undefined;
    const onChange = (status: SlotStatus): void => {
      if (resolver) resolver.#changed(status);
    };
    const supervisors = new Map<SlotName, SlotSupervisor>();
    const sandbox = options.sandbox ?? new AgentSandbox(sandboxSettings(manifest, options.paths, () => undefined));
    for (const slot of SLOTS) {
      const impl = manifest.adapters[slot];
      const module = await loadImplementation(slot, impl, options.overrides, options.registry ?? builtInRegistry);
      const slotLogger = logger.child({ slot });
      // Only the orchestrator starts agents, so only it is told how they are confined, accounted and credentialled.
      const orchestratorOnly =
        slot === 'orchestrator'
          ? {
              sandbox: { settings: manifest.sandbox, limitMetrics: options.metrics.agentLimits, confinement: sandbox },
              ...(options.agentCredentials ? { agentCredentials: options.agentCredentials } : {}),
              ...(options.egress ? { egress: options.egress } : {}),
              ...(options.agentAudit ? { agentAudit: options.agentAudit } : {}),
              ...(options.agentInput ? { agentInput: options.agentInput } : {}),
            }
          : {};
      const eventsOnly = slot === 'events' ? { audit: manifest.audit } : {};
      const adapter = createSafely(() =>
        createAdapter(module, {
          slot,
          settings: manifest.integrations[slot],
          paths: options.paths,
          logger: slotLogger,
          env: options.env,
          ...orchestratorOnly,
          ...eventsOnly,
        }),
      );
      const identity = { slot, impl, adapter: module.ADAPTER, contractVersion: module.CONTRACT_VERSION, critical: critical.has(slot) };
      supervisors.set(slot, new SlotSupervisor(identity, adapter, { timing, logger: slotLogger, clock: options.clock, onChange }));
      options.metrics.adapterInfo.set({ slot, impl, adapter: module.ADAPTER, contract_version: module.CONTRACT_VERSION }, 1);
    }
    resolver = new AdapterResolver(supervisors, options.metrics, options.tracer);
    const connected = await Promise.all([...supervisors.values()].map(async (s) => [s, await s.connectFirst()] as const));
    const fatal = connected.find(([s, ok]) => !ok && s.identity.critical);
    if (fatal) {
      await resolver.close();
      throw new FatalAdapterError(fatal[0].identity.slot, fatal[0].reason ?? 'unknown');
    }
    for (const s of supervisors.values()) {
      resolver.#changed(s.status());
      s.startMonitoring();
    }
    return resolver;
  }

  /** The operations of a slot, checked, measured and traced. */
  slot<S extends SlotName>(slot: S): SlotOperations<S> {
    return this.#operations.get(slot) as SlotOperations<S>;
  }

  /** Every slot's status, in slot order. */
  statuses(): SlotStatus[] {
    return [...this.supervisors.values()].map((s) => s.status());
  }

  /** Be told of every slot state change. */
  onChange(listener: (status: SlotStatus) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Close every adapter. The orchestrator goes first: its agents end while the other slots (the
   * events slot above all) still take what their ends record, and `afterAgents` waits for those
   * records; then the rest close in parallel.
   */
  async close(afterAgents?: () => Promise<void>): Promise<void> {
    await this.supervisors.get('orchestrator')?.close();
    await afterAgents?.();
    await Promise.all([...this.supervisors.values()].map((s) => s.close()));
  }

  #changed(status: SlotStatus): void {
    // Off is the configured state of a disabled slot: not a fault, so it reads as 1.
    this.metrics.adapterHealth.set({ slot: status.slot }, isSlotUsable(status.state) ? 1 : 0);
    for (const listener of this.#listeners) listener(status);
  }
}

/** Build a slot's adapter from its own settings only (the context's type ties the settings to the slot). */
function createAdapter<S extends SlotName>(module: AdapterModule<SlotAdapters[S], S>, context: AdapterContext<S>): AdapterLifecycle {
  return module.create(context);
}

/** An adapter whose factory threw (a configuration problem) fails its connects with that error. */
function createSafely(create: () => AdapterLifecycle): AdapterLifecycle {
  try {
    return create();
  } catch (err) {
    const failure = err instanceof Error ? err : new Error(String(err));
    return {
      connect: () => Promise.reject(failure),
      health: async () => ({ state: 'degraded', reason: `create-failed: ${failure.message}` }),
      close: async () => undefined,
    };
  }
}
