// Process entry of the seal listener (run by supervisord as an [eventlistener]).
import { main } from './seal-listener.js';
import { watchParent } from '../programme/parent-watch.js';

// supervisord closing stdin ends the listener too; the watch also covers a listener busy elsewhere.
watchParent();
process.exitCode = await main();
