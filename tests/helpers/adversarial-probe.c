/* adversarial-probe.c: the syscalls the adversarial agent (adversarial-agent.cjs) cannot issue from
 * Node, one per subcommand; prints one word, `ok` or the errno's name (EPERM, ESRCH...), and exits 0.
 * Built static by the suites (adversarial-suite.ts) so that it runs in any box, container included.
 * Every attempt on another process is made harmless should it succeed: it reads a value and, where
 * it sets one, sets that same value back, so a box whose filter lets it through is not damaged. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#define IOPRIO_WHO_PROCESS 1
#define IPPROTO_MPTCP_ 262

static int outcome(long r) {
  puts(r < 0 ? strerrorname_np(errno) : "ok");
  return 0;
}

static struct sockaddr_in loopback(const char *port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  return a;
}

static int tcp_socket(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) exit(outcome(-1));
  return fd;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: adversarial-probe COMMAND [ARG]\n");
    return 64;
  }
  const char *cmd = argv[1], *arg = argc > 2 ? argv[2] : "0";
  pid_t pid = (pid_t)atoi(arg);
  char data[] = "x";
  struct iovec iov = {.iov_base = data, .iov_len = 1};

  /* TCP connections opened without connect(2): Fast Open carries the address in the send call. */
  if (strcmp(cmd, "fastopen") == 0) {
    struct sockaddr_in a = loopback(arg);
    return outcome(sendto(tcp_socket(), data, 1, MSG_FASTOPEN | MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a));
  }
  if (strcmp(cmd, "fastopen-sendmsg") == 0 || strcmp(cmd, "fastopen-sendmmsg") == 0) {
    struct sockaddr_in a = loopback(arg);
    struct mmsghdr m = {.msg_hdr = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &iov, .msg_iovlen = 1}};
    int fd = tcp_socket();
    if (strcmp(cmd, "fastopen-sendmsg") == 0) return outcome(sendmsg(fd, &m.msg_hdr, MSG_FASTOPEN | MSG_NOSIGNAL));
    return outcome(sendmmsg(fd, &m, 1, MSG_FASTOPEN | MSG_NOSIGNAL));
  }
  if (strcmp(cmd, "fastopen-connect-opt") == 0) { /* the option, then connect(2) to the port */
    int fd = tcp_socket(), one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one) != 0) return outcome(-1);
    struct sockaddr_in a = loopback(arg);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) return outcome(-1);
    return outcome(send(fd, data, 1, MSG_NOSIGNAL));
  }
  if (strcmp(cmd, "sendto-address") == 0) { /* an address without MSG_FASTOPEN: TCP ignores it (EPIPE, not connected) */
    struct sockaddr_in a = loopback(arg);
    return outcome(sendto(tcp_socket(), data, 1, MSG_NOSIGNAL, (struct sockaddr *)&a, sizeof a));
  }
  if (strcmp(cmd, "mptcp") == 0) return outcome(socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP_));

  /* Another process by its pid (get, then set the same value back). */
  if (strcmp(cmd, "prlimit") == 0) {
    struct rlimit old;
    return outcome(prlimit(pid, RLIMIT_CORE, NULL, &old));
  }
  if (strcmp(cmd, "setpriority") == 0) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)pid);
    if (nice == -1 && errno) return outcome(-1);
    return outcome(setpriority(PRIO_PROCESS, (id_t)pid, nice));
  }
  if (strcmp(cmd, "setpriority-user") == 0) {
    /* PRIO_USER reaches every process of a uid; a uid with no process makes it harmless (ESRCH when allowed). */
    return outcome(setpriority(PRIO_USER, 4000000000U, 19));
  }
  if (strcmp(cmd, "sched-setaffinity") == 0) {
    cpu_set_t set;
    if (sched_getaffinity(pid, sizeof set, &set) != 0) return outcome(-1);
    return outcome(sched_setaffinity(pid, sizeof set, &set));
  }
  if (strcmp(cmd, "sched-setscheduler") == 0) {
    struct sched_param p;
    int policy = sched_getscheduler(pid);
    if (policy < 0 || sched_getparam(pid, &p) != 0) return outcome(-1);
    return outcome(sched_setscheduler(pid, policy, &p));
  }
  if (strcmp(cmd, "ioprio") == 0) {
    long prio = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, pid);
    if (prio < 0) return outcome(-1);
    return outcome(syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, pid, prio));
  }
  if (strcmp(cmd, "get-robust-list") == 0) {
    void *head;
    size_t len;
    return outcome(syscall(SYS_get_robust_list, pid, &head, &len));
  }
  if (strcmp(cmd, "move-pages") == 0) { /* no pages: the permission check alone */
    return outcome(syscall(SYS_move_pages, pid, 0UL, NULL, NULL, NULL, 0));
  }
  if (strcmp(cmd, "kcmp") == 0) return outcome(syscall(SYS_kcmp, getpid(), pid, 0 /* KCMP_FILE */, 0, 0));

  /* Setting an extended attribute, by each syscall: on a path or descriptor that does not exist, so
   * the filter's EOPNOTSUPP (it answers before the kernel looks) is told apart from the kernel's own
   * ENOENT or EBADF (and ENOSYS: a kernel before setxattrat). */
  if (strcmp(cmd, "setxattr") == 0) return outcome(setxattr("/nonexistent-agentbox-probe", "user.probe", data, 1, 0));
  if (strcmp(cmd, "lsetxattr") == 0) return outcome(lsetxattr("/nonexistent-agentbox-probe", "user.probe", data, 1, 0));
  if (strcmp(cmd, "fsetxattr") == 0) return outcome(fsetxattr(-1, "user.probe", data, 1, 0));
  if (strcmp(cmd, "setxattrat") == 0) {
    struct { uint64_t value; uint32_t size, flags; } args = {.value = (uintptr_t)data, .size = 1};
    return outcome(syscall(463 /* setxattrat */, AT_FDCWD, "/nonexistent-agentbox-probe", 0, "user.probe", &args, sizeof args));
  }

  /* Signals by other syscalls than kill(2): signal 0, the permission check alone. */
  if (strcmp(cmd, "sigqueue") == 0) {
    siginfo_t info = {.si_signo = 0, .si_code = SI_QUEUE};
    return outcome(syscall(SYS_rt_sigqueueinfo, pid, 0, &info));
  }
  if (strcmp(cmd, "tgkill") == 0) return outcome(syscall(SYS_tgkill, pid, pid, 0));
  if (strcmp(cmd, "pidfd-signal") == 0) {
    long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) return outcome(-1);
    return outcome(syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0));
  }

  /* SysV IPC and POSIX message queues: a private object, removed at once when created. */
  if (strcmp(cmd, "sysv-shm") == 0) {
    int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    if (id >= 0) shmctl(id, IPC_RMID, NULL);
    return outcome(id);
  }
  if (strcmp(cmd, "sysv-msg") == 0) {
    int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    if (id >= 0) msgctl(id, IPC_RMID, NULL);
    return outcome(id);
  }
  if (strcmp(cmd, "sysv-sem") == 0) {
    int id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    if (id >= 0) semctl(id, 0, IPC_RMID);
    return outcome(id);
  }
  if (strcmp(cmd, "mq-open") == 0) {
    char name[64];
    snprintf(name, sizeof name, "/agentbox-probe-%d", (int)getpid());
    mqd_t q = mq_open(name, O_CREAT | O_RDWR, 0600, NULL);
    int err = errno;
    /* Landlock refuses to open the queue (EACCES) only once the kernel has created it: `created`. */
    if (mq_unlink(name) == 0 && q == (mqd_t)-1) return puts("created"), 0;
    errno = err;
    return outcome(q == (mqd_t)-1 ? -1 : 0);
  }

  /* Hiding from the box: a process that is not dumpable keeps its descriptors (the memory files it holds) from its own uid. */
  if (strcmp(cmd, "undumpable") == 0) {
    /* Answered as done (agent CLIs exit when it fails), yet the process stays dumpable. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return outcome(-1);
    puts(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1 ? "still-dumpable" : "undumpable");
    return 0;
  }
  /* A kernel count of the uid's, shared with the box: unprivileged since Linux 5.13 with FAN_REPORT_FID. */
  if (strcmp(cmd, "fanotify") == 0) return outcome(syscall(SYS_fanotify_init, 0x00000200U /* FAN_REPORT_FID */, O_RDONLY));
  if (strcmp(cmd, "dumpable-again") == 0) return outcome(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));

  /* Controls: the same calls on the caller itself stay allowed. */
  if (strcmp(cmd, "prlimit-self") == 0) {
    struct rlimit old;
    if (prlimit(0, RLIMIT_CORE, NULL, &old) != 0) return outcome(-1);
    return outcome(setrlimit(RLIMIT_CORE, &old));
  }
  if (strcmp(cmd, "setpriority-self") == 0) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, 0);
    if (nice == -1 && errno) return outcome(-1);
    return outcome(setpriority(PRIO_PROCESS, 0, nice));
  }
  fprintf(stderr, "adversarial-probe: unknown command %s\n", cmd);
  return 64;
}
