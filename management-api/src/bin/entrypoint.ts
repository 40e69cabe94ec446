// Process entry of stage A: config/bin/agentbox-entrypoint (the image's entrypoint) runs it, then execs supervisord when it exits 0.
import { runStageA } from '../boot/stage-a.js';

process.exitCode = await runStageA({ env: process.env });
