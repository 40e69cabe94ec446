// The box's Nostr identity and the NIP-98 check of operators as a fastify plugin: `app.identity`, `app.nip98`.
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { loadIdentityKey } from '../boot/identity-key.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import { BoxIdentity } from './identity.js';
import { Nip98Verifier, nip98Allowlist } from './nip98.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The box's Nostr identity (public forms and a signer; the secret is not reachable from here). */
    identity: BoxIdentity;
    /** NIP-98 checks of the listed operator keys; undefined when none are listed. */
    nip98: Nip98Verifier | undefined;
  }
}

/** Options of {@link identityPlugin}. */
export interface IdentityPluginOptions {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  logger: Logger;
  clock: () => Date;
}

/** Loads (or creates) the identity key and builds the NIP-98 verifier of `mesh.operator_pubkeys` and the host key. */
export const identityPlugin = fp<IdentityPluginOptions>(
  async (app, options) => {
    app.decorate('identity', new BoxIdentity((await loadIdentityKey(options.paths.identityKeyFile, options.logger)).secret));
    const allowed = nip98Allowlist(options.manifest.mesh);
    // Without listed keys NIP-98 is off: a `Nostr` header is then just a wrong API key.
    app.decorate('nip98', allowed.size > 0 ? new Nip98Verifier({ allowed, now: () => Math.floor(options.clock().getTime() / 1000) }) : undefined);
  },
  { name: 'agentbox-identity' },
);
