// Process entry of the seal listener (run by supervisord as an [eventlistener]).
import { main } from './seal-listener.js';

process.exitCode = await main();
