/* agentbox-wrap.c: `--wrap -- BWRAP ARGS…`, the process the box spawns around bubblewrap so that an agent's end reads as for a plain spawn.
 *
 * bubblewrap dies of SIGTERM (taking the sandbox with it: no grace for the agent) and reports a
 * command killed by a signal as exit status 128+n. So bubblewrap runs as this process's child with
 * SIGTERM ignored (the launcher inside resets the agent's dispositions before its ready byte); a
 * SIGTERM sent to this process alone is passed on to its process group once; and a status of
 * 129…159 is turned back into that signal (an agent that exits with such a status itself reads as
 * killed by it). It replaces a `/bin/sh -c` script that did the same with two forks and an exec
 * more: it is on the path of every spawn. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

/* A SIGTERM to this process alone (the group's own reaches everyone anyway): once to the group. */
static void pass_term(int sig) {
  (void)sig;
  signal(SIGTERM, SIG_IGN);
  kill(0, SIGTERM);
}

int run_wrapped(char **command) {
  if (!command[0]) die(EXIT_USAGE, "--wrap takes -- COMMAND [ARG]...");
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  /* Blocked across the fork: the child ignores SIGTERM before it can arrive, the parent handles it. */
  sigprocmask(SIG_BLOCK, &term, &old);
  pid_t pid = fork();
  if (pid < 0) die_errno(EXIT_SETUP, "fork", "--wrap");
  if (pid == 0) {
    signal(SIGTERM, SIG_IGN);
    sigprocmask(SIG_SETMASK, &old, NULL);
    execvp(command[0], command);
    die_errno(errno == ENOENT ? 127 : 126, "cannot execute", command[0]);
  }
  /* This process holds no descriptor of the agent's but stdio: the ready pipe closes with the sandbox. */
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
#endif
    for (int fd = 3; fd < 1024; fd++) close(fd);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = pass_term;
  sigaction(SIGTERM, &sa, NULL);
  sigprocmask(SIG_SETMASK, &old, NULL);
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) die_errno(EXIT_SETUP, "waitpid", "--wrap");
  }
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + sig;
  if (!sig && code > 128 && code < 160) sig = code - 128;
  if (sig) {
    /* Die of it as the agent did; a signal whose default is not to end the process falls through to the status. */
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    kill(getpid(), sig);
  }
  return code;
}
