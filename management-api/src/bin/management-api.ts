// Process entry of the management API (supervisord programme `management-api`, command agentbox-api); `--manifest FILE` names another manifest.
import { watchParent } from '../programme/parent-watch.js';
import { runServer } from '../server.js';

// Under supervisord, stop (gracefully, as on SIGTERM) once supervisord is gone.
watchParent({ onGone: (parent) => process.stderr.write(`agentbox api: supervisord (pid ${parent}) is gone; stopping\n`) });
const flag = process.argv.indexOf('--manifest');
const manifestFile = flag > 0 ? process.argv[flag + 1] : undefined;
process.exitCode = await runServer(manifestFile ? { manifestFile } : {});
