// Every TCP port a box binds, with the programme that binds it, the manifest key that sets it and
// the variable that overrides it: one table for `agentbox up`'s check, `agentbox doctor` and the
// one-line message a programme prints when its port is taken.
import type { NormalizedManifest } from './manifest/load-manifest.js';
import { boxFacts, settingOn } from './box-facts.js';

/** One port the box binds. */
export interface BoxPort {
  /** What listens, in words: `API`, `metrics`, `egress proxy`, `relay`, `programme <name>`. */
  name: string;
  /** The supervisord programme that binds it. */
  program: string;
  /** The manifest key that sets it, e.g. `sandbox.egress.port`. */
  key: string;
  /** The environment variable that overrides the key, when there is one. */
  envVar?: string;
  /** The address it binds. */
  host: string;
  /** The port (0: any free port, chosen when the programme listens). */
  port: number;
}

/**
 * The ports a variable can override (`AGENTBOX_*_PORT`): left out of the manifest, each is its
 * default when free and, in local mode, a free port when the default is taken (agentbox up). The
 * starter manifest shows them commented out for that reason.
 */
export const FLOATING_PORT_KEYS = ['api.port', 'observability.metrics_port', 'sandbox.egress.port', 'sovereign_mesh.relay.port'] as const;

/** A port value from `env[name]` when it is a whole number 0-65535, else `fallback`. */
function overridden(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name];
  return raw !== undefined && /^\d+$/.test(raw) && Number(raw) <= 65535 ? Number(raw) : fallback;
}

/**
 * The ports `manifest` makes the box bind, after the environment's overrides: the API and its
 * metrics listener always, the egress proxy when `sandbox.enabled`, the relay when enabled, and
 * every enabled feature's programme with a port and every `[programs.<name>]` with a port.
 */
export function boxPorts(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>> = {}): BoxPort[] {
  const m = manifest;
  const ports: BoxPort[] = [
    {
      name: 'API',
      program: 'management-api',
      key: 'api.port',
      envVar: 'AGENTBOX_API_PORT',
      host: env['AGENTBOX_API_BIND'] || m.api.bind,
      port: overridden(env, 'AGENTBOX_API_PORT', m.api.port),
    },
    {
      name: 'metrics',
      program: 'management-api',
      key: 'observability.metrics_port',
      envVar: 'AGENTBOX_METRICS_PORT',
      host: env['AGENTBOX_METRICS_BIND'] || m.observability.metrics_bind,
      port: overridden(env, 'AGENTBOX_METRICS_PORT', m.observability.metrics_port),
    },
  ];
  // The proxy listens on loopback only (egress/proxy-main.ts).
  if (m.sandbox.enabled)
    ports.push({
      name: 'egress proxy',
      program: 'egress-proxy',
      key: 'sandbox.egress.port',
      envVar: 'AGENTBOX_EGRESS_PORT',
      host: '127.0.0.1',
      port: overridden(env, 'AGENTBOX_EGRESS_PORT', m.sandbox.egress.port),
    });
  if (m.sovereign_mesh.relay.enabled)
    ports.push({
      name: 'relay',
      program: 'relay',
      key: 'sovereign_mesh.relay.port',
      envVar: 'AGENTBOX_RELAY_PORT',
      host: m.sovereign_mesh.relay.bind,
      port: overridden(env, 'AGENTBOX_RELAY_PORT', m.sovereign_mesh.relay.port),
    });
  for (const [feature, f] of Object.entries(boxFacts.features)) {
    if (!settingOn(m, f.setting)) continue;
    for (const p of f.programs)
      if (p.port > 0) ports.push({ name: `feature ${feature}`, program: p.name, key: f.setting.key.join('.'), host: '0.0.0.0', port: p.port });
  }
  for (const [name, p] of Object.entries(m.programs)) {
    if (p && p.port > 0) ports.push({ name: `programme ${name}`, program: name, key: `programs.${name}.port`, host: '0.0.0.0', port: p.port });
  }
  return ports;
}

/**
 * The one line that says a port is taken: the port, the programme, the manifest key and the
 * override variable, and how to find what holds it.
 */
export function portInUseLine(p: Pick<BoxPort, 'name' | 'program' | 'key' | 'envVar' | 'host' | 'port'>): string {
  const move = p.envVar ? `set ${p.envVar} (0 = any free port) or ${p.key} in the manifest` : `change ${p.key} in the manifest`;
  return `port ${p.port} on ${p.host} is already in use: the ${p.name} (programme ${p.program}, manifest key ${p.key}${p.envVar ? `, override ${p.envVar}` : ''}) cannot listen; another box on this machine? (agentbox boxes; ss -ltnp 'sport = :${p.port}') — ${move}`;
}
