// The namespace layer of the local orchestrator, built from the sandbox settings its adapter receives.
import type { AdapterContext } from '../adapters/adapter.js';
import { NamespaceSandbox } from './namespace-sandbox.js';

/**
 * The NamespaceSandbox for an orchestrator context: agents reach the egress proxy and the API on
 * their usual loopback ports, forwarded to the run directory's sandbox sockets. Undefined when
 * the context carries no sandbox settings (an orchestrator built outside a box, in tests).
 * `launcher` is the confinement launcher's argv (run inside, before the agent command).
 */
export function namespaceSandboxFor(context: AdapterContext<'orchestrator'>, launcher: readonly string[] = []): NamespaceSandbox | undefined {
  const s = context.sandbox;
  if (!s) return undefined;
  return new NamespaceSandbox({
    enabled: s.enabled,
    namespaces: s.namespaces,
    processes: s.limits.processes,
    forwards: [
      { port: s.egress.port, socket: context.paths.sandboxEgressSocket },
      { port: s.apiPort, socket: context.paths.sandboxApiSocket },
    ],
    launcher,
    root: context.paths.root,
    ...(context.env['PATH'] ? { searchPath: context.env['PATH'] } : {}),
  });
}
