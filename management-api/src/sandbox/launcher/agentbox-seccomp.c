/* agentbox-seccomp.c: the seccomp filter the launcher (and its forwarder) installs on itself before exec.
 * The same filter runs in both modes (the launcher alone, and the launcher inside bubblewrap): what
 * it refuses is refused there too, even where bubblewrap's namespaces would already contain it. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/prctl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/btrfs.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "agentbox-sandbox supports x86_64 and aarch64"
#endif

#define STMT(code, k) ((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, jt, jf) ((struct sock_filter)BPF_JUMP(code, k, jt, jf))
/* The low 32 bits (little-endian) of argument i. Every argument checked here is a C int in the
 * kernel (pid_t, flags, level, option name, `which`, `who`): the syscall entry truncates the
 * 64-bit register to it, so the high half never changes what the kernel does and is not read. */
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define RET_ERRNO(e) STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define RET_ALLOW STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define LOAD(off) STMT(BPF_LD | BPF_W | BPF_ABS, off)
/* Every namespace flag of clone/unshare (CLONE_NEWNS .. CLONE_NEWNET); unshare also CLONE_NEWTIME. */
#define NS_FLAGS 0x7E020000U
#define NEWTIME 0x00000080U
/* ioprio_set's `which` for one process (linux/ioprio.h, absent from older libc headers). */
#define IOPRIO_WHO_PROC 1U

/* Syscalls refused outright (EPERM), each an escape hatch Landlock and rlimits leave open. */
static const int denied[] = {
  SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, /* reading or steering another process's memory */
#ifdef SYS_pidfd_getfd
  SYS_pidfd_getfd, /* taking another process's open files (the API's sockets and keys) */
#endif
#ifdef SYS_process_madvise
  SYS_process_madvise, /* paging out or dropping another process's memory */
#endif
#ifdef SYS_process_mrelease
  SYS_process_mrelease,
#endif
  SYS_kcmp, /* comparing another process's files and memory with one's own: a probe of the API */
  SYS_setns, /* joining another namespace */
  SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, /* changing the filesystem view */
#ifdef SYS_mount_setattr
  SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick, SYS_mount_setattr,
#endif
  SYS_bpf, SYS_perf_event_open, SYS_userfaultfd, /* kernel attack surface and exploit primitives */
  SYS_keyctl, SYS_add_key, SYS_request_key, /* the user keyring is shared by every process of the uid */
  SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register, /* io_uring creates sockets without socket(2) */
  SYS_fanotify_init, /* its groups are counted per uid (128), across user namespaces: one agent could take every one, the box's too */
};

/* Setting extended attributes (setxattrat: Linux 6.13, numbered alike on every architecture). On
 * btrfs an attribute is kept in the filesystem's metadata, which no file's size or block count
 * shows, and a file may hold any number of them: `du` of a tree of 2,000 empty files holding 78 MB
 * of `user.*` attributes is 0 while the volume lost 198 MB. The disk budget measures blocks
 * (st_blocks, disk-walk.ts), so an agent could fill the box's volume past its budget. Refused as a
 * filesystem without them refuses (EOPNOTSUPP): `cp -a` and Python's shutil.copy2 pass over it in
 * silence, `tar --xattrs -x` warns and goes on; reading attributes stays allowed. */
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
static const int xattr_setters[] = {SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr, SYS_setxattrat};

/* SysV IPC and POSIX message queues: objects named by a key or a name in the IPC namespace, which
 * Landlock does not see; outside bubblewrap that namespace is the box's, shared with the API and
 * every other agent, so a queue or segment would be a channel between them. In bubblewrap the
 * agent has an IPC namespace of its own (--own-ipc): allowed there (a PostgreSQL server needs it). */
static const int ipc[] = {
  SYS_msgget, SYS_msgsnd, SYS_msgrcv, SYS_msgctl,
  SYS_semget, SYS_semop, SYS_semtimedop, SYS_semctl,
  SYS_shmget, SYS_shmat, SYS_shmdt, SYS_shmctl,
  SYS_mq_open, SYS_mq_unlink, SYS_mq_timedsend, SYS_mq_timedreceive, SYS_mq_notify, SYS_mq_getsetattr,
};

/* Syscalls that act on the process their first argument names (0: the caller). Another process
 * of the same uid is fair game to the kernel: prlimit64 on the API set its core and CPU limits
 * (it dumped core) and its RLIMIT_NOFILE (it crashed). Only the caller itself (0) is allowed; a
 * thread id, even the caller's own, is refused with the rest (pthread_setaffinity_np fails). */
static const int own_process_only[] = {
  SYS_prlimit64, /* getting too: another process's limits are the agent's business no more than setting them */
  SYS_sched_setaffinity, SYS_sched_setscheduler, SYS_sched_setparam, SYS_sched_setattr,
  SYS_migrate_pages, SYS_move_pages, /* moving another process's pages between NUMA nodes (move_pages also reads where they are) */
  SYS_get_robust_list, /* another process's robust futex list: an address, i.e. an ASLR leak */
};

/* A filter being built: blocks of a few instructions, each on one syscall number and returning
 * from inside, so that every jump is short and the accumulator holds the number between blocks. */
enum { MAX_INSNS = 256 };
struct prog { struct sock_filter f[MAX_INSNS]; unsigned n; };

static void put(struct prog *p, struct sock_filter s) {
  if (p->n == MAX_INSNS) die(EXIT_SETUP, "seccomp: the filter outgrew MAX_INSNS (agentbox-seccomp.c)");
  p->f[p->n++] = s;
}

/* nr: refused with `err`. */
static void refuse_with(struct prog *p, unsigned nr, unsigned err) {
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
  put(p, RET_ERRNO(err));
}

/* nr: EPERM. */
static void refuse(struct prog *p, unsigned nr) {
  refuse_with(p, nr, EPERM);
}

/* nr: allowed when argument `arg` is `value`, else EPERM. */
static void only_when(struct prog *p, unsigned nr, unsigned arg, unsigned value) {
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
  put(p, LOAD(ARG_LO(arg)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
  put(p, RET_ALLOW);
  put(p, RET_ERRNO(EPERM));
}

/* nr: allowed when argument 0 is `which` and argument 1 is 0 (setpriority, ioprio_set: `which`
 * names a process, and `who` 0 is the caller; a process group or a user would reach the API). */
static void only_self_by_which(struct prog *p, unsigned nr, unsigned which) {
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 6));
  put(p, LOAD(ARG_LO(0)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, which, 0, 3));
  put(p, LOAD(ARG_LO(1)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
  put(p, RET_ALLOW);
  put(p, RET_ERRNO(EPERM));
}

/* nr with argument 0 `first` and argument 1 `second`: answered `result` (0 is success, the call
 * skipped; else that errno) without running; any other call goes on to the next block. */
static void answer_pair(struct prog *p, unsigned nr, unsigned first, unsigned second, unsigned result) {
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 6));
  put(p, LOAD(ARG_LO(0)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, first, 0, 3));
  put(p, LOAD(ARG_LO(1)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, second, 0, 1));
  put(p, RET_ERRNO(result));
  put(p, LOAD(offsetof(struct seccomp_data, nr))); /* the number back in the accumulator for the blocks after */
}

/* nr: EPERM when argument `arg` has any bit of `mask`, else allowed. */
static void unless_flag(struct prog *p, unsigned nr, unsigned arg, unsigned mask) {
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
  put(p, LOAD(ARG_LO(arg)));
  put(p, JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1));
  put(p, RET_ERRNO(EPERM));
  put(p, RET_ALLOW);
}

/* TCP options refused by setsockopt(fd, IPPROTO_TCP, name, …). */
static const unsigned tcp_refused[] = {
  TCP_FASTOPEN_CONNECT, /* connect() then returns at once and the first write sends the SYN: that
                         * connect() is still checked by Landlock, but nothing an agent runs needs it */
  TCP_REPAIR,           /* a connection set up by hand, without a handshake (needs CAP_NET_ADMIN too) */
  TCP_ULP,              /* upper-layer protocols (kTLS): kernel attack surface (CVE-2023-0461); TLS libraries fall back */
};

/* ioctl requests refused to agents.
 * - TIOCSTI pushes bytes into a terminal's input as if typed, and TIOCLINUX's selection pasting
 *   does the same on a virtual console: either would let an agent type into a terminal it holds a
 *   descriptor of (its own, or one the box or another agent shares), so a command it types runs
 *   outside the agent's reach. Refused whatever dev.tty.legacy_tiocsti says.
 * - btrfs subvolume requests, which need no privilege on a subvolume one owns: an agent's own
 *   directory is a subvolume on btrfs (snapshot clones), and one made read-only (SETFLAGS) could
 *   no longer be replaced or removed by the box, while a subvolume made inside it (CREATE, SNAP_
 *   CREATE) is an empty placeholder in its snapshots' clones (the box then walks the live
 *   directory instead). Plain files and directories do everything an agent's tools need. */
static const unsigned ioctl_refused[] = {
  TIOCSTI, TIOCLINUX,
  BTRFS_IOC_SUBVOL_SETFLAGS, BTRFS_IOC_SUBVOL_CREATE, BTRFS_IOC_SUBVOL_CREATE_V2,
  BTRFS_IOC_SNAP_CREATE, BTRFS_IOC_SNAP_CREATE_V2, BTRFS_IOC_SNAP_DESTROY, BTRFS_IOC_SNAP_DESTROY_V2,
};

static void refused_ioctls(struct prog *p) {
  unsigned k = sizeof ioctl_refused / sizeof ioctl_refused[0];
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, (unsigned char)(3 + k)));
  put(p, LOAD(ARG_LO(1)));
  for (unsigned i = 0; i < k; i++) put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, ioctl_refused[i], (unsigned char)(k - i), 0));
  put(p, RET_ALLOW);
  put(p, RET_ERRNO(EPERM));
}

static void tcp_options(struct prog *p) {
  unsigned k = sizeof tcp_refused / sizeof tcp_refused[0];
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setsockopt, 0, (unsigned char)(5 + k)));
  put(p, LOAD(ARG_LO(1)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, (unsigned char)(1 + k)));
  put(p, LOAD(ARG_LO(2)));
  for (unsigned i = 0; i < k; i++) put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, tcp_refused[i], (unsigned char)(k - i), 0));
  put(p, RET_ALLOW);
  put(p, RET_ERRNO(EPERM));
}

void install_seccomp(int allow_unix, int own_ipc) {
  static struct prog prog;
  struct prog *p = &prog;
  p->n = 0;
  /* A foreign calling convention (i386 int 0x80, arm32) would number syscalls differently: kill. */
  put(p, LOAD(offsetof(struct seccomp_data, arch)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
  put(p, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  put(p, LOAD(offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
  put(p, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000U, 0, 1)); /* x32 syscalls share the arch value */
  put(p, RET_ERRNO(ENOSYS));
#endif
  /* socket(): TCP over IPv4/IPv6 only; UDP, raw, packet, netlink, SCTP and the rest are refused,
   * and so are the other protocols of SOCK_STREAM (MPTCP 262, SMC 256), which connect by paths
   * of their own. AF_UNIX: pathname sockets are not covered by Landlock before ABI 7's
   * successors, and the box's supervisord control socket lives at a path; socketpair(2)
   * (unaddressed) stays allowed. */
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 13));
  put(p, LOAD(ARG_LO(0)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1));
  put(p, allow_unix ? RET_ALLOW : RET_ERRNO(EPERM));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 7));
  put(p, LOAD(ARG_LO(1)));
  put(p, STMT(BPF_ALU | BPF_AND | BPF_K, 0xf)); /* strip SOCK_NONBLOCK / SOCK_CLOEXEC */
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 0, 4));
  put(p, LOAD(ARG_LO(2)));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 1));
  put(p, RET_ALLOW);
  put(p, RET_ERRNO(EPERM));
  /* Landlock checks TCP in connect(2) only (security_socket_connect). TCP Fast Open connects from
   * sendto/sendmsg/sendmmsg with MSG_FASTOPEN and an address, never calling it: refused, as are
   * the TCP options that open or shape connections by other means (see docs/user/sandbox.md,
   * "How the list of connection paths was established"). */
  unless_flag(p, SYS_sendto, 3, MSG_FASTOPEN);
  unless_flag(p, SYS_sendmsg, 2, MSG_FASTOPEN);
  unless_flag(p, SYS_sendmmsg, 3, MSG_FASTOPEN); /* the call's flags; the kernel ignores each message's msg_flags */
  tcp_options(p);
  refused_ioctls(p);
  /* clone/unshare: no new namespaces (a user namespace would regain capabilities). */
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
  put(p, LOAD(ARG_LO(0)));
  put(p, JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS, 0, 1));
  put(p, RET_ERRNO(EPERM));
  put(p, RET_ALLOW);
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_unshare, 0, 4));
  put(p, LOAD(ARG_LO(0)));
  put(p, JUMP(BPF_JMP | BPF_JSET | BPF_K, NS_FLAGS | NEWTIME, 0, 1));
  put(p, RET_ERRNO(EPERM));
  put(p, RET_ALLOW);
  /* clone3 passes its flags in memory a filter cannot read: ENOSYS makes libc fall back to clone. */
  put(p, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1));
  put(p, RET_ERRNO(ENOSYS));
  /* Acting on another process by its pid: only on the caller itself. */
  for (size_t i = 0; i < sizeof own_process_only / sizeof own_process_only[0]; i++) only_when(p, (unsigned)own_process_only[i], 0, 0);
  /* A process that is not dumpable keeps its /proc/<pid>/fd from its own uid: the launcher beside
   * the agent and a box of the same uid could no longer see the memory files it holds (a memfd's
   * pages are in no resident set), so it could hold memory past its budget unseen. The call is
   * answered with success and skipped, not refused: agent CLIs harden themselves with it before
   * main and exit when it fails (Codex), and what it would guard against, another process
   * reading their memory, Landlock's ptrace scoping and this filter already refuse. */
  answer_pair(p, SYS_prctl, PR_SET_DUMPABLE, 0, 0);
  only_self_by_which(p, SYS_setpriority, PRIO_PROCESS); /* PRIO_USER would renice every process of the uid */
  only_self_by_which(p, SYS_ioprio_set, IOPRIO_WHO_PROC);
  for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) refuse(p, (unsigned)denied[i]);
  for (size_t i = 0; !own_ipc && i < sizeof ipc / sizeof ipc[0]; i++) refuse(p, (unsigned)ipc[i]);
  for (size_t i = 0; i < sizeof xattr_setters / sizeof xattr_setters[0]; i++) refuse_with(p, (unsigned)xattr_setters[i], EOPNOTSUPP);
  /* Syscalls that reach here are allowed whatever their arguments: the kernel's seccomp cache
   * (5.11+) then skips the filter for them, so its length costs nothing on read, write, futex... */
  put(p, RET_ALLOW);
  struct sock_fprog fprog = {.len = (unsigned short)p->n, .filter = p->f};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) die_errno(EXIT_SETUP, "seccomp", "filter refused");
}
