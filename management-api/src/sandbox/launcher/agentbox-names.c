/* agentbox-names.c: the forwarder's name service for transparent egress (--transparent).
 *
 * Inside the agent's network namespace nothing resolves (no route, no DNS). The forwarder answers
 * DNS over TCP on 127.0.0.1:53 (the sandbox's resolv.conf says `options use-vc`: the seccomp
 * filter refuses the agent UDP sockets) with one synthetic loopback address per name, in
 * 127.64.0.0/18; AAAA and every other type get an empty answer. A connection to such an address
 * on a transparent port is turned back into the name (names_lookup) and becomes `CONNECT
 * name:port` to the egress proxy with the agent's own credential (names_connect_head), so the
 * proxy decides by name as for a client that honours HTTPS_PROXY. The table holds NAMES entries;
 * past that the oldest is reused (a stale address then reaches another name, still decided by
 * the proxy). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agentbox-sandbox.h"

enum { NAMES = 4096, NAME_MAX_LEN = 253 };
#define NAMES_BASE 0x7f400000U /* 127.64.0.0 */
static char names[NAMES][NAME_MAX_LEN + 1];
static unsigned named, next_slot;
static char credential[256];

/* The Basic credential of the agent's proxy URL (http://id:secret@host:port in HTTPS_PROXY): the
 * forwarder presents what the agent itself would. */
void names_init(void) {
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const char *url = getenv("HTTPS_PROXY"), *at, *start;
  if (!url || strncmp(url, "http://", 7) != 0 || !(at = strchr(url + 7, '@'))) return;
  start = url + 7;
  size_t n = (size_t)(at - start), o = 0;
  if (n == 0 || n > 180) return;
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned char)start[i] << 16 | (i + 1 < n ? (unsigned char)start[i + 1] << 8 : 0) | (i + 2 < n ? (unsigned char)start[i + 2] : 0);
    credential[o++] = b64[v >> 18 & 63];
    credential[o++] = b64[v >> 12 & 63];
    credential[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    credential[o++] = i + 2 < n ? b64[v & 63] : '=';
  }
  credential[o] = 0;
}

/* The synthetic address (host order) of `name`, allocating one the first time. */
static unsigned address_of(const char *name) {
  for (unsigned i = 0; i < named; i++)
    if (strcmp(names[i], name) == 0) return NAMES_BASE + i + 1;
  unsigned slot = named < NAMES ? named++ : (next_slot++ % NAMES);
  strcpy(names[slot], name);
  return NAMES_BASE + slot + 1;
}

const char *names_lookup(unsigned address) {
  unsigned i = address - NAMES_BASE - 1;
  return address > NAMES_BASE && i < named ? names[i] : NULL;
}

int names_connect_head(char *out, size_t size, const char *name, unsigned port) {
  int n = credential[0] ? snprintf(out, size, "CONNECT %s:%u HTTP/1.1\r\nHost: %s:%u\r\nProxy-Authorization: Basic %s\r\n\r\n", name, port, name, port, credential)
                        : snprintf(out, size, "CONNECT %s:%u HTTP/1.1\r\nHost: %s:%u\r\n\r\n", name, port, name, port);
  return n > 0 && (size_t)n < size ? n : -1;
}

/* Answer the DNS query in q[0..len) into r (at least len + 16 bytes); returns the answer's length, 0 to drop it.
 * Names are letters, digits, '-' and '_' only (lower-cased): nothing else can reach a CONNECT line. */
size_t names_answer(const unsigned char *q, size_t len, unsigned char *r) {
  if (len < 17 || len > 512 || (q[2] & 0x80) || q[4] != 0 || q[5] != 1) return 0;
  char name[NAME_MAX_LEN + 2];
  size_t at = 12, n = 0;
  int bad = 0;
  while (at < len && q[at] != 0) {
    unsigned l = q[at++];
    if (l > 63 || at + l >= len) return 0;
    if (n + l + 1 > NAME_MAX_LEN + 1) bad = 1;
    for (unsigned k = 0; k < l && !bad; k++) {
      char c = (char)q[at + k];
      if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) bad = 1;
      name[n++] = c;
    }
    if (!bad) name[n++] = '.';
    at += l;
  }
  if (at + 5 > len) return 0;
  size_t end = at + 5; /* the root label, QTYPE, QCLASS */
  unsigned qtype = (unsigned)q[at + 1] << 8 | q[at + 2], qclass = (unsigned)q[at + 3] << 8 | q[at + 4];
  if (n > 0) name[--n] = 0;
  else bad = 1;
  memcpy(r, q, end);
  r[2] = (unsigned char)(0x84 | (q[2] & 0x79)); /* QR, AA, the opcode and RD as asked */
  r[3] = 0x80;                                  /* RA, NOERROR */
  memset(r + 6, 0, 6);                          /* no answer, authority or additional record yet */
  if (bad) {
    r[3] = 0x83; /* NXDOMAIN: not a name the proxy could be asked for */
    return end;
  }
  if (qtype != 1 || qclass != 1) return end; /* AAAA and the rest: the name exists, with no such record */
  unsigned a = address_of(name);
  unsigned char rr[16] = {0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, (unsigned char)(a >> 24), (unsigned char)(a >> 16), (unsigned char)(a >> 8), (unsigned char)a};
  memcpy(r + end, rr, sizeof rr);
  r[7] = 1;
  return end + sizeof rr;
}
