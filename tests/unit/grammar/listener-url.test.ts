// A bind address becomes a URL in one place (grammar/url.ts listenerUrl): IPv4 as it is, IPv6 in
// brackets, a wildcard on the loopback address of its family; and every caller shows it that way.
import t from 'tap';
import { listenerHost, listenerUrl } from '../../../management-api/src/grammar/url.js';
import { urlFor } from '../../../management-api/src/server-config.js';
import { embeddedRelayUrl } from '../../../management-api/src/mesh/relay-config.js';
import { loadManifestSource } from '../../../management-api/src/manifest/load-manifest.js';

t.test('IPv4 and names as they are, IPv6 in brackets', async (t) => {
  t.equal(listenerUrl('192.168.1.20', 9090), 'http://192.168.1.20:9090');
  t.equal(listenerUrl('box.example', 80, '/metrics'), 'http://box.example:80/metrics');
  t.equal(listenerUrl('fd00::5', 81), 'http://[fd00::5]:81');
  t.equal(listenerUrl('[fd00::5]', 81), 'http://[fd00::5]:81', 'an address already in brackets is not bracketed twice');
  t.equal(listenerHost('::ffff:10.0.0.1'), '[::ffff:10.0.0.1]', 'a mapped IPv4 address is IPv6 text');
});

t.test('wildcards are reached on the loopback address of their family', async (t) => {
  t.equal(listenerUrl('0.0.0.0', 9091, '/metrics'), 'http://127.0.0.1:9091/metrics');
  t.equal(listenerUrl('::', 9090), 'http://[::1]:9090');
  t.equal(listenerUrl('[::]', 9090), 'http://[::1]:9090');
  t.equal(listenerUrl('0:0:0:0:0:0:0:0', 9090), 'http://[::1]:9090', 'the long form of ::');
});

t.test('loopback stays the loopback address it names', async (t) => {
  t.equal(listenerUrl('127.0.0.1', 9090), 'http://127.0.0.1:9090');
  t.equal(listenerUrl('127.0.0.2', 9090), 'http://127.0.0.2:9090', 'another 127/8 address is where that listener is');
  t.equal(listenerUrl('::1', 9090), 'http://[::1]:9090');
  t.equal(listenerUrl('localhost', 9090), 'http://localhost:9090');
});

t.test('the scheme: http unless asked (the relay is ws)', async (t) => {
  t.equal(listenerUrl('::', 7777, '', 'ws'), 'ws://[::1]:7777');
});

t.test("the callers: the API's own URLs and the embedded relay's show a bind as listenerUrl does", async (t) => {
  for (const bind of ['127.0.0.1', '0.0.0.0', '::', '::1', 'fd00::5', '10.1.2.3']) {
    t.equal(urlFor(bind, 9090, '/x'), listenerUrl(bind, 9090, '/x'), `urlFor ${bind}`);
  }
  t.equal(urlFor('0.0.0.0', 9091, '/metrics', 'fd00::7'), 'http://[fd00::7]:9091/metrics', "a wildcard listener shows the manifest's address");
  t.equal(urlFor('0.0.0.0', 9091, '', '::'), 'http://[::1]:9091', 'and loopback when that is a wildcard too');
  const { manifest } = await loadManifestSource('[sovereign_mesh]\nenabled = true\n\n[sovereign_mesh.relay]\nenabled = true\nbind = "::"\nexpose = true\n', {
    targetArch: 'x86_64',
    env: {},
  });
  t.ok(manifest, 'the relay manifest is valid');
  t.equal(embeddedRelayUrl(manifest!, { AGENTBOX_RELAY_PORT: '7001' }), 'ws://[::1]:7001');
});
