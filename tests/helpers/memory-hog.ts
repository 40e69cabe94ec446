// A Python agent that spreads its memory over many processes, for the memory backstop tests (the keeper, and the waiting parent in bubblewrap).

/**
 * `python3 hog.py COUNT MIB [1]`: COUNT children at once, each filling MIB MiB and then marking
 * done-<i> in the working directory, then sleeping. With `1` they are started by a daemon that
 * double-forked and called setsid: re-parented away from the agent's first process, none of them
 * descends from it.
 */
export const MEMORY_HOG = `
import os, sys, time
count, mib = int(sys.argv[1]), int(sys.argv[2])
detach = len(sys.argv) > 3 and sys.argv[3] == '1'
def spread():
    for i in range(count):
        if os.fork() == 0:
            block = b'\\x01' * (mib << 20)
            open('done-%d' % i, 'w').close()
            time.sleep(600)
            os._exit(0)
if detach:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            spread()
            time.sleep(600)
        os._exit(0)
else:
    spread()
time.sleep(600)
`;

/** How many children of MEMORY_HOG filled their memory, from the done-<i> files in `names`. */
export const doneCount = (names: readonly string[]): number => names.filter((n) => n.startsWith('done-')).length;
