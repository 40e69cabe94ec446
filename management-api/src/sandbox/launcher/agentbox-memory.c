/* agentbox-memory.c: the memory backstop, the resident memory of every process of an agent.
 *
 * The box judges an agent's memory by PSS, sampled once a second from the API; RLIMIT_DATA holds
 * one process, not a tree. Between two samples an agent of many processes could allocate gigabytes.
 * The launcher that stays beside the agent (the keeper without bubblewrap, the waiting parent in
 * it) walks the agent's processes and sums their resident set, which is at least their PSS (shared
 * pages count in each process), from statm, which the kernel serves without the process's memory
 * lock (an agent holding that lock delays a PSS read, never this one), plus the memory files
 * (memfd) they hold open and, in bubblewrap, the SysV shared memory of the agent's own IPC
 * namespace: memory that no resident set shows until it is mapped. It looks again after the
 * time the agent would need to cross the line at FASTEST_BYTES_PER_MS, at least every
 * MIN_INTERVAL_MS and at most every MAX_INTERVAL_MS: far below its budget an agent costs a few
 * reads a second, near it a read every few milliseconds. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

/* Faster than any allocation these machines can fault in (two cores: about 4 GiB/s each). */
#define FASTEST_BYTES_PER_MS (8ULL << 20)
enum { MIN_INTERVAL_MS = 2, MAX_INTERVAL_MS = 250, MAX_PROCESSES = 4096 };

/* Read a small /proc file into buf; the length read, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, size - 1);
  close(fd);
  if (n >= 0) buf[n] = 0;
  return n;
}

/* Append the children of every thread of `pid` to `out` (up to MAX_PROCESSES). */
static int add_children(pid_t pid, pid_t *out, int n) {
  char path[64], buf[4096];
  snprintf(path, sizeof path, "/proc/%d/task", pid);
  DIR *tasks = opendir(path);
  if (!tasks) return n;
  struct dirent *task;
  while ((task = readdir(tasks)) && n < MAX_PROCESSES) {
    if (task->d_name[0] == '.') continue;
    snprintf(path, sizeof path, "/proc/%d/task/%.16s/children", pid, task->d_name);
    if (read_small(path, buf, sizeof buf) <= 0) continue;
    for (char *p = buf, *end; *p && n < MAX_PROCESSES; p = end) {
      long child = strtol(p, &end, 10);
      if (end == p) break;
      out[n++] = (pid_t)child;
    }
  }
  closedir(tasks);
  return n;
}

/* Memory files (memfd) seen during one look, by inode (they all live on the kernel's internal
 * shmem mount): each counts once however many descriptors and processes hold it. Open addressing;
 * a slot is free unless it holds this look's generation, so nothing is cleared between looks. */
enum { MEMFD_SLOTS = 8192 };
static struct { unsigned long long ino; unsigned generation; } memfds[MEMFD_SLOTS];
static unsigned generation;

/* True the first time `ino` is seen in this look (and always once the table is full: counted again, never missed). */
static int first_sighting(unsigned long long ino) {
  for (unsigned i = (unsigned)(ino * 0x9E3779B97F4A7C15ULL >> 51) % MEMFD_SLOTS, probes = 0; probes < MEMFD_SLOTS; i = (i + 1) % MEMFD_SLOTS, probes++) {
    if (memfds[i].generation != generation) {
      memfds[i].ino = ino;
      memfds[i].generation = generation;
      return 1;
    }
    if (memfds[i].ino == ino) return 0;
  }
  return 1;
}

/* The bytes of the memory files `pid` holds open that this look has not counted yet. A memfd's
 * pages are memory that no resident set shows until they are mapped: an agent writing gigabytes
 * into one would keep its statm at a few MiB. Pages it maps count in its resident set as well:
 * shared memory held open and mapped (a browser's) counts twice, on the safe side. */
static unsigned long long memfd_bytes(pid_t pid) {
  char path[48], target[64];
  snprintf(path, sizeof path, "/proc/%d/fd", pid);
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  DIR *fds = fdopendir(dir);
  if (!fds) {
    close(dir);
    return 0;
  }
  unsigned long long total = 0;
  struct dirent *fd;
  while ((fd = readdir(fds))) {
    if (fd->d_name[0] == '.') continue;
    ssize_t n = readlinkat(dir, fd->d_name, target, sizeof target - 1);
    if (n < 7 || memcmp(target, "/memfd:", 7) != 0) continue;
    struct stat st;
    if (fstatat(dir, fd->d_name, &st, 0) == 0 && S_ISREG(st.st_mode) && first_sighting((unsigned long long)st.st_ino)) total += (unsigned long long)st.st_blocks * 512;
  }
  closedir(fds);
  return total;
}

/* The resident bytes of every descendant of `root` (a pid as this /proc shows it), and the memory files they hold. */
static unsigned long long resident_below(pid_t root) {
  static pid_t pids[MAX_PROCESSES];
  static long page;
  if (!page) page = sysconf(_SC_PAGESIZE);
  generation = generation + 1 ? generation + 1 : 1;
  int n = add_children(root, pids, 0);
  unsigned long long total = 0;
  char path[48], buf[128];
  /* Breadth first: each process's children are appended behind it. */
  for (int i = 0; i < n; i++) {
    n = add_children(pids[i], pids, n);
    snprintf(path, sizeof path, "/proc/%d/statm", pids[i]);
    unsigned long long size, resident;
    if (read_small(path, buf, sizeof buf) > 0 && sscanf(buf, "%llu %llu", &size, &resident) == 2) total += resident * (unsigned long long)page;
    total += memfd_bytes(pids[i]);
  }
  return total;
}

unsigned long long kept_resident_bytes(void) {
  return resident_below(getpid());
}

pid_t sandbox_init_pid(void) {
  /* /proc/self is this process as the mounted /proc numbers it: bubblewrap's own procfs of the PID
   * namespace, or the outer one bound read-only (under Docker), where the pids are the outer ones. */
  char buf[512];
  if (read_small("/proc/self/stat", buf, sizeof buf) <= 0) return 0;
  /* pid (comm) state ppid …: comm may hold spaces and parentheses, so from its last ')'. */
  const char *end = strrchr(buf, ')');
  char state;
  int ppid;
  return end && sscanf(end + 1, " %c %d", &state, &ppid) == 2 ? (pid_t)ppid : 0;
}

/* The resident bytes of the SysV shared memory segments of this IPC namespace (bubblewrap gives
 * the agent one of its own, where SysV IPC is allowed): a segment filled and detached stays, in no
 * process's resident set. /proc/sysvipc/shm lists the reader's namespace; its 15th column is rss. */
static unsigned long long sysv_shm_bytes(void) {
  FILE *f = fopen("/proc/sysvipc/shm", "re");
  if (!f) return 0;
  char line[512];
  unsigned long long total = 0;
  if (fgets(line, sizeof line, f)) { /* the header */
    while (fgets(line, sizeof line, f)) {
      unsigned long long rss = 0;
      char *field = line, *end;
      for (int column = 1; column <= 15; column++) {
        rss = strtoull(field, &end, 10);
        if (end == field) break;
        field = end;
      }
      total += rss;
    }
  }
  fclose(f);
  return total;
}

unsigned long long sandbox_resident_bytes(pid_t init) {
  return (init > 0 ? resident_below(init) : 0) + sysv_shm_bytes();
}

int next_memory_look_ms(unsigned long long used, unsigned long long limit) {
  if (used >= limit) return MIN_INTERVAL_MS;
  unsigned long long ms = (limit - used) / FASTEST_BYTES_PER_MS;
  return ms < MIN_INTERVAL_MS ? MIN_INTERVAL_MS : ms > MAX_INTERVAL_MS ? MAX_INTERVAL_MS : (int)ms;
}
