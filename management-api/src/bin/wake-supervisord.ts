// Process entry of the supervisord waker: config/bin/agentbox-entrypoint starts it in the background
// just before it execs supervisord; it pokes the control socket once supervisord listens, then exits.
import { runtimePaths } from '../runtime-paths.js';
import { wakeSupervisord } from '../boot/supervisor-wake.js';

// A box that never gets as far as the socket is not this process's concern: exit 0 either way.
await wakeSupervisord(runtimePaths(process.env).supervisorSocket);
