// Starts a real AdapterResolver from manifest text under a temporary root, for the pods and orchestrator suites.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SlotName } from '../../management-api/src/adapters/adapter.js';
import { AdapterResolver } from '../../management-api/src/adapters/resolver.js';
import type { RegistryOverrides } from '../../management-api/src/adapters/registry.js';
import type { ResolverTiming } from '../../management-api/src/adapters/slot-supervisor.js';
import type { SlotOperations } from '../../management-api/src/adapters/slot-types.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { createLogger, type LogLevel } from '../../management-api/src/observability/logger.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';
import { adapterTracer } from '../../management-api/src/observability/tracing.js';
import { runtimePaths, type RuntimePaths } from '../../management-api/src/runtime-paths.js';

/** A running resolver and the operations of the slot under test, as routes see them. */
export interface SlotHarness<S extends SlotName> {
  ops: SlotOperations<S>;
  resolver: AdapterResolver;
  paths: RuntimePaths;
  /** The slot's current state (`healthy`, `degraded`, `off`, …). */
  state(): string;
  reason(): string | undefined;
  close(): Promise<void>;
}

/** What {@link startSlot} accepts besides the manifest. */
export interface HarnessOptions {
  /** The environment the adapters see (the API process's environment). */
  env?: Record<string, string | undefined>;
  timing?: Partial<ResolverTiming>;
  overrides?: RegistryOverrides;
  /** Reuse a runtime root (a restart of the API on the same volumes); a new temporary one otherwise. */
  root?: string;
}

/**
 * Load `toml` (which must be valid), start the resolver under a temporary AGENTBOX_ROOT and return
 * the dispatching operations of `slot`. The log stays silent unless ABX_TEST_LOG names a level.
 */
export async function startSlot<S extends SlotName>(slot: S, toml: string, options: HarnessOptions = {}): Promise<SlotHarness<S>> {
  const loaded = await loadManifestSource(toml, { targetArch: 'x86_64', env: {} });
  if (loaded.exitCode !== 0 || !loaded.manifest || !loaded.sha256) {
    throw new Error(`test manifest is invalid: ${loaded.diagnostics.map((d) => `${d.id} ${d.message}`).join('; ')}`);
  }
  const ownRoot = options.root === undefined;
  const root = options.root ?? mkdtempSync(path.join(tmpdir(), `agentbox-${slot}-`));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  const resolver = await AdapterResolver.start({
    manifest: loaded.manifest,
    paths,
    logger: createLogger({ level: (process.env['ABX_TEST_LOG'] as LogLevel | undefined) ?? 'silent' }),
    metrics: createMetrics({ version: 'test', imageHash: 'test', manifestSha256: loaded.sha256 }),
    tracer: adapterTracer('test'),
    env: options.env ?? { PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8' },
    clock: () => new Date(),
    ...(options.timing ? { timing: options.timing } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const status = () => resolver.statuses().find((s) => s.slot === slot);
  let closed = false;
  return {
    ops: resolver.slot(slot),
    resolver,
    paths,
    state: () => status()?.state ?? 'missing',
    reason: () => status()?.reason,
    async close() {
      if (closed) return;
      closed = true;
      await resolver.close();
      if (ownRoot) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Manifest text with every slot off except `slot` = `impl`, plus extra TOML (integrations, mesh). */
export function onlySlot(slot: SlotName, impl: string, extra = ''): string {
  const slots = ['beads', 'pods', 'memory', 'events', 'orchestrator'].map((s) => `${s} = "${s === slot ? impl : 'off'}"`);
  return `[adapters]\n${slots.join('\n')}\n${extra}`;
}

/** The `[mesh]` table external adapters need (rule E001): a client of some host. */
export const MESH_CLIENT = '[mesh]\nmode = "client"\nhost_url = "http://127.0.0.1:9/"\n';
