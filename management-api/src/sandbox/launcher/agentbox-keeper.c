/* agentbox-keeper.c: `--keep`, the launcher as the keeper of an agent that runs without bubblewrap.
 *
 * Without a PID namespace nothing holds an agent's processes together: one that double-forks and
 * calls setsid leaves its process group and session, is reparented to init, and outlives its
 * budget, its terminate and the box. The keeper closes that gap with two kernel facts:
 * - it is a child subreaper (PR_SET_CHILD_SUBREAPER): every orphan of the agent's tree is
 *   reparented to it, never to init, so the tree stays rooted at the pid the box spawned, and the
 *   box's accounting, which walks descendants, sees every process however it detached;
 * - it stays in the agent's Landlock domain while the agent runs in a domain nested in it (the
 *   agent restricts itself once more after the fork). Landlock scopes signals to a domain and the
 *   domains nested in it, so kill(-1, sig) from the keeper reaches exactly the agent's processes,
 *   and nothing the agent runs can signal the keeper (it is outside their domain).
 * Signals from the box (only the box can send them): SIGTERM is passed to every process of the
 * agent, once; SIGUSR1 sends SIGKILL to every process and reaps them. When the box's process that
 * spawned the keeper dies (PR_SET_PDEATHSIG) the keeper does the same, so no agent outlives the
 * box's API. When the agent's first process ends, what it left running gets SIGTERM, then SIGKILL
 * after LEFTOVER_GRACE_S. With a memory limit it also watches the resident memory of every process
 * it keeps (agentbox-memory.c) and kills them all once it passes the limit, saying so on the ready
 * descriptor ("limit:memory"), which stays open for that. The keeper ends last, as the agent's
 * first process did: its exit code, or its signal. Its own rlimits are the agent's (it uses next to none). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

/* How long processes the agent left behind get after its first process ended (the process
 * manager's LEFTOVER_GRACE_MS is the same figure). */
enum { LEFTOVER_GRACE_S = 2 };

static volatile sig_atomic_t term_requested, kill_requested, grace_over;

static void on_signal(int sig) {
  if (sig == SIGTERM) term_requested = 1;
  else if (sig == SIGUSR1) kill_requested = 1;
  else if (sig == SIGALRM) grace_over = 1;
  /* SIGCHLD only wakes sigsuspend. */
}

/* Signals a terminal or a group signal may send the keeper: the agent answers them, not the keeper. */
static const int ignored[] = {SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR2, SIGPIPE, SIGVTALRM, SIGPROF, SIGIO, SIGXCPU, SIGXFSZ};
static const int handled[] = {SIGTERM, SIGUSR1, SIGALRM, SIGCHLD};

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* End as the agent's first process ended: its exit code, or killed by its signal. */
static void __attribute__((noreturn)) end_as(int status) {
  if (!WIFSIGNALED(status)) _exit(WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_SETUP);
  die_of(WTERMSIG(status));
  _exit(128 + WTERMSIG(status));
}

void run_keeper(char **command, int ruleset, int ready_fd, unsigned long long memory_limit) {
  pid_t spawner = getppid();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_SET_CHILD_SUBREAPER");
  sigset_t all, waiting;
  sigfillset(&all);
  /* Blocked from here on but inside ppoll, so no signal falls between a check and the wait. */
  sigprocmask(SIG_BLOCK, &all, &waiting);
  if (prctl(PR_SET_PDEATHSIG, SIGUSR1, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_SET_PDEATHSIG");
  /* The spawner died before the line above: nothing will ever stop this agent, so start none. */
  if (getppid() != spawner) die(EXIT_SETUP, "the process that started the keeper is gone");
  pid_t agent = fork();
  if (agent < 0) die_errno(EXIT_SETUP, "fork", "--keep");
  if (agent == 0) {
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die_errno(EXIT_SETUP, "landlock_restrict_self", "(the agent's nested domain)");
    reset_signals();
    close_extra_fds();
    execvp(command[0], command);
    die_errno(errno == ENOENT ? 127 : 126, "cannot execute", command[0]);
  }
  close(ruleset);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigfillset(&sa.sa_mask);
  for (size_t k = 0; k < sizeof handled / sizeof handled[0]; k++) sigaction(handled[k], &sa, NULL);
  for (size_t k = 0; k < sizeof ignored / sizeof ignored[0]; k++) signal(ignored[k], SIG_IGN);
  sigdelset(&waiting, SIGTERM);
  sigdelset(&waiting, SIGUSR1);
  sigdelset(&waiting, SIGALRM);
  sigdelset(&waiting, SIGCHLD);
  if (ready_fd >= 0) {
    if (write(ready_fd, "r", 1) != 1) die_errno(EXIT_SETUP, "write", "--ready-fd");
  }
  /* The agent's stdio is its own: it closes when the agent's processes close it, not with the keeper.
   * The ready pipe stays open only to carry the memory report. close_range, not a loop of close:
   * a thousand system calls here cost a millisecond of the agent's start. */
  int keep = ready_fd > 2 && memory_limit ? ready_fd : -1;
  for (int fd = 0; fd < 3; fd++) close(fd);
  if (keep > 2) close_except(keep);
  else close_extra_fds();
  int agent_status = 0, agent_done = 0, killing = 0, wait_ms = -1;
  /* The first look is due when an agent starting from nothing could first reach the limit: the
   * keeper does not compete with the agent's start for a CPU before then. */
  long long next_look = memory_limit ? now_ms() + next_memory_look_ms(0, memory_limit) : 0;
  for (;;) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      if (pid != agent) continue;
      agent_status = status;
      agent_done = 1;
      /* What it left running: SIGTERM now, SIGKILL once the grace is over. */
      kill(-1, SIGTERM);
      alarm(LEFTOVER_GRACE_S);
    }
    /* No child left means no process of the agent left: each descends from the keeper. */
    if (pid < 0 && errno == ECHILD) break;
    if (term_requested) {
      term_requested = 0;
      kill(-1, SIGTERM);
    }
    if (kill_requested || (agent_done && grace_over)) killing = 1;
    if (memory_limit && !killing && now_ms() >= next_look) {
      unsigned long long used = kept_resident_bytes();
      if (used > memory_limit) {
        killing = 1;
        char report[64];
        int len = snprintf(report, sizeof report, "limit:memory %llu\n", used);
        if (ready_fd >= 0 && write(ready_fd, report, (size_t)len) != len) { /* the box is gone: kill all the same */ }
      }
      next_look = now_ms() + next_memory_look_ms(used, memory_limit);
    }
    if (memory_limit) {
      long long left = next_look - now_ms();
      wait_ms = left < 0 ? 0 : (int)left;
    }
    /* Again at every wake-up: a process forked while the last SIGKILL was sent is caught by the next. */
    if (killing) {
      kill(-1, SIGKILL);
      wait_ms = -1;
    }
    /* Waits for a signal (SIGCHLD included), with them unblocked for the wait alone, or for the next look at memory. */
    struct timespec look = {wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L};
    ppoll(NULL, 0, wait_ms < 0 ? NULL : &look, &waiting);
  }
  end_as(agent_status);
}
