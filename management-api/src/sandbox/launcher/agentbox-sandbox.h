/* agentbox-sandbox.h: what the launcher's two files share: the Landlock UAPI, exit codes, helpers. */
#ifndef AGENTBOX_SANDBOX_H
#define AGENTBOX_SANDBOX_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

/* One `--forward PORT=SOCKET`: a TCP port on 127.0.0.1 inside the agent's network namespace and
 * the unix socket (bound into the sandbox) its connections are passed to. */
struct forward { unsigned port; const char *socket; };

void die(int code, const char *what);
void die_errno(int code, const char *what, const char *arg);
uint64_t fs_handled(int abi);
/* The filter (agentbox-seccomp.c); `own_ipc`: the process has an IPC namespace of its own (bubblewrap). */
void install_seccomp(int allow_unix, int own_ipc);
/* `--transparent PORT` … and `--transparent-via SOCKET`: connections to the names the forwarder
 * resolves, on these ports, become CONNECT name:port to the egress proxy at `via`. */
struct transparent { const unsigned *ports; int n; const char *via; };

/* Fork the forwarder (agentbox-forward.c); returns the descriptor await_forwarder reads its word from. */
int start_forwarder(const struct forward *forwards, int n, const struct transparent *transparent, int abi);
/* Drop every capability for good (agentbox-sandbox.c): the forwarder, after binding its ports, and the launcher. */
void drop_capabilities(void);
/* The forwarder's name service (agentbox-names.c). */
void names_init(void);
size_t names_answer(const unsigned char *query, size_t len, unsigned char *answer);
const char *names_lookup(unsigned address);
int names_connect_head(char *out, size_t size, const char *name, unsigned port);
/* Returns once the forwarder listens on every port and is confined; exits when it failed to. */
void await_forwarder(int status);

/* The descriptor --wrap hands bubblewrap for the status record, and the launcher inside is told
 * with --status-fd (namespace-sandbox.ts passes the same number): fd 3 is the box's ready pipe. */
enum { WRAP_STATUS_FD = 4 };

/* `--wrap -- COMMAND…` (agentbox-wrap.c): run bubblewrap so that the agent's end reads as a plain spawn's. */
int run_wrapped(char **command);
/* agentbox-parent-death.c: exec command with SIGTERM as its parent-death signal. */
int run_with_parent_death(char **command, pid_t parent);
/* agentbox-subvolume.c: `--subvolume OP PATH…`, the btrfs subvolume operations of snapshot clones. */
int run_subvolume(char **args);
/* Die of `sig` (agentbox-wrap.c): its default disposition, unblocked, raised; returns when that does not end the process. */
void die_of(int sig);
/* `--status-fd N` (agentbox-wrap.c): run the agent as a child in a domain nested in `ruleset`'s,
 * write its wait status to N, end as it did; with `memory_limit` (0: none) kill every process of the
 * sandbox once their resident memory passes it, saying so on `ready_fd`. */
void run_as_parent(char **command, int status_fd, int ready_fd, int ruleset, unsigned long long memory_limit) __attribute__((noreturn));
/* `--keep` (agentbox-keeper.c): run the agent as a child in a domain nested in `ruleset`'s, keep
 * every process it starts, end them all with it, and all of them at once when their resident
 * memory passes `memory_limit` (0: no limit); never returns. */
void run_keeper(char **command, int ruleset, int ready_fd, unsigned long long memory_limit) __attribute__((noreturn));
/* agentbox-memory.c: the resident bytes of every process the keeper keeps (its descendants), and
 * how long it may wait before it looks again at `used` of `limit`. */
unsigned long long kept_resident_bytes(void);
/* In bubblewrap: the PID namespace's init (this process's parent, as the mounted /proc numbers it;
 * 0 when unreadable), and the resident bytes of every process below it (the agent's, orphans
 * included: they are re-parented to that init). */
pid_t sandbox_init_pid(void);
unsigned long long sandbox_resident_bytes(pid_t init);
int next_memory_look_ms(unsigned long long used, unsigned long long limit);
/* What a plain spawn starts with (agentbox-sandbox.c): default dispositions, an empty mask; only fds 0-2. */
void reset_signals(void);
/* agentbox-tty.c: `--tty FD COLSxROWS` takes the terminal whose master is FD as stdio and controlling terminal. */
void take_terminal(const char *fd_text, const char *size);
/* Make the caller's process group the terminal's foreground group (job control signals go to it). */
void become_foreground(void);
extern int on_terminal;
void close_extra_fds(void);
/* Every descriptor above 2 but `keep` closed (agentbox-sandbox.c). */
void close_except(int keep);

#endif
