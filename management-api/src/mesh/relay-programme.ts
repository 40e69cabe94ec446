// The embedded Nostr relay programme: reads [sovereign_mesh.relay] of the box's manifest, serves it
// until SIGTERM or SIGINT (its process entry is bin/relay.ts).
import { ManifestInvalidError } from '../manifest/load-manifest.js';
import { loadBoxManifest } from '../manifest/load-box-manifest.js';
import { UnknownHostArchError } from '../manifest/host-arch.js';
import { createLogger } from '../observability/logger.js';
import { manifestFileFrom, runtimePaths } from '../runtime-paths.js';
import { ensureIdentityKey } from '../boot/identity-key.js';
import { relayConfig, RelayConfigError, type RelayConfig } from './relay-config.js';
import { startRelayServer, type RunningRelay } from './relay-server.js';
import { recordStartFailure } from '../programme/start-failure.js';
import { startedBySupervisord } from '../programme/supervised.js';

/**
 * Run the relay. Resolves to the exit code: 0 after a clean stop on a signal, 1 when the manifest
 * is invalid or the relay cannot listen (the message names the manifest key to change).
 */
export async function runRelay(env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  const paths = runtimePaths(env);
  const manifestFile = manifestFileFrom(env);
  const fail = (message: string): number => {
    process.stderr.write(`agentbox relay: ${message}\n`);
    return 1;
  };
  let loaded: Awaited<ReturnType<typeof loadBoxManifest>>;
  let config: RelayConfig;
  try {
    loaded = await loadBoxManifest(env, manifestFile);
    config = relayConfig(loaded.manifest, env);
  } catch (err) {
    // A ManifestInvalidError names the file and each key already.
    if (err instanceof ManifestInvalidError || err instanceof UnknownHostArchError) return fail(err.message);
    if (err instanceof RelayConfigError) return fail(`${manifestFile}: ${err.message}`);
    throw err;
  }
  const logger = createLogger({ level: loaded.manifest.observability.log_level, stage: 'relay' });
  // The public key only: the relay accepts the box's own events under the allowlist policy.
  const { pubkey } = await ensureIdentityKey(paths.identityKeyFile, logger);
  let relay: RunningRelay;
  try {
    relay = await startRelayServer({ config, boxPubkey: pubkey, databaseFile: paths.relayDatabase, logger });
  } catch (err) {
    if (err instanceof RelayConfigError) {
      logger.fatal({ event: 'RelayStartFailed', key: err.key }, err.message);
      // For the seal listener, which reports the relay's FATAL state with this line.
      if (startedBySupervisord(env)) recordStartFailure(paths.runDir, 'relay', `relay: ${err.message}`);
      return fail(`${manifestFile}: ${err.message}`);
    }
    throw err;
  }
  logger.info(
    {
      event: 'RelayListening',
      bind: config.bind,
      port: relay.port,
      ingress_policy: config.policy,
      allowed_pubkeys: config.allowedPubkeys.length,
      allowed_kinds: config.allowedKinds,
      database: paths.relayDatabase,
    },
    `Nostr relay on ${config.bind} port ${relay.port} (ingress_policy ${config.policy})`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  await relay.close();
  logger.info({ event: 'RelayStopped', signal }, 'closed');
  return 0;
}
