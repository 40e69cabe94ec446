/* agentbox-sandbox --subvolume OP PATH…: the btrfs subvolume operations snapshots use for clones.
 *
 *   create DIR               make DIR a new, empty subvolume (an agent's own directory)
 *   snapshot SRC DST         DST becomes a writable snapshot of subvolume SRC (a fork or restore)
 *   snapshot-ro SRC DST      the same, read-only (a snapshot's clone, kept in the store)
 *   delete DIR               remove subvolume DIR: made writable, then destroyed; exit 75 when the
 *                            kernel refuses an unprivileged destroy (no user_subvol_rm_allowed):
 *                            the caller then removes its entries and DIR itself, as rmdir allows
 *
 * A btrfs snapshot shares every byte with its source until either writes, so a fork of a
 * workspace of any size costs about the same as making one directory. These are ioctls, which
 * Node cannot issue; the owner of a subvolume needs no privilege for any of them but an
 * unprivileged destroy. Exit codes: 0 done, 64 usage, 75 destroy refused, 123 the kernel refused
 * (EXDEV: another filesystem; ENOTTY or EINVAL: not btrfs or not a subvolume), with the reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/btrfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "agentbox-sandbox.h"

enum { EXIT_DESTROY_REFUSED = 75 };

/* The directory holding `path`, open, and `path`'s last name in `name`. */
static int open_parent(const char *path, char *name, size_t size) {
  char *copy = strdup(path), *copy2 = strdup(path);
  if (!copy || !copy2) die(EXIT_SETUP, "out of memory");
  const char *base = basename(copy);
  if (strlen(base) >= size || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strcmp(base, "/") == 0) die(EXIT_USAGE, "--subvolume: a path must end in a plain name");
  strcpy(name, base);
  int fd = open(dirname(copy2), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) die_errno(EXIT_SETUP, "cannot open the directory of", path);
  free(copy);
  free(copy2);
  return fd;
}

/* A directory, not followed through a link; `/proc/self/fd/N` is the one the box passed open (a
 * link that names the descriptor's own directory, so it is followed). */
static int open_dir(const char *path) {
  int nofollow = strncmp(path, "/proc/self/fd/", 14) == 0 ? 0 : O_NOFOLLOW;
  int fd = open(path, O_RDONLY | O_DIRECTORY | nofollow | O_CLOEXEC);
  if (fd < 0) die_errno(EXIT_SETUP, "cannot open", path);
  return fd;
}

static int create(const char *dir) {
  struct btrfs_ioctl_vol_args args;
  memset(&args, 0, sizeof args);
  int parent = open_parent(dir, args.name, sizeof args.name);
  if (ioctl(parent, BTRFS_IOC_SUBVOL_CREATE, &args) != 0) die_errno(EXIT_SETUP, "cannot make a subvolume at", dir);
  return 0;
}

static int snapshot(const char *src, const char *dst, int readonly) {
  struct btrfs_ioctl_vol_args_v2 args;
  memset(&args, 0, sizeof args);
  args.fd = open_dir(src);
  args.flags = readonly ? BTRFS_SUBVOL_RDONLY : 0;
  int parent = open_parent(dst, args.name, sizeof args.name);
  if (ioctl(parent, BTRFS_IOC_SNAP_CREATE_V2, &args) != 0) die_errno(EXIT_SETUP, "cannot snapshot", src);
  return 0;
}

static int destroy(const char *dir) {
  int fd = open_dir(dir);
  uint64_t flags = 0;
  if (ioctl(fd, BTRFS_IOC_SUBVOL_GETFLAGS, &flags) != 0) die_errno(EXIT_SETUP, "not a subvolume:", dir);
  if (flags & BTRFS_SUBVOL_RDONLY) {
    flags &= ~(uint64_t)BTRFS_SUBVOL_RDONLY;
    if (ioctl(fd, BTRFS_IOC_SUBVOL_SETFLAGS, &flags) != 0) die_errno(EXIT_SETUP, "cannot make writable", dir);
  }
  close(fd);
  struct btrfs_ioctl_vol_args args;
  memset(&args, 0, sizeof args);
  int parent = open_parent(dir, args.name, sizeof args.name);
  if (ioctl(parent, BTRFS_IOC_SNAP_DESTROY, &args) == 0) return 0;
  if (errno == EPERM || errno == EACCES) return EXIT_DESTROY_REFUSED;
  die_errno(EXIT_SETUP, "cannot remove the subvolume", dir);
  return EXIT_SETUP;
}

int run_subvolume(char **args) {
  const char *op = args[0];
  if (op && args[1] && !args[2] && strcmp(op, "create") == 0) return create(args[1]);
  if (op && args[1] && !args[2] && strcmp(op, "delete") == 0) return destroy(args[1]);
  if (op && args[1] && args[2] && !args[3] && strcmp(op, "snapshot") == 0) return snapshot(args[1], args[2], 0);
  if (op && args[1] && args[2] && !args[3] && strcmp(op, "snapshot-ro") == 0) return snapshot(args[1], args[2], 1);
  die(EXIT_USAGE, "usage: --subvolume create DIR | snapshot SRC DST | snapshot-ro SRC DST | delete DIR");
  return EXIT_USAGE;
}
