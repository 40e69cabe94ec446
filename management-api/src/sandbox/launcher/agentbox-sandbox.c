/* agentbox-sandbox: confines itself (rlimits, no_new_privs, Landlock, seccomp), then execs an agent.
 *
 * Usage: agentbox-sandbox [OPTION]... -- COMMAND [ARG]...
 *   --ro PATH        read and execute beneath PATH (a missing PATH is skipped: fewer rights, never more)
 *   --rw PATH        read, write and execute beneath PATH (must exist)
 *   --dev PATH       read, write and ioctl on one device file such as /dev/null (missing: skipped)
 *   --connect PORT   allow TCP connect to PORT on any address (repeatable)
 *   --rlimit R=N     R is data, cpu, nofile, fsize or nproc; soft = hard = N, so the agent cannot raise it
 *   --allow-unix     allow socket(AF_UNIX) (refused by default, see deny_unix below)
 *   --own-ipc        the agent has an IPC namespace of its own (bubblewrap): SysV IPC and POSIX
 *                    message queues are allowed (refused by default: the namespace is the box's)
 *   --forward P=SOCK before confining itself, fork a forwarder (agentbox-forward.c) listening on
 *                    127.0.0.1:P that passes each connection to the unix socket SOCK (repeatable; for
 *                    an agent in its own network namespace); the agent stays refused unix sockets
 *   --transparent P  with --forward and --transparent-via: the forwarder also answers DNS over TCP on
 *                    127.0.0.1:53 with a loopback address per name, and passes each connection to such
 *                    an address on port P as CONNECT name:P, with the agent's credential (HTTPS_PROXY),
 *                    to the egress proxy (agentbox-names.c; repeatable; bubblewrap with
 *                    CAP_NET_BIND_SERVICE, which the forwarder drops once it listens)
 *   --transparent-via SOCK  the egress proxy's unix socket for --transparent
 *   --ready-fd N     once confined and every forwarder listens, write one byte to fd N and close it
 *   --status-fd N    run the agent as a child rather than exec it, and write its wait status to fd N
 *                    when it ends (in bubblewrap, whose own report folds a signal n into status 128+n)
 *   --keep           stay as the keeper of the agent's processes (agentbox-keeper.c): the agent runs as
 *                    a child in a nested Landlock domain; without bubblewrap (not with --status-fd).
 *                    With --ready-fd the descriptor stays open for the keeper's reports ("limit:memory")
 *   --memory-limit N with --keep or --status-fd: end every process of the agent once their resident
 *                    memory passes N bytes, and say so on the --ready-fd descriptor ("limit:memory N"),
 *                    which then stays open
 *   --require-abi N  refuse unless the kernel's Landlock ABI is at least N (default and minimum 6)
 *   --probe          print {"abi":N,"required":N} and exit: 0 when enforceable, else EXIT_ABI
 * Or: agentbox-sandbox --wrap -- BWRAP [ARG]...: the process around bubblewrap (agentbox-wrap.c).
 * Any of these may be preceded by --tty FD COLSxROWS: the agent runs on the pseudo-terminal whose
 *     master the box passed as FD (agentbox-tty.c); `--tty FD SIZE -- COMMAND` only does that and
 *     execs COMMAND (an agent of a box whose sandbox is turned off).
 * Or: agentbox-sandbox --parent-death -- COMMAND [ARG]...: exec COMMAND with SIGTERM as its
 *     parent-death signal (agentbox-parent-death.c; how `agentbox up` ties the box to itself).
 * Or: agentbox-sandbox --subvolume OP PATH…: make, snapshot or remove a btrfs subvolume
 *     (agentbox-subvolume.c; the clones that make forks of a snapshot share its bytes).
 * Exit codes before exec: 64 usage, 121 the kernel cannot enforce, 122 a policy path, 123 setup,
 * 126/127 the command is not executable / not found. After exec the code is the agent's, which
 * starts as from a plain spawn: default signal dispositions, an empty signal mask, only fds 0-2.
 * No libseccomp, no liblandlock: raw syscalls and a hand-written BPF filter keep it dependency-free. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "agentbox-sandbox.h"


void die(int code, const char *what) {
  fprintf(stderr, "agentbox-sandbox: %s\n", what);
  exit(code);
}

void die_errno(int code, const char *what, const char *arg) {
  fprintf(stderr, "agentbox-sandbox: %s %s: %s\n", what, arg, strerror(errno));
  exit(code);
}

static int landlock_abi(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

/* What this kernel can't do, in words, for the refusal message. */
static const char *missing(int abi) {
  if (abi == 0) return "Landlock is unavailable (kernel without CONFIG_SECURITY_LANDLOCK, or landlock missing from the lsm= boot list)";
  if (abi < 4) return "Landlock ABI 4 (TCP connect rules) is missing";
  if (abi < 6) return "Landlock ABI 6 (signal and abstract unix socket scoping) is missing";
  return "a Landlock ABI above the kernel's was required";
}

uint64_t fs_handled(int abi) {
  uint64_t fs = FS_ABI1_ALL;
  if (abi >= 2) fs |= FS_REFER;
  if (abi >= 3) fs |= FS_TRUNCATE;
  if (abi >= 5) fs |= FS_IOCTL_DEV;
  return fs;
}

/* Grant `access` beneath `path` (masked to file rights when it is not a directory). */
static void add_path(int ruleset, const char *path, uint64_t access, uint64_t handled, int optional) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    if (optional && errno == ENOENT) return;
    die_errno(EXIT_PATH, "cannot open policy path", path);
  }
  struct stat st;
  if (fstat(fd, &st) != 0) die_errno(EXIT_PATH, "cannot stat policy path", path);
  if (!S_ISDIR(st.st_mode)) access &= FILE_RIGHTS;
  struct ll_path_beneath rule = {.allowed_access = access & handled, .parent_fd = fd};
  if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) != 0) die_errno(EXIT_SETUP, "landlock_add_rule failed for", path);
  close(fd);
}

/* Started with capabilities (the local mode as root): drop them all, for good, before exec. Without
 * this a root agent keeps CAP_SYS_MODULE, CAP_DAC_OVERRIDE … and regains them at every exec. In the
 * container (uid 1000, cap_drop ALL) there is nothing to drop. */
void drop_capabilities(void) {
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {{0}};
  if (syscall(SYS_capget, &head, data) != 0) die_errno(EXIT_SETUP, "capget", "failed");
  if (!(data[0].permitted | data[1].permitted)) return; /* cannot gain any back under no_new_privs */
  int any = 0;
  for (int c = 0; c <= CAP_LAST_CAP; c++) any |= prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1;
  for (int c = 0; any && c <= CAP_LAST_CAP; c++)
    if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1 && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_CAPBSET_DROP");
  /* uid 0 must not regain capabilities at exec (securebits), then clear every set. */
  if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_SET_SECUREBITS");
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_CAP_AMBIENT_CLEAR_ALL");
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &head, data) != 0) die_errno(EXIT_SETUP, "capset", "failed");
}

static unsigned long long number(const char *text, const char *what) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text || *end || text[0] == '-') {
    fprintf(stderr, "agentbox-sandbox: %s must be a non-negative integer, got \"%s\"\n", what, text);
    exit(EXIT_USAGE);
  }
  return v;
}

/* RLIMIT_NPROC counts per uid: only inside a user namespace of its own (bubblewrap) is it the agent's alone. */
static const struct { const char *name; int resource; } rlimit_names[] = {{"data", RLIMIT_DATA}, {"cpu", RLIMIT_CPU}, {"nofile", RLIMIT_NOFILE}, {"fsize", RLIMIT_FSIZE}, {"nproc", RLIMIT_NPROC}};
#define N_RLIMITS (sizeof rlimit_names / sizeof rlimit_names[0])

/* Parse R=N into limits[index of R]; applied later by apply_rlimits. */
static void parse_rlimit(const char *spec, long long limits[]) {
  const char *eq = strchr(spec, '=');
  for (size_t i = 0; eq && i < N_RLIMITS; i++) {
    if (strlen(rlimit_names[i].name) != (size_t)(eq - spec) || strncmp(spec, rlimit_names[i].name, eq - spec) != 0) continue;
    limits[i] = (long long)number(eq + 1, "--rlimit value");
    return;
  }
  fprintf(stderr, "agentbox-sandbox: --rlimit takes data=N, cpu=N, nofile=N, fsize=N or nproc=N, got \"%s\"\n", spec);
  exit(EXIT_USAGE);
}

static void apply_rlimits(const long long limits[]) {
  for (size_t i = 0; i < N_RLIMITS; i++) {
    if (limits[i] < 0) continue;
    struct rlimit rl = {(rlim_t)limits[i], (rlim_t)limits[i]};
    if (setrlimit(rlimit_names[i].resource, &rl) != 0) die_errno(EXIT_SETUP, "setrlimit", rlimit_names[i].name);
  }
}

/* The mask of ignored signals (bit s-1 for signal s) from /proc/self/status; every bit set when it
 * cannot be read, so that every signal is reset. */
static unsigned long long ignored_signals(void) {
  char buf[4096];
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ~0ULL;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return ~0ULL;
  buf[n] = 0;
  const char *line = strstr(buf, "\nSigIgn:\t");
  char *end;
  unsigned long long mask = line ? strtoull(line + 9, &end, 16) : 0;
  return line && end != line + 9 ? mask : ~0ULL;
}

/* What a plain spawn gives: default dispositions (bubblewrap runs with SIGTERM ignored, and an
 * ignored signal stays ignored across exec) and an empty mask. Done before the ready byte, so a
 * SIGTERM sent once the spawn returned is never lost. */
void reset_signals(void) {
  /* Only ignored signals need it: nothing in this process installed a handler that an exec would
   * not reset. /proc/self/status names them in one read instead of a system call per signal. */
  unsigned long long ignored = ignored_signals();
  for (int s = 1; s < NSIG; s++) {
    if (s != SIGKILL && s != SIGSTOP && (s > 64 || (ignored >> (s - 1)) & 1ULL)) signal(s, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Only fds 0-2 reach the agent, as from a plain spawn: whatever bubblewrap or the box passed on stays behind. */
void close_extra_fds(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
  for (int fd = 3; fd < 1024; fd++) close(fd);
}

/* Close every descriptor above 2 but `keep`: one or two close_range calls where the kernel has it. */
void close_except(int keep) {
#ifdef SYS_close_range
  if ((keep <= 3 || syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U) == 0) && syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U) == 0) return;
#endif
  for (int fd = 3; fd < 1024; fd++) {
    if (fd != keep) close(fd);
  }
}

static void parse_forward(const char *spec, struct forward *f) {
  const char *eq = strchr(spec, '=');
  if (!eq || eq == spec || !eq[1]) die(EXIT_USAGE, "--forward takes PORT=SOCKET");
  char port[8] = {0};
  if ((size_t)(eq - spec) >= sizeof port) die(EXIT_USAGE, "--forward port must be 1-65535");
  memcpy(port, spec, (size_t)(eq - spec));
  unsigned long long p = number(port, "--forward port");
  if (p < 1 || p > 65535) die(EXIT_USAGE, "--forward port must be 1-65535");
  f->port = (unsigned)p;
  f->socket = eq + 1;
}

int main(int argc, char **argv) {
  enum { MAX_RULES = 256, MAX_FORWARDS = 8 };
  const char *ro[MAX_RULES], *rw[MAX_RULES], *dev[MAX_RULES];
  unsigned long long ports[MAX_RULES];
  struct forward forwards[MAX_FORWARDS];
  unsigned transparent_ports[MAX_FORWARDS];
  struct transparent transparent = {.ports = transparent_ports, .n = 0, .via = NULL};
  long long limits[N_RLIMITS];
  for (size_t k = 0; k < N_RLIMITS; k++) limits[k] = -1;
  int nro = 0, nrw = 0, ndev = 0, nports = 0, nforwards = 0, allow_unix = 0, own_ipc = 0, probe = 0, keep = 0, ready_fd = -1, status_fd = -1, i;
  unsigned long long required = MIN_ABI, memory_limit = 0;
  /* The parent is read first thing: the check after prctl compares against the one that started us. */
  pid_t parent = getppid();
  /* First, before any other option: nothing else runs while the agent could hold the master. */
  if (argc > 3 && strcmp(argv[1], "--tty") == 0) {
    take_terminal(argv[2], argv[3]);
    argv[3] = argv[0];
    argv += 3;
    argc -= 3;
    if (argc > 2 && strcmp(argv[1], "--") == 0) {
      execvp(argv[2], argv + 2);
      die_errno(errno == ENOENT ? 127 : 126, "cannot execute", argv[2]);
    }
  }
  if (argc > 2 && strcmp(argv[1], "--wrap") == 0 && strcmp(argv[2], "--") == 0) return run_wrapped(argv + 3);
  if (argc > 1 && strcmp(argv[1], "--subvolume") == 0) return run_subvolume(argv + 2);
  if (argc > 2 && strcmp(argv[1], "--parent-death") == 0 && strcmp(argv[2], "--") == 0) return run_with_parent_death(argv + 3, parent);
  for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(opt, "--allow-unix") == 0) { allow_unix = 1; continue; }
    if (strcmp(opt, "--own-ipc") == 0) { own_ipc = 1; continue; }
    if (strcmp(opt, "--probe") == 0) { probe = 1; continue; }
    if (strcmp(opt, "--keep") == 0) { keep = 1; continue; }
    if (!val || nro == MAX_RULES || nrw == MAX_RULES || ndev == MAX_RULES || nports == MAX_RULES || nforwards == MAX_FORWARDS || transparent.n == MAX_FORWARDS) die(EXIT_USAGE, "an option lacks its value, or too many rules (see the usage at the top of agentbox-sandbox.c)");
    i++;
    if (strcmp(opt, "--ro") == 0) ro[nro++] = val;
    else if (strcmp(opt, "--rw") == 0) rw[nrw++] = val;
    else if (strcmp(opt, "--dev") == 0) dev[ndev++] = val;
    else if (strcmp(opt, "--connect") == 0) {
      ports[nports] = number(val, "--connect port");
      if (ports[nports] < 1 || ports[nports] > 65535) die(EXIT_USAGE, "--connect port must be 1-65535");
      nports++;
    } else if (strcmp(opt, "--rlimit") == 0) parse_rlimit(val, limits);
    else if (strcmp(opt, "--forward") == 0) parse_forward(val, &forwards[nforwards++]);
    else if (strcmp(opt, "--transparent") == 0) {
      unsigned long long p = number(val, "--transparent port");
      if (p < 1 || p > 65535) die(EXIT_USAGE, "--transparent port must be 1-65535");
      transparent_ports[transparent.n++] = (unsigned)p;
    } else if (strcmp(opt, "--transparent-via") == 0) transparent.via = val;
    else if (strcmp(opt, "--memory-limit") == 0) memory_limit = number(val, "--memory-limit");
    else if (strcmp(opt, "--ready-fd") == 0) {
      ready_fd = (int)number(val, "--ready-fd");
      if (ready_fd < 3 || fcntl(ready_fd, F_GETFD) < 0) die(EXIT_USAGE, "--ready-fd must name an open descriptor above 2");
    } else if (strcmp(opt, "--status-fd") == 0) {
      status_fd = (int)number(val, "--status-fd");
      if (status_fd < 3 || fcntl(status_fd, F_GETFD) < 0) die(EXIT_USAGE, "--status-fd must name an open descriptor above 2");
    } else if (strcmp(opt, "--require-abi") == 0) {
      required = number(val, "--require-abi");
      if (required < MIN_ABI) required = MIN_ABI;
    } else {
      fprintf(stderr, "agentbox-sandbox: unknown option \"%s\"\n", opt);
      return EXIT_USAGE;
    }
  }
  int abi = landlock_abi();
  if (probe) {
    printf("{\"abi\":%d,\"required\":%llu}\n", abi, required);
    return (unsigned long long)abi >= required ? 0 : EXIT_ABI;
  }
  if (i + 1 >= argc) die(EXIT_USAGE, "no command: agentbox-sandbox [OPTION]... -- COMMAND [ARG]...");
  char **command = argv + i + 1;
  if (memory_limit && !keep && status_fd < 0) die(EXIT_USAGE, "--memory-limit needs --keep or --status-fd (the process that stays beside the agent measures its processes)");
  if (keep && status_fd >= 0) die(EXIT_USAGE, "--keep and --status-fd exclude each other (bubblewrap's PID namespace keeps the agent's processes)");
  /* Fail closed: the whole policy or nothing. */
  if ((unsigned long long)abi < required) {
    fprintf(stderr, "agentbox-sandbox: refusing to run unconfined: %s (kernel Landlock ABI %d, required %llu)\n", missing(abi), abi, required);
    return EXIT_ABI;
  }
  if (transparent.n > 0 && (!transparent.via || nforwards == 0)) die(EXIT_USAGE, "--transparent needs --transparent-via SOCKET and a --forward");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_SET_NO_NEW_PRIVS");
  /* The forwarder is forked first: it binds its ports with what capability bubblewrap gave
   * (CAP_NET_BIND_SERVICE for port 53 and the transparent ports), then drops it and confines itself
   * more tightly (agentbox-forward.c), and keeps the unix sockets the agent is refused. It starts
   * while this process confines itself; its word is awaited before the ready byte. */
  int forwarder = nforwards > 0 ? start_forwarder(forwards, nforwards, &transparent, abi) : -1;
  drop_capabilities();
  reset_signals();
  apply_rlimits(limits);
  uint64_t handled = fs_handled(abi);
  /* Bind is handled and never granted: an agent must not squat a port the box's services restart on. */
  struct ll_ruleset_attr attr = {.handled_access_fs = handled, .handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP, .scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) die_errno(EXIT_SETUP, "landlock_create_ruleset", "failed");
  uint64_t read_exec = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
  for (int k = 0; k < nro; k++) add_path(ruleset, ro[k], read_exec, handled, 1);
  for (int k = 0; k < nrw; k++) add_path(ruleset, rw[k], handled, handled, 0);
  for (int k = 0; k < ndev; k++) add_path(ruleset, dev[k], FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE | FS_IOCTL_DEV, handled, 1);
  for (int k = 0; k < nports; k++) {
    struct ll_net_port rule = {.allowed_access = NET_CONNECT_TCP, .port = ports[k]};
    if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &rule, 0) != 0) die_errno(EXIT_SETUP, "landlock_add_rule", "(tcp port)");
  }
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) die_errno(EXIT_SETUP, "landlock_restrict_self", "failed");
  install_seccomp(allow_unix, own_ipc);
  /* The keeper and the waiting parent keep the ruleset: the agent restricts itself with it once
   * more, into a nested domain, so it cannot signal them. */
  if (keep) run_keeper(command, ruleset, ready_fd, memory_limit);
  if (forwarder >= 0) await_forwarder(forwarder);
  if (status_fd >= 0) run_as_parent(command, status_fd, ready_fd, ruleset, memory_limit);
  close(ruleset);
  /* Signals were reset above, so a SIGTERM sent once the spawn counts as started is never lost. */
  if (ready_fd >= 0) {
    if (write(ready_fd, "r", 1) != 1) die_errno(EXIT_SETUP, "write", "--ready-fd");
    close(ready_fd);
  }
  close_extra_fds();
  execvp(command[0], command);
  int code = errno == ENOENT ? 127 : 126;
  die_errno(code, "cannot execute", command[0]);
  return code;
}
