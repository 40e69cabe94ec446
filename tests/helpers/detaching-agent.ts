// An agent whose processes detach the classic way, for the tests that hold agents to their processes.

/**
 * An agent that starts `count` daemons the classic way (fork, setsid, fork again, the middle one
 * exits: each daemon leads no group, is in a session of its own, and its parent is gone), writes
 * their pids to daemons.txt, then sleeps `leaderSeconds`. `ignoreTerm`: every process ignores SIGTERM.
 */
export const ESCAPE = `
import os, signal, sys, time
count, leader_seconds, ignore_term = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == '1'
if ignore_term: signal.signal(signal.SIGTERM, signal.SIG_IGN)
r, w = os.pipe()
for _ in range(count):
    middle = os.fork()
    if middle == 0:
        os.setsid()
        if os.fork() == 0:
            os.write(w, b'%d\\n' % os.getpid())
            time.sleep(600)
            os._exit(0)
        os._exit(0)
    os.waitpid(middle, 0)
os.close(w)
pids = []
with os.fdopen(r) as f:
    for line in f:
        pids.append(int(line))
        if len(pids) == count: break
with open('daemons.txt.tmp', 'w') as f: f.write(' '.join(map(str, pids)))
os.rename('daemons.txt.tmp', 'daemons.txt')
time.sleep(leader_seconds)
`;
