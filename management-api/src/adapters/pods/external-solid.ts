// pods/external-solid: a pod on a Solid server (LDP over HTTP) named by `integrations.pods.url`.
import type { AdapterContext, SlotHealth } from '../adapter.js';
import { AdapterDegradedError } from '../../adapter-errors.js';
import { readIntegrationToken } from '../http-client/integration-token.js';
import type { PodsAdapter } from './pods-adapter.js';
import { parsePodPath } from './pod-path.js';
import { drain, SolidHttp } from './solid-http.js';
import { SolidPodClient } from './solid-pod-client.js';

/** This implementation's registry name. */
export const ADAPTER = 'pods/external-solid';
export { CONTRACT_VERSION } from './pods-adapter.js';

/**
 * A pods adapter for the Solid server at `integrations.pods.url`. A bearer token, when the server
 * needs one, comes from the file `token_file` or the variable `token_env` names (readSecret's
 * precedence); it is read at connect (so a rotated file is picked up on reconnect) and never logged.
 */
export function create(context: AdapterContext<'pods'>): PodsAdapter {
  const integration = context.settings;
  if (!integration.url) throw new Error('adapters.pods = "external-solid" needs integrations.pods.url');
  let token: string | undefined;
  const http = new SolidHttp(integration.url, () => token);
  const client = new SolidPodClient(http);
  const root = http.urlOf(parsePodPath('/'));
  let connected = false;

  const ready = (): SolidPodClient => {
    if (!connected) throw new AdapterDegradedError('pods', 'not connected');
    return client;
  };

  return {
    async connect(signal) {
      token = await readIntegrationToken('pods', integration, context.env, context.logger);
      const response = await http.send(root, { method: 'HEAD', signal });
      await drain(response);
      if (!response.ok) throw new Error(`the Solid server at ${http.base.origin} answered HEAD ${root.pathname} with ${response.status}`);
      // A Solid storage root is an LDP container; anything else is a wrong URL (a web page, another API).
      const links = response.headers.get('link') ?? '';
      if (!/<http:\/\/www\.w3\.org\/ns\/ldp#(Basic)?Container>\s*;\s*rel="?type"?/i.test(links)) {
        throw new Error(`${http.base.href} is not a Solid container: its Link header does not type it ldp:Container`);
      }
      connected = true;
    },
    async health(signal): Promise<SlotHealth> {
      try {
        const response = await http.send(root, { method: 'HEAD', signal });
        await drain(response);
        return response.ok ? { state: 'healthy' } : { state: 'degraded', reason: `solid-http-${response.status}` };
      } catch (err) {
        return { state: 'degraded', reason: `unreachable: ${(err as Error).message}` };
      }
    },
    async close() {
      connected = false;
      token = undefined;
    },
    get: async (p) => ready().get(p),
    put: async (p, body, options) => ready().put(p, body, options),
    delete: async (p, conditions) => ready().delete(p, conditions),
    list: async (p, request) => ready().list(p, request),
  };
}
