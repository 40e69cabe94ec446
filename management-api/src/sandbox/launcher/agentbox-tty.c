/* agentbox-tty.c: `--tty FD COLSxROWS`, an agent on a pseudo-terminal.
 *
 * The box opens the terminal's master (/dev/ptmx, close-on-exec, so no other process it starts
 * inherits it) and passes it as descriptor FD to the process it spawns as a session leader. That
 * process, before anything else, opens the other end from the master (TIOCGPTPEER: no path lookup,
 * so no other terminal can be named), makes it descriptors 0-2 and the controlling terminal of its
 * session, and closes the master: from then on no process of the agent holds the master, which
 * only the box writes (its input) and reads (its output). The agent cannot push input into any
 * terminal (TIOCSTI and TIOCLINUX are refused by the seccomp filter, agentbox-seccomp.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* Set once the spawned process took its terminal: --wrap then hands it to bubblewrap's group. */
int on_terminal;

static unsigned parse_dimension(const char *text, char **end, const char *what) {
  errno = 0;
  unsigned long v = strtoul(text, end, 10);
  if (errno || *end == text || v < 1 || v > 1000) die(EXIT_USAGE, what);
  return (unsigned)v;
}

void take_terminal(const char *fd_text, const char *size) {
  char *end;
  unsigned long master = strtoul(fd_text, &end, 10);
  if (*end || end == fd_text || master < 3 || master > 1023 || fcntl((int)master, F_GETFD) < 0) die(EXIT_USAGE, "--tty FD must name an open descriptor above 2 (the terminal's master)");
  struct winsize ws = {0};
  ws.ws_col = (unsigned short)parse_dimension(size, &end, "--tty size is COLSxROWS, each 1-1000");
  if (*end != 'x') die(EXIT_USAGE, "--tty size is COLSxROWS, each 1-1000");
  ws.ws_row = (unsigned short)parse_dimension(end + 1, &end, "--tty size is COLSxROWS, each 1-1000");
  if (*end) die(EXIT_USAGE, "--tty size is COLSxROWS, each 1-1000");
  /* The terminal must become the controlling terminal of a session of the agent's own. */
  if (getsid(0) != getpid()) die(EXIT_USAGE, "--tty: the launcher must lead its session (spawn it detached)");
  int unlock = 0;
  if (ioctl((int)master, TIOCSPTLCK, &unlock) != 0) die_errno(EXIT_SETUP, "ioctl", "--tty TIOCSPTLCK (is FD a terminal master?)");
  int peer = ioctl((int)master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (peer < 0) die_errno(EXIT_SETUP, "ioctl", "--tty TIOCGPTPEER");
  if (ioctl(peer, TIOCSWINSZ, &ws) != 0) die_errno(EXIT_SETUP, "ioctl", "--tty TIOCSWINSZ");
  /* dup2 clears close-on-exec on 0-2; the peer's own descriptor and the master go. */
  for (int fd = 0; fd < 3; fd++)
    if (dup2(peer, fd) != fd) die_errno(EXIT_SETUP, "dup2", "--tty");
  close(peer);
  close((int)master);
  if (ioctl(STDIN_FILENO, TIOCSCTTY, 0) != 0) die_errno(EXIT_SETUP, "ioctl", "--tty TIOCSCTTY");
  on_terminal = 1;
}

void become_foreground(void) {
  /* From a background group tcsetpgrp sends SIGTTOU, which would stop this process: blocked meanwhile. */
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, &old);
  if (tcsetpgrp(STDIN_FILENO, getpgrp()) != 0) die_errno(EXIT_SETUP, "tcsetpgrp", "--tty");
  sigprocmask(SIG_SETMASK, &old, NULL);
}
