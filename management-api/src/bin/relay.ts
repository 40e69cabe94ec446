// Process entry of the embedded Nostr relay (supervisord programme `relay`, command agentbox-relay).
import { watchParent } from '../programme/parent-watch.js';
import { runRelay } from '../mesh/relay-programme.js';

// Under supervisord, stop (as on SIGTERM) once supervisord is gone.
watchParent({ onGone: (parent) => process.stderr.write(`agentbox relay: supervisord (pid ${parent}) is gone; stopping\n`) });
process.exitCode = await runRelay(process.env);
