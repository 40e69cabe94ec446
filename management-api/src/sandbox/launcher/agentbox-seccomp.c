/* agentbox-seccomp.c: the seccomp filter the launcher (and its forwarder) installs on itself before exec. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stddef.h>
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

void install_seccomp(int allow_unix) {
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

