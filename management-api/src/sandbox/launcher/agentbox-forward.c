/* agentbox-forward.c: the loopback forwarder of an agent in its own network namespace (--forward).
 *
 * Forked by the launcher before it confines itself: listens on 127.0.0.1:PORT for every forward,
 * then confines itself (Landlock: no file rights, no TCP bind or connect; the launcher's seccomp
 * filter with unix sockets allowed, for the one thing it does), tells the launcher it listens and
 * relays each accepted connection to its unix socket, both ways, with half-closes passed on. The
 * launcher confines itself meanwhile and waits for that word only before its ready byte.
 * One process, one poll loop: it costs a fork, not a runtime. It ignores SIGTERM, SIGINT and
 * SIGHUP (an agent ending gracefully may still talk through it). It ends with the agent's PID
 * namespace, which ends when the launcher waiting for the agent does: its PR_SET_PDEATHSIG is
 * not what ends it, since Landlock's signal scoping (its own domain, not the launcher's) refuses
 * that signal from the launcher. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

/* 128 KiB per direction, allocated per connection: against 16 KiB, a bulk transfer takes an
 * eighth of the reads, writes and polls, which cut the forwarder's and proxy's CPU per GiB from
 * 0.80 to 0.60 s in the egress benchmark; an idle agent holds none. */
enum { MAX_PAIRS = 256, BUF = 128 * 1024 };

/* One direction of a relayed connection: bytes read from `from` waiting to be written to `to`. */
struct half { int from, to; size_t len, off; int eof; char *buf; };
static struct half halves[MAX_PAIRS][2];
static int used[MAX_PAIRS];

static void confine_forwarder(int abi) {
  struct ll_ruleset_attr attr = {.handled_access_fs = fs_handled(abi), .handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP, .scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0 || syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die_errno(EXIT_SETUP, "forwarder: landlock", "failed");
  close(ruleset);
  install_seccomp(1, 0);
}

static int listen_on(unsigned port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  char what[16];
  snprintf(what, sizeof what, "%u", port);
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) die_errno(EXIT_SETUP, "forwarder: cannot listen on 127.0.0.1 port", what);
  return fd;
}

/* Accept one connection on `listener` and pair it with a new connection to `path`. */
static void accept_one(int listener, const char *path) {
  int in = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (in < 0) return;
  int slot = 0;
  while (slot < MAX_PAIRS && used[slot]) slot++;
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  int out = slot < MAX_PAIRS && strlen(path) < sizeof a.sun_path ? socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
  if (out >= 0) strcpy(a.sun_path, path);
  char *bufs = out >= 0 ? malloc(2 * BUF) : NULL;
  if (!bufs || connect(out, (struct sockaddr *)&a, sizeof a) != 0 || fcntl(out, F_SETFL, O_NONBLOCK) != 0) {
    /* The agent's stderr is where this shows: say what is behind the socket may not be running. */
    if (out < 0 && slot == MAX_PAIRS) fprintf(stderr, "agentbox-sandbox: forwarder: cannot reach %s: too many connections (at most %d)\n", path, MAX_PAIRS);
    else fprintf(stderr, "agentbox-sandbox: forwarder: cannot reach %s: %s (the box's programme behind it, the API or the egress proxy, is not listening)\n", path, strerror(errno));
    free(bufs);
    if (out >= 0) close(out);
    close(in);
    return;
  }
  used[slot] = 1;
  halves[slot][0] = (struct half){.from = in, .to = out, .buf = bufs};
  halves[slot][1] = (struct half){.from = out, .to = in, .buf = bufs + BUF};
}

/* Move bytes for one direction; returns -1 when the pair must be dropped (a write failed). */
static int pump(struct half *h, short revents_from, short revents_to) {
  if (h->len == 0 && !h->eof && (revents_from & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t n = recv(h->from, h->buf, BUF, 0);
    if (n > 0) h->len = (size_t)n, h->off = 0;
    else if (n == 0 || (errno != EAGAIN && errno != EINTR)) h->eof = 1, shutdown(h->to, SHUT_WR);
  }
  if (h->len > 0 && (revents_to & (POLLOUT | POLLERR | POLLHUP))) {
    ssize_t n = send(h->to, h->buf + h->off, h->len - h->off, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
    if (n > 0 && (h->off += (size_t)n) == h->len) h->len = 0;
  }
  return 0;
}

static void relay(const struct forward *forwards, const int *listeners, int n) {
  static struct pollfd p[8 + 2 * MAX_PAIRS];
  for (;;) {
    int k = 0;
    for (int i = 0; i < n; i++) p[k++] = (struct pollfd){.fd = listeners[i], .events = POLLIN};
    for (int s = 0; s < MAX_PAIRS; s++) {
      if (!used[s]) continue;
      struct half *a = &halves[s][0], *b = &halves[s][1];
      /* Each end: readable while its direction's buffer is empty, writable while the other's is not. */
      p[k++] = (struct pollfd){.fd = a->from, .events = (short)((a->len == 0 && !a->eof ? POLLIN : 0) | (b->len ? POLLOUT : 0))};
      p[k++] = (struct pollfd){.fd = b->from, .events = (short)((b->len == 0 && !b->eof ? POLLIN : 0) | (a->len ? POLLOUT : 0))};
    }
    if (poll(p, (nfds_t)k, -1) < 0) {
      if (errno == EINTR) continue;
      die_errno(EXIT_SETUP, "forwarder: poll", "failed");
    }
    k = n;
    for (int s = 0; s < MAX_PAIRS; s++) {
      if (!used[s]) continue;
      short ra = p[k].revents, rb = p[k + 1].revents;
      k += 2;
      struct half *a = &halves[s][0], *b = &halves[s][1];
      int failed = pump(a, ra, rb) < 0 || pump(b, rb, ra) < 0;
      if (failed || (a->eof && b->eof && a->len == 0 && b->len == 0)) {
        close(a->from);
        close(b->from);
        free(a->buf);
        used[s] = 0;
      }
    }
    for (int i = 0; i < n; i++) {
      if (p[i].revents & POLLIN) accept_one(listeners[i], forwards[i].socket);
    }
  }
}

int start_forwarder(const struct forward *forwards, int n, int abi) {
  int status[2];
  if (n > 8) die(EXIT_USAGE, "at most 8 --forward");
  if (pipe2(status, O_CLOEXEC) != 0) die_errno(EXIT_SETUP, "pipe", "forwarder");
  pid_t agent = getpid(), pid = fork();
  if (pid < 0) die_errno(EXIT_SETUP, "fork", "forwarder");
  if (pid == 0) {
    close(status[0]);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != agent) _exit(EXIT_SETUP);
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    /* Of the agent's descriptors it keeps stderr only (for its errors): stdin and stdout become
     * /dev/null, the rest (the ready pipe, what bubblewrap passed on) is closed. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) dup2(null, 0), dup2(null, 1);
    close_except(status[1]);
    int listeners[8];
    for (int i = 0; i < n; i++) listeners[i] = listen_on(forwards[i].port);
    confine_forwarder(abi);
    if (write(status[1], "L", 1) != 1) _exit(EXIT_SETUP);
    close(status[1]);
    relay(forwards, listeners, n);
    _exit(0);
  }
  close(status[1]);
  return status[0];
}

void await_forwarder(int status) {
  char byte = 0;
  ssize_t got;
  while ((got = read(status, &byte, 1)) < 0 && errno == EINTR) {}
  close(status);
  if (got != 1 || byte != 'L') die(EXIT_SETUP, "the forwarder did not start (its error is above)");
}
