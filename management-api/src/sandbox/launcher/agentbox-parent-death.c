/* agentbox-sandbox --parent-death -- COMMAND [ARG]...: exec COMMAND so that it gets SIGTERM when
 * the process that started it dies, however that one ends (kill -9 included).
 *
 * `agentbox up` starts the box's entrypoint this way: the entrypoint execs supervisord, which keeps
 * the setting (it survives execve of a binary that gains no privilege), so supervisord stops the
 * box's programmes in order as soon as `agentbox up` is gone instead of running on, unowned, with
 * parent 1. Node has no prctl binding, hence this mode of the launcher rather than JavaScript. The
 * parent is checked after prctl: one that died before it would otherwise never be noticed. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

int run_with_parent_death(char **command, pid_t parent) {
  if (!command[0]) die(EXIT_USAGE, "--parent-death needs -- COMMAND [ARG]...");
  if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_SET_PDEATHSIG");
  if (getppid() != parent) die(EXIT_SETUP, "the process that started this one is gone");
  execvp(command[0], command);
  die_errno(127, "cannot run", command[0]);
  return EXIT_SETUP;
}
