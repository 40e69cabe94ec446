// What each attempt of the adversarial agent (adversarial-agent.cjs) must observe, per confinement layer: the specific refusal, or success for the controls.

/** The confinement layer agents of a box run under, as its /health `sandbox` reports it. */
export type Layer = 'landlock' | 'bubblewrap';

/** What the test tells the agent about the box (the `attack` mode's argument). */
export interface AttackConfig {
  apiKeyFile: string;
  identityKeyFile: string;
  /** A file in another agent's directory. */
  otherFile: string;
  /** A file that other agent wrote itself (so owned by its uid, where it has one). */
  otherAgentOwnFile: string;
  apiPid: number;
  /** The pid of another running agent. */
  victimPid: number;
  workspace: string;
  stateDir: string;
  /** The installation (read-only to agents). */
  installation: string;
  /** The allowed stand-in host: `http://127.0.0.1:<allowedPort>`, listed in sandbox.egress. */
  allowedUrl: string;
  allowedPort: number;
  /** A port of that host not in sandbox.egress.allow_ports. */
  closedPort: number;
  /** The operator's API port (api.port): agents are given the agents' listener instead. */
  apiPort: number;
  /** The provider's variable prefix (`<PREFIX>_BASE_URL`). */
  provider: string;
  /** A file planted in the installation after the box started (none where the installation is read-only to the test). */
  laterFile?: string;
  /** Agents run as the box's own uid (the container; a box run by a user): file metadata is then theirs to change. */
  agentsShareBoxUid: boolean;
}

/** The provider the suites configure, with the stand-in's echo behind it. */
export const PROVIDER = { name: 'standin', prefix: 'STANDIN', envVar: 'STANDIN_API_KEY', key: 'sk-standin-0123456789abcdef0123456789abcdef' } as const;

// Outside bubblewrap what is not granted is there but denied (EACCES) and other processes are
// visible but out of the agent's scope (EPERM); inside, what is not granted does not exist
// (ENOENT), other processes are outside its PID namespace (ESRCH) and the system is bound
// read-only (EROFS). Where bubblewrap can bind only the box's own /proc (`proc: "ro-bind"`, in a
// container with the namespaces exception) the API's pid is listed, so its environ is EACCES.
const hidden = (layer: Layer) => (layer === 'landlock' ? 'EACCES' : 'ENOENT');
const foreign = (layer: Layer) => (layer === 'landlock' ? 'EPERM' : 'ESRCH');
// On a read-only root (the container; bubblewrap's read-only binds) the kernel answers EROFS before Landlock is asked.
const readOnly = (layer: Layer, readOnlyRoot: boolean) => (layer === 'landlock' && !readOnlyRoot ? 'EACCES' : 'EROFS');

/**
 * Each refused attempt: what it tries and the outcomes that count as the refusal, for `layer`
 * and a box whose root file system is read-only (`readOnlyRoot`) or not.
 * Anything else — `ok` above all — fails the suite.
 */
export function refusals(layer: Layer, readOnlyRoot: boolean, shareUid = false): Record<string, { what: string; refused: readonly string[] }> {
  return {
    readApiKey: { what: "read the box's API key", refused: [hidden(layer)] },
    readIdentityKey: { what: "read the box's identity key", refused: [hidden(layer)] },
    readOtherAgent: { what: "read a file in another agent's directory", refused: [hidden(layer)] },
    readApiEnviron: { what: 'read /proc/<api pid>/environ', refused: layer === 'landlock' ? ['EACCES'] : ['ENOENT', 'EACCES'] },
    signalApi: { what: 'signal the API', refused: [foreign(layer)] },
    signalOtherAgent: { what: 'SIGKILL another agent', refused: [foreign(layer)] },
    proxyUnlistedHost: { what: 'GET an unlisted host through the proxy', refused: ['403 domain-not-listed'] },
    proxyUnlistedConnect: { what: 'CONNECT to an unlisted host through the proxy', refused: ['403 domain-not-listed'] },
    proxyUnlistedPort: { what: 'reach the listed host on an unlisted port through the proxy', refused: ['403 port-not-listed'] },
    proxyNoCredential: { what: 'use the proxy without its credential', refused: ['407 no-credential'] },
    tcpDirect: { what: 'connect to the allowed host directly, around the proxy', refused: ['EACCES'] },
    udpSend: { what: 'send a UDP datagram', refused: ['EPERM'] },
    dnsResolve: { what: 'resolve a name over DNS (c-ares, UDP)', refused: ['ECONNREFUSED'] },
    dnsLookup: { what: 'resolve a name with getaddrinfo', refused: ['EAI_AGAIN'] },
    // The agents' listener answers nothing without an agent token, whatever else is sent.
    apiNoToken: { what: 'call the API without a token', refused: ['403 ABX_ERR_AGENT_LISTENER'] },
    apiOperatorRoute: { what: "list every agent with its own token (the operator's route)", refused: ['403 ABX_ERR_AGENT_SCOPE'] },
    apiWidenEgress: { what: 'widen its own egress allowlist with its token', refused: ['403 ABX_ERR_AGENT_SCOPE'] },
    apiOperatorKeyGuess: { what: 'call the API with a guessed operator key', refused: ['403 ABX_ERR_AGENT_LISTENER'] },
    signInFlood: { what: "try 40 dashboard sign-ins (past the operator's 30 a minute) at the API it is given", refused: ['403 ABX_ERR_AGENT_LISTENER'] },
    // Landlock inside bubblewrap too (the launcher runs there); nothing listens on that port in the agent's own network namespace either.
    apiOperatorPort: { what: "connect to the operator's API port", refused: layer === 'landlock' ? ['EACCES'] : ['EACCES', 'ECONNREFUSED'] },
    raiseLimit: { what: 'lift its hard memory (data) limit', refused: ['EPERM'] },
    writeWorkspaceRoot: { what: 'write in the workspace root', refused: ['EACCES'] },
    writeStateDir: { what: 'write in the state directory', refused: [hidden(layer)] },
    writeInstallation: { what: 'write in the installation', refused: [readOnly(layer, readOnlyRoot)] },
    readLaterFile: { what: 'read a file that appeared in the installation after the box started', refused: readOnlyRoot ? ['skipped'] : [hidden(layer)] },
    // The container's image has no /etc/shadow at all.
    readShadow: { what: 'read /etc/shadow', refused: readOnlyRoot ? ['ENOENT', 'EACCES'] : ['EACCES'] },
    // Where agents share the box's uid (the container) this is the documented gap: skipped here.
    chmodApiKey: { what: "change the mode of the box's API key", refused: shareUid ? ['skipped'] : layer === 'landlock' ? ['EACCES'] : ['ENOENT'] },
    utimeApiKey: { what: "change the times of the box's API key", refused: shareUid ? ['skipped'] : layer === 'landlock' ? ['EACCES'] : ['ENOENT'] },
    // A root box runs each agent name as a uid of its own: metadata and inotify of another agent's files are the kernel's to refuse.
    // Its directory is closed to every other uid: the path does not even resolve (EACCES, not EPERM).
    chmodOtherAgent: {
      what: 'change the mode of a file another agent wrote',
      refused: shareUid ? ['skipped'] : layer === 'landlock' ? ['EACCES'] : ['ENOENT'],
    },
    utimeOtherAgent: {
      what: 'change the times of a file another agent wrote',
      refused: shareUid ? ['skipped'] : layer === 'landlock' ? ['EACCES'] : ['ENOENT'],
    },
    watchOtherAgent: { what: "watch another agent's directory with inotify", refused: shareUid ? ['skipped'] : layer === 'landlock' ? ['EACCES'] : ['ENOENT'] },
    writeEtc: { what: 'write in /etc', refused: [readOnly(layer, readOnlyRoot)] },
    // The launcher's seccomp filter, the same in both layers: it answers before the kernel looks the pid up.
    tcpFastOpen: { what: 'open a TCP connection with sendto(MSG_FASTOPEN) to a port Landlock denies', refused: ['EPERM'] },
    tcpFastOpenSendmsg: { what: 'the same with sendmsg(MSG_FASTOPEN)', refused: ['EPERM'] },
    tcpFastOpenSendmmsg: { what: 'the same with sendmmsg(MSG_FASTOPEN)', refused: ['EPERM'] },
    tcpFastOpenConnectOption: { what: 'set TCP_FASTOPEN_CONNECT', refused: ['EPERM'] },
    tcpSendtoAddress: { what: 'send to an address on an unconnected TCP socket without MSG_FASTOPEN (the kernel ignores the address)', refused: ['EPIPE'] },
    mptcpSocket: { what: 'open an MPTCP socket', refused: ['EPERM'] },
    prlimitApi: { what: "read the API's rlimits with prlimit64 (the attack then set them)", refused: ['EPERM'] },
    prlimitOtherAgent: { what: "read another agent's rlimits with prlimit64", refused: ['EPERM'] },
    setpriorityUser: { what: 'setpriority(PRIO_USER): renice every process of a uid', refused: ['EPERM'] },
    robustListApi: { what: "read the API's robust futex list address", refused: ['EPERM'] },
    movePagesApi: { what: 'move_pages on the API', refused: ['EPERM'] },
    kcmpApi: { what: "kcmp against the API's files", refused: ['EPERM'] },
    // Before the kernel looks the path up: without the filter these answer ENOENT (EBADF for the descriptor).
    setxattr: { what: 'set an extended attribute (setxattr): bytes btrfs keeps where the disk budget does not look', refused: ['EOPNOTSUPP'] },
    lsetxattr: { what: 'the same with lsetxattr', refused: ['EOPNOTSUPP'] },
    fsetxattr: { what: 'the same with fsetxattr', refused: ['EOPNOTSUPP'] },
    setxattrat: { what: 'the same with setxattrat (Linux 6.13)', refused: ['EOPNOTSUPP'] },
    // Outside bubblewrap the IPC namespace is the box's: refused. Inside, it is the agent's own
    // (no channel to anyone), so SysV IPC works there (a PostgreSQL server needs it); a POSIX
    // queue is created there and Landlock then refuses to open it.
    sysvShm: { what: "create a SysV shared memory segment (in the box's IPC namespace)", refused: layer === 'landlock' ? ['EPERM'] : ['ok'] },
    sysvMsg: { what: "create a SysV message queue (in the box's IPC namespace)", refused: layer === 'landlock' ? ['EPERM'] : ['ok'] },
    sysvSem: { what: "create a SysV semaphore set (in the box's IPC namespace)", refused: layer === 'landlock' ? ['EPERM'] : ['ok'] },
    posixMqueue: { what: "create a POSIX message queue (in the box's IPC namespace)", refused: layer === 'landlock' ? ['EPERM'] : ['created'] },
    // Its /proc/<pid>/fd would be closed to its own uid: the launcher beside it could no longer count the memfds it holds.
    // Answered as done (agent CLIs such as Codex exit when it fails), but the process stays dumpable.
    undumpable: { what: 'make itself undumpable (prctl PR_SET_DUMPABLE 0), hiding the memory files it holds', refused: ['still-dumpable'] },
    // fanotify groups are a count of the uid's (128), shared with the box and across user namespaces.
    fanotify: { what: 'open a fanotify group (fanotify_init), a count the kernel keeps per uid', refused: ['EPERM'] },
    // These read a value first (allowed): outside the agent's PID namespace that read answers ESRCH.
    setpriorityApi: { what: 'renice the API (to its own value)', refused: [foreign(layer)] },
    schedSetaffinityApi: { what: "set the API's CPU affinity (to its own mask)", refused: [foreign(layer)] },
    schedSetschedulerApi: { what: "set the API's scheduling policy (to its own)", refused: [foreign(layer)] },
    ioprioApi: { what: "set the API's I/O priority (to its own)", refused: [foreign(layer)] },
    setpriorityOtherAgent: { what: 'renice another agent (to its own value)', refused: [foreign(layer)] },
    schedSetaffinityOtherAgent: { what: "set another agent's CPU affinity (to its own mask)", refused: [foreign(layer)] },
    schedSetschedulerOtherAgent: { what: "set another agent's scheduling policy (to its own)", refused: [foreign(layer)] },
    ioprioOtherAgent: { what: "set another agent's I/O priority (to its own)", refused: [foreign(layer)] },
    // Landlock's signal scoping, whatever the syscall (signal 0: the permission check alone).
    sigqueueApi: { what: 'rt_sigqueueinfo to the API', refused: [foreign(layer)] },
    tgkillApi: { what: 'tgkill to the API', refused: [foreign(layer)] },
    pidfdSignalApi: { what: 'pidfd_send_signal to the API', refused: [foreign(layer)] },
  };
}

/** The controls: what the agent may do, so that each refusal above is the policy and not a broken agent. */
export function allowed(): Record<string, { what: string; outcome: string }> {
  return {
    writeOwn: { what: 'write in its own directory', outcome: 'ok' },
    prlimitSelf: { what: 'read and set its own rlimit with prlimit64(0, …)', outcome: 'ok' },
    setprioritySelf: { what: 'renice itself (to its own value)', outcome: 'ok' },
    dumpableAgain: { what: 'set itself dumpable (as it already is: prctl PR_SET_DUMPABLE 1)', outcome: 'ok' },
    apiOwnRecord: { what: 'read its own record with its token', outcome: '200' },
    proxyAllowed: { what: 'GET the listed host through the proxy', outcome: '200' },
    providerBroker: { what: 'call the provider through the broker with its token', outcome: `200 /v1/messages ${PROVIDER.key}` },
  };
}
