// Process entry of stage A (the entrypoint runs it, then execs supervisord when it exits 0).
import { runStageA } from './stage-a.js';

process.exitCode = await runStageA({ env: process.env });
