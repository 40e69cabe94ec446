/* agentbox-forward.c: the loopback forwarder of an agent in its own network namespace (--forward).
 *
 * Forked by the launcher before it confines itself: listens on 127.0.0.1:PORT for every forward,
 * then confines itself (Landlock: no file rights, no TCP bind or connect; the launcher's seccomp
 * filter with unix sockets allowed, for the one thing it does), tells the launcher it listens and
 * relays each accepted connection to its unix socket, both ways, with half-closes passed on. With
 * --transparent it also answers DNS over TCP on 127.0.0.1:53 and listens on each transparent port
 * on every loopback address: a connection to a name it resolved goes to the egress proxy as
 * CONNECT name:port (agentbox-names.c), the proxy's 200 is taken off, and a refusal is passed to
 * the agent as it came (a plain-HTTP client shows it) and said on the agent's stderr. The
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
enum { MAX_PAIRS = 256, BUF = 128 * 1024, MAX_LISTENERS = 17, MAX_DNS = 8, DNS_MAX = 514 };

/* One direction of a relayed connection: bytes read from `from` waiting to be written to `to`.
 * `head`: the proxy's answer to a transparent CONNECT is still being read (not yet relayed). */
struct half { int from, to; size_t len, off; int eof, head; char *buf; };
static struct half halves[MAX_PAIRS][2];
static int used[MAX_PAIRS];

/* What a listener leads to: a --forward's socket, a transparent port, or the DNS service. */
enum kind { FORWARD, TRANSPARENT, DNS };
struct listener { int fd; enum kind kind; const char *socket; };
static struct listener listeners[MAX_LISTENERS];
static int nlisteners;

/* A DNS-over-TCP query being read: a 2-byte length, then the message. */
struct dns_conn { int fd; size_t len; unsigned char buf[DNS_MAX]; };
static struct dns_conn dns[MAX_DNS];

static void confine_forwarder(int abi) {
  struct ll_ruleset_attr attr = {.handled_access_fs = fs_handled(abi), .handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP, .scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0 || syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die_errno(EXIT_SETUP, "forwarder: landlock", "failed");
  close(ruleset);
  install_seccomp(1, 0);
}

static int listen_on(unsigned port, uint32_t address) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(address)};
  char what[16];
  snprintf(what, sizeof what, "%u", port);
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) die_errno(EXIT_SETUP, "forwarder: cannot listen on 127.0.0.1 port", what);
  return fd;
}

/* Pair the accepted connection `in` with a new connection to `path`; returns its slot, or -1 (`in` closed). */
static int pair_with(int in, const char *path) {
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
    return -1;
  }
  used[slot] = 1;
  halves[slot][0] = (struct half){.from = in, .to = out, .buf = bufs};
  halves[slot][1] = (struct half){.from = out, .to = in, .buf = bufs + BUF};
  return slot;
}

/* A connection to a transparent port: the name behind its destination address, CONNECTed by name
 * through the egress proxy. A destination that is no name the forwarder gave out is closed. */
static void accept_transparent(int listener, const char *via) {
  struct sockaddr_in local;
  socklen_t size = sizeof local;
  int in = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (in < 0) return;
  const char *name = getsockname(in, (struct sockaddr *)&local, &size) == 0 ? names_lookup(ntohl(local.sin_addr.s_addr)) : NULL;
  int slot = name ? pair_with(in, via) : (close(in), -1);
  if (slot < 0) return;
  struct half *up = &halves[slot][0];
  int n = names_connect_head(up->buf, BUF, name, ntohs(local.sin_port));
  if (n < 0) n = 0;
  up->len = (size_t)n;
  halves[slot][1].head = 1;
}

/* The proxy's answer head is complete in h->buf: a 200 is taken off, anything else is relayed as it
 * came and said on stderr (the agent's), with the refusal's own words. */
static void answer_head(struct half *h, size_t end) {
  h->head = 0;
  if (end >= 12 && memcmp(h->buf + 9, "200", 3) == 0) {
    h->off = end;
    if (h->off == h->len) h->len = 0, h->off = 0;
    return;
  }
  const char *refusal = memmem(h->buf, end, "X-Agentbox-Refusal: ", 20);
  const char *line_end = refusal ? memmem(refusal, (size_t)(h->buf + end - refusal), "\r\n", 2) : NULL;
  int status_len = (int)(memchr(h->buf, '\r', end) ? (char *)memchr(h->buf, '\r', end) - h->buf : 0);
  if (refusal && line_end) fprintf(stderr, "agentbox-sandbox: egress refused: %.*s\n", (int)(line_end - refusal - 20), refusal + 20);
  else fprintf(stderr, "agentbox-sandbox: egress proxy answered %.*s\n", status_len, h->buf);
  h->off = 0;
}

/* Move bytes for one direction; returns -1 when the pair must be dropped (a write failed). */
static int wants_read(const struct half *h) {
  return !h->eof && (h->len == 0 || (h->head && h->len < BUF));
}

static int pump(struct half *h, short revents_from, short revents_to) {
  if (wants_read(h) && (revents_from & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t n = recv(h->from, h->buf + (h->head ? h->len : 0), BUF - (h->head ? h->len : 0), 0);
    if (n > 0 && h->head) {
      h->len += (size_t)n;
      char *end = memmem(h->buf, h->len, "\r\n\r\n", 4);
      if (end) answer_head(h, (size_t)(end - h->buf) + 4);
      else if (h->len == BUF) return -1;
    } else if (n > 0) h->len = (size_t)n, h->off = 0;
    else if (n == 0 || (errno != EAGAIN && errno != EINTR)) h->eof = 1, h->head = 0, h->len = 0, shutdown(h->to, SHUT_WR);
  }
  if (h->len > 0 && !h->head && (revents_to & (POLLOUT | POLLERR | POLLHUP))) {
    ssize_t n = send(h->to, h->buf + h->off, h->len - h->off, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
    if (n > 0 && (h->off += (size_t)n) == h->len) h->len = 0;
  }
  return 0;
}

/* Read what a DNS-over-TCP client sent and answer each whole query in it; the connection stays
 * open for more (glibc asks A and AAAA on one connection) until the client closes it. */
static void serve_dns(struct dns_conn *c) {
  ssize_t n = recv(c->fd, c->buf + c->len, DNS_MAX - c->len, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  int drop = n <= 0;
  if (n > 0) c->len += (size_t)n;
  while (!drop && c->len >= 2) {
    size_t want = 2 + ((size_t)c->buf[0] << 8 | c->buf[1]);
    if (want > DNS_MAX) drop = 1;
    if (drop || c->len < want) break;
    unsigned char answer[DNS_MAX + 32];
    size_t len = names_answer(c->buf + 2, want - 2, answer + 2);
    answer[0] = (unsigned char)(len >> 8), answer[1] = (unsigned char)len;
    /* An answer is a few hundred bytes: a socket that cannot take it at once is not a resolver's. */
    if (len == 0 || send(c->fd, answer, len + 2, MSG_NOSIGNAL) != (ssize_t)(len + 2)) drop = 1;
    memmove(c->buf, c->buf + want, c->len - want);
    c->len -= want;
  }
  if (!drop) return;
  close(c->fd);
  c->fd = -1;
}

static void accept_dns(int listener) {
  int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return;
  for (int i = 0; i < MAX_DNS; i++) {
    if (dns[i].fd >= 0) continue;
    dns[i].fd = fd, dns[i].len = 0;
    return;
  }
  close(fd); /* more queries at once than a resolver makes: it retries */
}

static void relay(const char *via) {
  static struct pollfd p[MAX_LISTENERS + MAX_DNS + 2 * MAX_PAIRS];
  for (;;) {
    int k = 0;
    for (int i = 0; i < nlisteners; i++) p[k++] = (struct pollfd){.fd = listeners[i].fd, .events = POLLIN};
    for (int i = 0; i < MAX_DNS; i++) p[k++] = (struct pollfd){.fd = dns[i].fd, .events = POLLIN};
    for (int s = 0; s < MAX_PAIRS; s++) {
      if (!used[s]) continue;
      struct half *a = &halves[s][0], *b = &halves[s][1];
      /* Each end: readable while its direction's buffer has room, writable while the other's has output. */
      p[k++] = (struct pollfd){.fd = a->from, .events = (short)((wants_read(a) ? POLLIN : 0) | (b->len && !b->head ? POLLOUT : 0))};
      p[k++] = (struct pollfd){.fd = b->from, .events = (short)((wants_read(b) ? POLLIN : 0) | (a->len ? POLLOUT : 0))};
    }
    if (poll(p, (nfds_t)k, -1) < 0) {
      if (errno == EINTR) continue;
      die_errno(EXIT_SETUP, "forwarder: poll", "failed");
    }
    k = nlisteners;
    for (int i = 0; i < MAX_DNS; i++, k++) {
      if (dns[i].fd >= 0 && (p[k].revents & (POLLIN | POLLHUP | POLLERR))) serve_dns(&dns[i]);
    }
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
    for (int i = 0; i < nlisteners; i++) {
      if (!(p[i].revents & POLLIN)) continue;
      if (listeners[i].kind == FORWARD) {
        int in = accept4(listeners[i].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (in >= 0) pair_with(in, listeners[i].socket);
      } else if (listeners[i].kind == TRANSPARENT) accept_transparent(listeners[i].fd, via);
      else accept_dns(listeners[i].fd);
    }
  }
}

/* Every listener, bound while the capability to bind low ports is held. A transparent port that
 * is also a forward's is left to the forward (its 127.0.0.1 listener takes that port). */
static void listen_all(const struct forward *forwards, int n, const struct transparent *t) {
  for (int i = 0; i < n; i++) listeners[nlisteners++] = (struct listener){.fd = listen_on(forwards[i].port, INADDR_LOOPBACK), .kind = FORWARD, .socket = forwards[i].socket};
  if (t->n == 0) return;
  names_init();
  listeners[nlisteners++] = (struct listener){.fd = listen_on(53, INADDR_LOOPBACK), .kind = DNS};
  for (int i = 0; i < t->n; i++) {
    int taken = 0;
    for (int f = 0; f < n; f++) taken |= forwards[f].port == t->ports[i];
    /* Every loopback address: the names' addresses are 127.64.x.y (agentbox-names.c). */
    if (!taken) listeners[nlisteners++] = (struct listener){.fd = listen_on(t->ports[i], INADDR_ANY), .kind = TRANSPARENT};
  }
}

int start_forwarder(const struct forward *forwards, int n, const struct transparent *transparent, int abi) {
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
    for (int i = 0; i < MAX_DNS; i++) dns[i].fd = -1;
    listen_all(forwards, n, transparent);
    drop_capabilities();
    confine_forwarder(abi);
    if (write(status[1], "L", 1) != 1) _exit(EXIT_SETUP);
    close(status[1]);
    relay(transparent->via);
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
