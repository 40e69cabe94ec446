/* agentbox-wrap.c: the two ends of an agent's exit status across bubblewrap.
 *
 * `--wrap -- BWRAP ARGS…` is the process the box spawns around bubblewrap so that an agent's end
 * reads as for a plain spawn. bubblewrap dies of SIGTERM (taking the sandbox with it: no grace for
 * the agent) and reports a command killed by a signal as exit status 128+n. So bubblewrap runs as
 * this process's child with SIGTERM ignored (the launcher inside resets the agent's dispositions
 * before its ready byte) in a process group of its own, and each SIGTERM this process gets, sent
 * to it or to its group as the box sends it, is passed on to that group once: the agent gets one
 * SIGTERM per SIGTERM sent, never two. A SIGKILL ends this process, and bubblewrap with it
 * (--die-with-parent), and the sandbox with bubblewrap. The launcher inside runs with `--status-fd`: it stays as the agent's parent and
 * writes the agent's real wait status to a pipe this process reads when bubblewrap has ended, so
 * an agent's `exit 137` and a SIGKILL stay apart; with `--memory-limit` it also watches the
 * sandbox's resident memory, as the keeper does without bubblewrap. Without a record (the launcher refused before
 * starting the agent, or bubblewrap failed) bubblewrap's own status is used, 129…159 read as the
 * signal. It replaces a `/bin/sh -c` script: it is on the path of every spawn. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

/* The process group bubblewrap leads (its pid), which every process of the sandbox is in. */
static volatile pid_t sandbox_group;

static void pass_term(int sig) {
  (void)sig;
  if (sandbox_group > 0) kill(-sandbox_group, SIGTERM);
}

/* The record the launcher inside wrote ("exit N" or "signal N"); 0 when there is none. */
static int read_record(int fd, int *signalled, int *value) {
  char record[32] = {0};
  ssize_t got = read(fd, record, sizeof record - 1);
  if (got <= 0) return 0;
  char kind[8];
  return sscanf(record, "%7s %d", kind, value) == 2 && ((*signalled = strcmp(kind, "signal") == 0) || strcmp(kind, "exit") == 0);
}

int run_wrapped(char **command) {
  if (!command[0]) die(EXIT_USAGE, "--wrap takes -- COMMAND [ARG]...");
  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC | O_NONBLOCK) != 0) die_errno(EXIT_SETUP, "pipe", "--wrap");
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  /* Blocked across the fork: the child ignores SIGTERM before it can arrive, the parent handles it. */
  sigprocmask(SIG_BLOCK, &term, &old);
  pid_t pid = fork();
  if (pid < 0) die_errno(EXIT_SETUP, "fork", "--wrap");
  if (pid == 0) {
    signal(SIGTERM, SIG_IGN);
    setpgid(0, 0);
    if (on_terminal) {
      /* On a terminal the sandbox's group is the foreground one, so the agent may read it and its
       * keys (^C, ^Z, ^\) reach it: ignored here like SIGTERM, so they end neither bubblewrap nor its
       * init (the launcher inside resets the agent's dispositions). */
      become_foreground();
      signal(SIGINT, SIG_IGN);
      signal(SIGQUIT, SIG_IGN);
      signal(SIGTSTP, SIG_IGN);
      signal(SIGTTIN, SIG_IGN);
      signal(SIGTTOU, SIG_IGN);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    /* The write end as WRAP_STATUS_FD, open across exec (dup2 to itself would keep O_CLOEXEC); blocking for the writer. */
    int end = status_pipe[1];
    if (end == WRAP_STATUS_FD ? fcntl(end, F_SETFD, 0) != 0 : dup2(end, WRAP_STATUS_FD) != WRAP_STATUS_FD) die_errno(EXIT_SETUP, "dup2", "--wrap status pipe");
    fcntl(WRAP_STATUS_FD, F_SETFL, 0);
    execvp(command[0], command);
    die_errno(errno == ENOENT ? 127 : 126, "cannot execute", command[0]);
  }
  /* Set on both sides of the fork, so the group exists before a SIGTERM can be passed to it. */
  if (setpgid(pid, pid) != 0 && errno != EACCES) die_errno(EXIT_SETUP, "setpgid", "--wrap");
  sandbox_group = pid;
  /* This process holds no descriptor of the agent's but stdio and the status pipe's read end: the
   * ready pipe closes with the sandbox. */
  int keep = status_pipe[0];
  close_except(keep);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = pass_term;
  sigaction(SIGTERM, &sa, NULL);
  sigprocmask(SIG_SETMASK, &old, NULL);
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) die_errno(EXIT_SETUP, "waitpid", "--wrap");
  }
  int signalled = 0, value = 0;
  if (read_record(keep, &signalled, &value)) {
    if (!signalled) return value;
    die_of(value);
    return 128 + value;
  }
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + sig;
  if (!sig && code > 128 && code < 160) sig = code - 128;
  if (sig) die_of(sig);
  return code;
}

/* Die of `sig` as the agent did; returns when its default is not to end the process. */
void die_of(int sig) {
  signal(sig, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  sigprocmask(SIG_UNBLOCK, &only, NULL);
  kill(getpid(), sig);
}

/* Signals that end (or stop) a process by default and may reach the agent's whole group (a SIGTERM passed
 * on, a SIGINT, SIGHUP or SIGTSTP of a terminal): the waiting parent outlives them, so the agent answers. */
static const int parent_ignores[] = {SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGXCPU, SIGXFSZ};

/* Wait for the agent's exit, looking at the sandbox's memory meanwhile: over `limit`, report it on
 * `report_fd` and kill every process of the namespace (kill(-1) there reaches all but its init and
 * this process; the forwarder, in a Landlock domain of its own, is out of reach and ends with the
 * namespace). Returns once the agent has exited, not yet reaped. */
static void watch_memory(pid_t agent, int report_fd, unsigned long long limit) {
  int exited = (int)syscall(SYS_pidfd_open, agent, 0);
  if (exited < 0) die_errno(EXIT_SETUP, "pidfd_open", "--memory-limit");
  pid_t init = sandbox_init_pid();
  int wait_ms = next_memory_look_ms(0, limit);
  for (;;) {
    struct pollfd end = {.fd = exited, .events = POLLIN};
    int ready = poll(&end, 1, wait_ms);
    if (ready > 0) break;
    if (ready < 0 && errno != EINTR) die_errno(EXIT_SETUP, "poll", "--memory-limit");
    unsigned long long used = sandbox_resident_bytes(init);
    if (used > limit) {
      char report[64];
      int len = snprintf(report, sizeof report, "limit:memory %llu\n", used);
      if (write(report_fd, report, (size_t)len) != len) { /* the box is gone: kill all the same */ }
      kill(-1, SIGKILL);
      break;
    }
    wait_ms = next_memory_look_ms(used, limit);
  }
  close(exited);
}

void run_as_parent(char **command, int status_fd, int ready_fd, int ruleset, unsigned long long memory_limit) {
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  /* Blocked across the fork: a signal sent once the ready byte is out waits for the agent's
   * default dispositions (it resets them) and for the parent's ignoring ones. */
  sigprocmask(SIG_BLOCK, &all, NULL);
  pid_t pid = fork();
  if (pid < 0) die_errno(EXIT_SETUP, "fork", "--status-fd");
  if (pid == 0) {
    /* A domain nested in this process's: Landlock scopes signals to a domain and those nested in
     * it, so nothing the agent runs can stop or kill the parent that reports its status and
     * watches its memory, while the parent reaches every process of the agent. */
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die_errno(EXIT_SETUP, "landlock_restrict_self", "(the agent's nested domain)");
    reset_signals();
    close_extra_fds();
    execvp(command[0], command);
    die_errno(errno == ENOENT ? 127 : 126, "cannot execute", command[0]);
  }
  close(ruleset);
  for (size_t k = 0; k < sizeof parent_ignores / sizeof parent_ignores[0]; k++) signal(parent_ignores[k], SIG_IGN);
  sigprocmask(SIG_SETMASK, &none, NULL);
  /* With a memory limit the ready pipe stays open for the report. */
  int report_fd = memory_limit && ready_fd >= 0 ? ready_fd : -1;
  if (ready_fd >= 0) {
    if (write(ready_fd, "r", 1) != 1) die_errno(EXIT_SETUP, "write", "--ready-fd");
    if (report_fd < 0) close(ready_fd);
  }
  /* The agent's stdio is its own: it closes when the agent's processes close it, not when this one exits. */
  for (int fd = 0; fd < 1024; fd++)
    if (fd != status_fd && fd != report_fd) close(fd);
  if (memory_limit) watch_memory(pid, report_fd, memory_limit);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) _exit(EXIT_SETUP);
  char record[32];
  int signalled = WIFSIGNALED(status), value = signalled ? WTERMSIG(status) : WEXITSTATUS(status);
  int len = snprintf(record, sizeof record, "%s %d\n", signalled ? "signal" : "exit", value);
  if (write(status_fd, record, (size_t)len) != len) _exit(EXIT_SETUP);
  _exit(signalled ? 128 + value : value);
}
