// Every port a box binds, from real manifests: the API and metrics always, the egress proxy with the
// sandbox, the relay when enabled, enabled features' and [programs] ports; overrides applied; and
// the one line that names a taken port.
import t from 'tap';
import { loadManifestSource, type NormalizedManifest } from '../../management-api/src/manifest/load-manifest.js';
import { boxPorts, portInUseLine } from '../../management-api/src/box-ports.js';

async function manifest(toml: string): Promise<NormalizedManifest> {
  const r = await loadManifestSource(toml, { targetArch: 'x86_64', env: {} });
  if (!r.manifest) throw new Error(JSON.stringify(r.diagnostics));
  return r.manifest;
}

t.test('the defaults: API, metrics and the egress proxy, each with its key and variable', async (t) => {
  const ports = boxPorts(await manifest(''));
  t.same(
    ports.map((p) => [p.name, p.program, p.key, p.envVar, p.host, p.port]),
    [
      ['API', 'management-api', 'api.port', 'AGENTBOX_API_PORT', '127.0.0.1', 9090],
      ['metrics', 'management-api', 'observability.metrics_port', 'AGENTBOX_METRICS_PORT', '127.0.0.1', 9091],
      ['egress proxy', 'egress-proxy', 'sandbox.egress.port', 'AGENTBOX_EGRESS_PORT', '127.0.0.1', 3128],
    ],
  );
});

t.test('overrides apply; a malformed one is left to the programme that reads it', async (t) => {
  const m = await manifest('[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\n');
  const ports = boxPorts(m, {
    AGENTBOX_API_PORT: '0',
    AGENTBOX_METRICS_PORT: 'x',
    AGENTBOX_EGRESS_PORT: '4000',
    AGENTBOX_RELAY_PORT: '4001',
    AGENTBOX_API_BIND: '0.0.0.0',
  });
  t.same(
    ports.map((p) => [p.name, p.host, p.port]),
    [
      ['API', '0.0.0.0', 0],
      ['metrics', '127.0.0.1', 9091],
      ['egress proxy', '127.0.0.1', 4000],
      ['relay', '127.0.0.1', 4001],
    ],
  );
});

t.test('without the sandbox no egress proxy; features and [programs] with a port are listed', async (t) => {
  const m = await manifest(
    '[sandbox]\nenabled = false\n\n[features]\ncode_server = true\n\n[programs.web]\ncommand = "/bin/true"\nport = 8000\n\n[programs.quiet]\ncommand = "/bin/true"\n',
  );
  t.same(
    boxPorts(m).map((p) => [p.name, p.program, p.key, p.envVar, p.port]),
    [
      ['API', 'management-api', 'api.port', 'AGENTBOX_API_PORT', 9090],
      ['metrics', 'management-api', 'observability.metrics_port', 'AGENTBOX_METRICS_PORT', 9091],
      ['feature code-server', 'code-server', 'features.code_server', undefined, 8443],
      ['programme web', 'web', 'programs.web.port', undefined, 8000],
    ],
  );
});

t.test('the line names the port, the programme, the key and the variable, or only the key', async (t) => {
  t.equal(
    portInUseLine({ name: 'egress proxy', program: 'egress-proxy', key: 'sandbox.egress.port', envVar: 'AGENTBOX_EGRESS_PORT', host: '127.0.0.1', port: 3128 }),
    "port 3128 on 127.0.0.1 is already in use: the egress proxy (programme egress-proxy, manifest key sandbox.egress.port, override AGENTBOX_EGRESS_PORT) cannot listen; another box on this machine? (agentbox boxes; ss -ltnp 'sport = :3128') — set AGENTBOX_EGRESS_PORT (0 = any free port) or sandbox.egress.port in the manifest",
  );
  t.match(
    portInUseLine({ name: 'programme web', program: 'web', key: 'programs.web.port', host: '0.0.0.0', port: 8000 }),
    /\(programme web, manifest key programs\.web\.port\) cannot listen; .* — change programs\.web\.port in the manifest$/,
  );
});
