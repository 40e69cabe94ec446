/* agentbox-sandbox: confines itself (rlimits, no_new_privs, Landlock, seccomp), then execs an agent.
 *
 * Usage: agentbox-sandbox [OPTION]... -- COMMAND [ARG]...
 *   --ro PATH        read and execute beneath PATH (a missing PATH is skipped: fewer rights, never more)
 *   --rw PATH        read, write and execute beneath PATH (must exist)
 *   --dev PATH       read, write and ioctl on one device file such as /dev/null (missing: skipped)
 *   --connect PORT   allow TCP connect to PORT on any address (repeatable)
 *   --rlimit R=N     R is data, cpu, nofile or fsize; soft = hard = N, so the agent cannot raise it
 *   --allow-unix     allow socket(AF_UNIX) (refused by default, see deny_unix below)
 *   --require-abi N  refuse unless the kernel's Landlock ABI is at least N (default and minimum 6)
 *   --probe          print {"abi":N,"required":N} and exit: 0 when enforceable, else EXIT_ABI
 * Exit codes before exec: 64 usage, 121 the kernel cannot enforce, 122 a policy path, 123 setup,
 * 126/127 the command is not executable / not found. After exec the code is the agent's.
 * No libseccomp, no liblandlock: raw syscalls and a hand-written BPF filter keep it dependency-free. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { EXIT_USAGE = 64, EXIT_ABI = 121, EXIT_PATH = 122, EXIT_SETUP = 123 };

/* Landlock UAPI up to ABI 6, spelled out: distribution headers lag the kernel (Debian 12 stops at ABI 2). */
struct ll_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct ll_path_beneath { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));
struct ll_net_port { uint64_t allowed_access, port; };
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#define LL_VERSION (1U << 0)
#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_ABI1_ALL ((1ULL << 13) - 1) /* execute .. make_sym */
#define FS_REFER (1ULL << 13)       /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)    /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15)   /* ABI 5 */
#define NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)        /* ABI 6 */
#define FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define MIN_ABI 6 /* the policy needs TCP connect rules (4) and signal + abstract socket scoping (6) */

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "agentbox-sandbox supports x86_64 and aarch64"
#endif

static void die(int code, const char *what) {
  fprintf(stderr, "agentbox-sandbox: %s\n", what);
  exit(code);
}

static void die_errno(int code, const char *what, const char *arg) {
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

static uint64_t fs_handled(int abi) {
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

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i)) /* low 32 bits (little-endian); int arguments */
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define RET_ALLOW STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
/* Every namespace flag of clone/unshare (CLONE_NEWNS .. CLONE_NEWNET); unshare also CLONE_NEWTIME. */
#define NS_FLAGS 0x7E020000U
#define NEWTIME 0x00000080U

/* Syscalls refused outright (EPERM), each an escape hatch Landlock and rlimits leave open. */
static const int denied[] = {
  SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, /* reading or steering another process's memory */
#ifdef SYS_pidfd_getfd
  SYS_pidfd_getfd, /* taking another process's open files (the API's sockets and keys) */
#endif
  SYS_setns, /* joining another namespace */
  SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, /* changing the filesystem view */
#ifdef SYS_mount_setattr
  SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr,
#endif
  SYS_bpf, SYS_perf_event_open, SYS_userfaultfd, /* kernel attack surface and exploit primitives */
  SYS_keyctl, SYS_add_key, SYS_request_key, /* the user keyring is shared by every process of the uid */
  SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, /* io_uring creates sockets without socket(2) */
};

static void install_seccomp(int allow_unix) {
  struct sock_filter f[128];
  unsigned n = 0;
  /* A foreign calling convention (i386 int 0x80, arm32) would number syscalls differently: kill. */
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0);
  f[n++] = STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
  f[n++] = JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1); /* x32 syscalls share the arch value */
  f[n++] = RET_ERRNO(ENOSYS);
#endif
  /* socket(): TCP over IPv4/IPv6 only; UDP, raw, packet, netlink, SCTP and the rest are refused.
   * AF_UNIX: pathname sockets are not covered by Landlock before ABI 7's successors, and the box's
   * supervisord control socket lives at a path; socketpair(2) (unaddressed) stays allowed. */
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 13);
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1);
  f[n++] = allow_unix ? RET_ALLOW : RET_ERRNO(EPERM);
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0);
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 7);
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1));
  f[n++] = STMT(BPF_ALU | BPF_AND | BPF_K, 0xf); /* strip SOCK_NONBLOCK / SOCK_CLOEXEC */
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 0, 4);
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 1);
  f[n++] = RET_ALLOW;
  f[n++] = RET_ERRNO(EPERM);
  /* clone/unshare: no new namespaces (a user namespace would regain capabilities). */
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4);
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
  f[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1);
  f[n++] = RET_ERRNO(EPERM);
  f[n++] = RET_ALLOW;
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 4);
  f[n++] = STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0));
  f[n++] = JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS | NEWTIME, 0, 1);
  f[n++] = RET_ERRNO(EPERM);
  f[n++] = RET_ALLOW;
  /* clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone. */
  f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1);
  f[n++] = RET_ERRNO(ENOSYS);
  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
    f[n++] = JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[i], 0, 1);
    f[n++] = RET_ERRNO(EPERM);
  }
  f[n++] = RET_ALLOW;
  struct sock_fprog prog = {.len = (unsigned short)n, .filter = f};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) die_errno(EXIT_SETUP, "seccomp", "filter refused");
}

/* Started with capabilities (the local mode as root): drop them all, for good, before exec. Without
 * this a root agent keeps CAP_SYS_MODULE, CAP_DAC_OVERRIDE … and regains them at every exec. In the
 * container (uid 1000, cap_drop ALL) there is nothing to drop. */
static void drop_capabilities(void) {
  struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2] = {{0}};
  if (syscall(SYS_capget, &head, data) != 0) die_errno(EXIT_SETUP, "capget", "failed");
  int any = 0;
  for (int c = 0; c <= CAP_LAST_CAP; c++) any |= prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1;
  if (!(data[0].permitted | data[1].permitted)) return; /* cannot gain any back under no_new_privs */
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

static void set_rlimit(const char *spec) {
  static const struct { const char *name; int resource; } names[] = {{"data", RLIMIT_DATA}, {"cpu", RLIMIT_CPU}, {"nofile", RLIMIT_NOFILE}, {"fsize", RLIMIT_FSIZE}};
  const char *eq = strchr(spec, '=');
  for (size_t i = 0; eq && i < sizeof names / sizeof names[0]; i++) {
    if (strlen(names[i].name) != (size_t)(eq - spec) || strncmp(spec, names[i].name, eq - spec) != 0) continue;
    rlim_t v = (rlim_t)number(eq + 1, "--rlimit value");
    struct rlimit rl = {v, v};
    if (setrlimit(names[i].resource, &rl) != 0) die_errno(EXIT_SETUP, "setrlimit", spec);
    return;
  }
  fprintf(stderr, "agentbox-sandbox: --rlimit takes data=N, cpu=N, nofile=N or fsize=N, got \"%s\"\n", spec);
  exit(EXIT_USAGE);
}

int main(int argc, char **argv) {
  enum { MAX_RULES = 256 };
  const char *ro[MAX_RULES], *rw[MAX_RULES], *dev[MAX_RULES];
  unsigned long long ports[MAX_RULES];
  int nro = 0, nrw = 0, ndev = 0, nports = 0, allow_unix = 0, probe = 0, i;
  unsigned long long required = MIN_ABI;
  for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(opt, "--allow-unix") == 0) { allow_unix = 1; continue; }
    if (strcmp(opt, "--probe") == 0) { probe = 1; continue; }
    if (!val || nro == MAX_RULES || nrw == MAX_RULES || ndev == MAX_RULES || nports == MAX_RULES) die(EXIT_USAGE, "an option lacks its value, or too many rules (see the usage at the top of agentbox-sandbox.c)");
    i++;
    if (strcmp(opt, "--ro") == 0) ro[nro++] = val;
    else if (strcmp(opt, "--rw") == 0) rw[nrw++] = val;
    else if (strcmp(opt, "--dev") == 0) dev[ndev++] = val;
    else if (strcmp(opt, "--connect") == 0) {
      ports[nports] = number(val, "--connect port");
      if (ports[nports] < 1 || ports[nports] > 65535) die(EXIT_USAGE, "--connect port must be 1-65535");
      nports++;
    } else if (strcmp(opt, "--rlimit") == 0) set_rlimit(val);
    else if (strcmp(opt, "--require-abi") == 0) {
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
  /* Fail closed: the whole policy or nothing. */
  if ((unsigned long long)abi < required) {
    fprintf(stderr, "agentbox-sandbox: refusing to run unconfined: %s (kernel Landlock ABI %d, required %llu)\n", missing(abi), abi, required);
    return EXIT_ABI;
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die_errno(EXIT_SETUP, "prctl", "PR_SET_NO_NEW_PRIVS");
  drop_capabilities();
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
  close(ruleset);
  install_seccomp(allow_unix);
  execvp(command[0], command);
  int code = errno == ENOENT ? 127 : 126;
  die_errno(code, "cannot execute", command[0]);
  return code;
}
