// Process entry of the seal listener (supervisord [eventlistener] `seal-listener`, command agentbox-seal-listener).
import { main } from '../boot/seal-listener.js';
import { watchParent } from '../programme/parent-watch.js';

// supervisord closing stdin ends the listener too; the watch also covers a listener busy elsewhere.
watchParent();
process.exitCode = await main();
