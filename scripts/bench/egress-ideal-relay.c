/* egress-ideal-relay.c: the egress benchmark's baseline, the least a relay in the data path can cost on this machine.
 *
 * Usage: egress-ideal-relay UPSTREAM_PORT. Listens on 127.0.0.1 (an ephemeral port, printed as
 * {"port":N} on stdout) and, one connection at a time, connects to 127.0.0.1:UPSTREAM_PORT and
 * copies what the upstream sends to the client with read/write through one 1 MiB buffer until the
 * upstream ends. No CONNECT, no policy, no event loop, one direction: what is left is the cost of a
 * third process and a second loopback hop, which any proxy pays. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  return a;
}

static void fail(const char *what) {
  perror(what);
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: egress-ideal-relay UPSTREAM_PORT\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN); /* a client gone mid-copy ends that copy, not the relay */
  struct sockaddr_in upstream = loopback(atoi(argv[1])), any = loopback(0);
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0 || bind(listener, (struct sockaddr *)&any, sizeof any) != 0 || listen(listener, 8) != 0) fail("listen");
  socklen_t len = sizeof any;
  if (getsockname(listener, (struct sockaddr *)&any, &len) != 0) fail("getsockname");
  printf("{\"port\":%d}\n", ntohs(any.sin_port));
  fflush(stdout);
  static char buffer[1 << 20];
  for (;;) {
    int client = accept(listener, NULL, NULL);
    if (client < 0) fail("accept");
    int server = socket(AF_INET, SOCK_STREAM, 0);
    if (server < 0 || connect(server, (struct sockaddr *)&upstream, sizeof upstream) != 0) fail("connect");
    ssize_t got;
    while ((got = read(server, buffer, sizeof buffer)) > 0) {
      for (ssize_t off = 0; off < got;) {
        ssize_t put = write(client, buffer + off, (size_t)(got - off));
        if (put <= 0) goto next;
        off += put;
      }
    }
  next:
    close(server);
    close(client);
  }
}
