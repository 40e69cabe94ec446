// generated from the API's OpenAPI document (each route's schemas) by `npm run generate` — do not edit

/** Every error code the API answers with, as `{error: code, message}` (docs/errors.md). */
export type ErrorCode =
  | "ABX_ERR_AUTH_REQUIRED"
  | "ABX_ERR_AUTH_INVALID"
  | "ABX_ERR_AGENT_SCOPE"
  | "ABX_ERR_AGENT_LISTENER"
  | "ABX_ERR_CSRF"
  | "ABX_ERR_VALIDATION"
  | "ABX_ERR_MALFORMED_BODY"
  | "ABX_ERR_BAD_REQUEST"
  | "ABX_ERR_BODY_TOO_LARGE"
  | "ABX_ERR_UNSUPPORTED_MEDIA_TYPE"
  | "ABX_ERR_NOT_FOUND"
  | "ABX_ERR_CONFLICT"
  | "ABX_ERR_NO_TERMINAL"
  | "ABX_ERR_PRECONDITION_FAILED"
  | "ABX_ERR_RATE_LIMITED"
  | "ABX_ERR_ADAPTER_OFF"
  | "ABX_ERR_ADAPTER_DEGRADED"
  | "ABX_ERR_ADAPTER_UNAVAILABLE"
  | "ABX_ERR_ADAPTER_TIMEOUT"
  | "ABX_ERR_MESH_SESSION_GONE"
  | "ABX_ERR_MESH_REGISTRY_UNAVAILABLE"
  | "ABX_ERR_SANDBOX_UNAVAILABLE"
  | "ABX_ERR_PROVIDER_UNREACHABLE"
  | "ABX_ERR_PROVIDER_TIMEOUT"
  | "ABX_ERR_PROVIDER_KEY_MISSING"
  | "ABX_ERR_PROVIDER_PATH"
  | "ABX_ERR_DISK_LOW"
  | "ABX_ERR_EGRESS_UNAVAILABLE"
  | "ABX_ERR_AUDIT_UNAVAILABLE"
  | "ABX_ERR_POLICY_DENIED"
  | "ABX_ERR_APPROVAL_NOT_FOUND"
  | "ABX_ERR_APPROVAL_DECIDED"
  | "ABX_ERR_APPROVAL_CHANGED"
  | "ABX_ERR_APPROVAL_SIGNATURE"
  | "ABX_ERR_INPUT_REQUEST_NOT_FOUND"
  | "ABX_ERR_INPUT_REQUEST_CLOSED"
  | "ABX_ERR_INPUT_REQUESTS_FULL"
  | "ABX_ERR_FILE_PATH"
  | "ABX_ERR_FILE_TYPE"
  | "ABX_ERR_FILE_TOO_LARGE"
  | "ABX_ERR_TAR_REFUSED"
  | "ABX_ERR_SHUTTING_DOWN"
  | "ABX_ERR_INTERNAL";

/** Every route: path parameters, query, headers, JSON body and the JSON answer of its 2xx responses. */
export interface Routes {
  /** Aggregate health for people: slots, mounts, seal, supervised programmes, federation (mesh registration or members), relays, uptime */
  "GET /health": {
    response: ({
      status?: "ok" | "degraded";
      ready?: boolean;
      uptimeSec?: number;
      startedAt?: string;
      slots?: ({
        [key: string]: {
          impl?: string;
          adapter?: string;
          critical?: boolean;
          state?: string;
          reason?: string;
          since?: string;
        } | undefined;
      });
      mounts?: Array<{
        name?: string;
        path?: string;
        writable?: boolean;
        error?: string;
      }>;
      seal?: {
        path?: string;
        present?: boolean;
        /** why the seal is not coming: stage B failed or the seal timed out (as recorded in the bootstrap failure marker) */
        failure?: string;
      };
      programs?: {
        [key: string]: unknown;
      };
      /** mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged} */
      federation?: ({
        mode?: "standalone" | "client" | "host";
        [key: string]: unknown;
      });
      /** agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it) */
      sandbox?: ({
        enabled?: boolean;
        mode?: "confined" | "unconfined" | "unavailable" | "unknown";
        landlockAbi?: number;
        requiredAbi?: number;
        missing?: string;
        /** sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used */
        namespaces?: ({
          setting?: "auto" | "required" | "off";
          active?: boolean;
          reason?: string;
          proc?: "fresh" | "ro-bind";
          disableUserns?: boolean;
          checkedAt?: string;
        });
      });
      /** present while agent events are published: the relays and which are connected */
      relays?: {
        configured?: Array<string>;
        reachable?: Array<string>;
      };
    });
  };
  /** Liveness: the process answers (no external checks), also while it shuts down */
  "GET /livez": {
    response: {
      live?: true;
    };
  };
  /** Readiness: 200 when the seal exists, the mounts are writable, every critical adapter slot is healthy and (while agent events are published) a relay is reachable; 503 from the moment the API starts shutting down */
  "GET /ready": {
    response: {
      ready?: true;
      since?: string;
      requirements?: Array<string>;
      degraded?: Array<string>;
    };
  };
  /** Every agent the orchestrator knows, oldest first */
  "GET /v1/agents": {
    response: ({
      agents?: (Array<({
        id?: string;
        name?: string;
        command?: string;
        args?: Array<string>;
        state?: "starting" | "running" | "exited" | "failed" | "terminated" | "crash-loop";
        pid?: number;
        exitCode?: number;
        signal?: string;
        startedAt?: string;
        endedAt?: string;
        /** Resource use of the agent's process tree as last sampled (about once a second), kept after the exit */
        usage?: {
          rss_bytes?: number;
          pss_bytes?: number;
          /** inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify */
          inotify_instances?: number;
          /** The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify */
          inotify_watches?: number;
          /** Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes */
          memfd_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          /** Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample) */
          disk_bytes?: number;
          /** Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget) */
          disk_entries?: number;
          /** When the walk that measured disk_bytes began */
          disk_measured_at?: string;
        };
        /** The budgets the agent runs under */
        limits?: {
          memory_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          disk_bytes?: number;
          /** Entries under its directories the disk walk measures: more ends it with limit:entries */
          entries?: number;
        };
        /** Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec) */
        reason?: string;
        /** Milliseconds from the start to the end, once ended */
        durationMs?: number;
        /** The manifest profile it was started from (agents.profiles.<name>) */
        profile?: string;
        /** The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input */
        tty?: boolean;
        /** A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it */
        execOf?: string;
        /** Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it */
        cwd?: string;
        /** While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first) */
        checkpoints?: {
          everySec?: number;
          keep?: number;
          made?: Array<string>;
        };
      })>);
    });
  };
  /** Start an agent process in the workspace */
  "POST /v1/agents": {
    body: ({
      /** Start a profile of the manifest (agents.profiles.<name>): its command, args, env, cwd, providers, egress, limits, tty and deadlines. The request may then override only name, args, cwd, cols, rows, autonomy, add env variables, and lower limits, timeout_sec and idle_timeout_sec (docs/user/agents.md) */
      profile?: string;
      /** What the agent is; crash loops are counted by name (default with a profile: the profile name). No dot: it separates the memory namespaces agent.<name>.<more> */
      name?: string;
      /** Executable, absolute or found on the agent PATH (an ad-hoc spawn; never with a profile) */
      command?: string;
      /** Arguments (default: none, or the profile's) */
      args?: Array<string>;
      /** End the agent this many seconds after its start: state terminated, reason timeout */
      timeout_sec?: number;
      /** End the agent after this many seconds without output (and, on a terminal, without input): state terminated, reason idle */
      idle_timeout_sec?: number;
      /** Extra, non-secret variables; secret-looking names and values are refused */
      env?: ({
        [key: string]: string | undefined;
      });
      /** Working directory relative to the workspace */
      cwd?: string;
      /** How the agent meets a [policy] rule that asks: autonomous (refused at once, the rule named) or supervised (held as an approval request, GET /v1/approvals: this request stays open until an operator decides or policy.approval_timeout_sec denies it). Default: the manifest's policy.autonomy */
      autonomy?: "autonomous" | "supervised";
      /** Budgets below the manifest's sandbox.limits: a request may lower them, never raise them */
      limits?: {
        /** Memory (PSS of the process tree), a number with an optional unit k, m or g */
        memory?: string;
        /** CPU seconds of the process tree */
        cpu_seconds?: number;
        /** Processes in the tree at once */
        processes?: number;
        /** Disk under its working and temporary directories, a number with an optional unit k, m or g */
        disk?: string;
        /** Entries (files, directories, links) under its directories the box measures and a snapshot may hold */
        entries?: number;
      };
      /** Run the agent on a pseudo-terminal (stdin, stdout and stderr; its output is also captured as stdout) */
      tty?: boolean;
      /** A snapshot id (snp_…) to start the agent on a copy of (a fork): its working directory is made from the snapshot, in cwd when given (it must not exist or be empty), else in a new <name>.<8 hex> directory; forks share nothing on disk */
      fromSnapshot?: string;
      /** Snapshot the agent's working directory every everySec seconds while it runs (label "checkpoint", made and audited as the box's own snapshots), keeping the keep newest of them: an older checkpoint is deleted as a newer one is made. A tick while one is being made is skipped. Not for an agent working in the workspace itself (cwd ".") */
      checkpoints?: {
        /** Seconds between checkpoints */
        everySec: number;
        /** How many of the newest checkpoints are kept (default 10) */
        keep?: number;
      };
      /** Columns of the terminal (with tty; default 120) */
      cols?: number;
      /** Rows of the terminal (with tty; default 40) */
      rows?: number;
    });
    response: ({
      agent?: ({
        id?: string;
        name?: string;
        command?: string;
        args?: Array<string>;
        state?: "starting" | "running" | "exited" | "failed" | "terminated" | "crash-loop";
        pid?: number;
        exitCode?: number;
        signal?: string;
        startedAt?: string;
        endedAt?: string;
        /** Resource use of the agent's process tree as last sampled (about once a second), kept after the exit */
        usage?: {
          rss_bytes?: number;
          pss_bytes?: number;
          /** inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify */
          inotify_instances?: number;
          /** The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify */
          inotify_watches?: number;
          /** Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes */
          memfd_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          /** Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample) */
          disk_bytes?: number;
          /** Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget) */
          disk_entries?: number;
          /** When the walk that measured disk_bytes began */
          disk_measured_at?: string;
        };
        /** The budgets the agent runs under */
        limits?: {
          memory_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          disk_bytes?: number;
          /** Entries under its directories the disk walk measures: more ends it with limit:entries */
          entries?: number;
        };
        /** Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec) */
        reason?: string;
        /** Milliseconds from the start to the end, once ended */
        durationMs?: number;
        /** The manifest profile it was started from (agents.profiles.<name>) */
        profile?: string;
        /** The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input */
        tty?: boolean;
        /** A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it */
        execOf?: string;
        /** Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it */
        cwd?: string;
      });
      /** With fromSnapshot: how the working directory was made */
      fork?: {
        snapshot?: string;
        /** Made by a clone of the snapshot (btrfs): in constant time, sharing its bytes */
        cloned?: boolean;
        /** A copy built ahead (PUT /v1/snapshots/{sid}/warm) was taken: no copy was made while the spawn waited */
        warm?: boolean;
      };
    });
  };
  /** One agent, with its recent egress refusals */
  "GET /v1/agents/{id}": {
    params: {
      id: string;
    };
    response: ({
      agent?: ({
        id?: string;
        name?: string;
        command?: string;
        args?: Array<string>;
        state?: "starting" | "running" | "exited" | "failed" | "terminated" | "crash-loop";
        pid?: number;
        exitCode?: number;
        signal?: string;
        startedAt?: string;
        endedAt?: string;
        /** Resource use of the agent's process tree as last sampled (about once a second), kept after the exit */
        usage?: {
          rss_bytes?: number;
          pss_bytes?: number;
          /** inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify */
          inotify_instances?: number;
          /** The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify */
          inotify_watches?: number;
          /** Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes */
          memfd_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          /** Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample) */
          disk_bytes?: number;
          /** Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget) */
          disk_entries?: number;
          /** When the walk that measured disk_bytes began */
          disk_measured_at?: string;
        };
        /** The budgets the agent runs under */
        limits?: {
          memory_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          disk_bytes?: number;
          /** Entries under its directories the disk walk measures: more ends it with limit:entries */
          entries?: number;
        };
        /** Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec) */
        reason?: string;
        /** Milliseconds from the start to the end, once ended */
        durationMs?: number;
        /** The manifest profile it was started from (agents.profiles.<name>) */
        profile?: string;
        /** The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input */
        tty?: boolean;
        /** A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it */
        execOf?: string;
        /** Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it */
        cwd?: string;
        /** While the agent runs with checkpoints: their plan, and the checkpoints kept so far (snapshot ids, oldest first) */
        checkpoints?: {
          everySec?: number;
          keep?: number;
          made?: Array<string>;
        };
        /** The agent's recent egress refusals (GET of one agent only, on a box with an egress proxy), newest last, at most 20: the host and port, the rule that refused, and the manifest key that would allow it */
        refusals?: Array<{
          at?: string;
          host?: string;
          port?: number;
          reason?: string;
          allowWith?: string;
        }>;
      });
    });
  };
  /** Terminate an agent: SIGTERM to its process group, SIGKILL after graceMs; answers with the final record */
  "DELETE /v1/agents/{id}": {
    params: {
      id: string;
    };
    query?: {
      graceMs?: number;
    };
    response: ({
      agent?: ({
        id?: string;
        name?: string;
        command?: string;
        args?: Array<string>;
        state?: "starting" | "running" | "exited" | "failed" | "terminated" | "crash-loop";
        pid?: number;
        exitCode?: number;
        signal?: string;
        startedAt?: string;
        endedAt?: string;
        /** Resource use of the agent's process tree as last sampled (about once a second), kept after the exit */
        usage?: {
          rss_bytes?: number;
          pss_bytes?: number;
          /** inotify instances its processes hold (by descriptor): more than 16 ends it with limit:inotify */
          inotify_instances?: number;
          /** The watches of those instances, counted up to one past the agent's share (an eighth of fs.inotify.max_user_watches, at most 8,192): more ends it with limit:inotify */
          inotify_watches?: number;
          /** Memory files (memfd) its processes hold open, each counted once: judged against memory_bytes with pss_bytes */
          memfd_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          /** Blocks allocated under its working and temporary directories, as of the last walk (every 5 s), plus files there it deleted but still holds open (as of the last sample) */
          disk_bytes?: number;
          /** Entries (files, directories, links) below its directories as of the same walk, against limits.entries (at least that many when the walk stopped early, over a budget) */
          disk_entries?: number;
          /** When the walk that measured disk_bytes began */
          disk_measured_at?: string;
        };
        /** The budgets the agent runs under */
        limits?: {
          memory_bytes?: number;
          cpu_seconds?: number;
          processes?: number;
          disk_bytes?: number;
          /** Entries under its directories the disk walk measures: more ends it with limit:entries */
          entries?: number;
        };
        /** Why the orchestrator ended the agent on its own: limit:memory, limit:cpu, limit:processes, limit:inotify, limit:disk or limit:entries (a budget), timeout or idle (timeout_sec, idle_timeout_sec) */
        reason?: string;
        /** Milliseconds from the start to the end, once ended */
        durationMs?: number;
        /** The manifest profile it was started from (agents.profiles.<name>) */
        profile?: string;
        /** The agent runs on a pseudo-terminal: GET /v1/agents/{id}/terminal, POST /v1/agents/{id}/input */
        tty?: boolean;
        /** A command exec'd into this agent (POST /v1/agents/{id}/exec): it runs in that agent's sandbox and ends with it */
        execOf?: string;
        /** Its working directory relative to the workspace (what the files API and snapshots read); a fork's is made for it */
        cwd?: string;
      });
    });
  };
  /** Run a command in a running agent's sandbox: the same launcher policy, uid, Landlock grants, working and temporary directories, egress credential and API token, under a budget of the agent's limits; ended with the agent. Answers with the command's own record (execOf names the agent): follow it through /output, /terminal and DELETE like any agent */
  "POST /v1/agents/{id}/exec": {
    params: {
      id: string;
    };
    body: ({
      /** Executable, absolute or found on the agent's PATH */
      command: string;
      args?: Array<string>;
      /** Extra, non-secret variables on top of the agent's environment */
      env?: ({
        [key: string]: string | undefined;
      });
      /** Run the command on a pseudo-terminal of its own (GET /v1/agents/{newId}/terminal) */
      tty?: boolean;
      cols?: number;
      rows?: number;
    });
    response: {
      agent?: {
        [key: string]: unknown;
      };
    };
  };
  /** A file of the agent's working directory (its bytes, ETag, Last-Modified, X-File-Mode); a directory with ?list (JSON entries) or ?format=tar (a tar stream). Symbolic links are listed, never followed: GET of one is 409 */
  "GET /v1/agents/{id}/files": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    query?: {
      list?: string;
      format?: "tar";
    };
    response: ({
      path?: string;
      entries?: (Array<({
        name?: string;
        type?: "file" | "dir" | "symlink" | "other";
        size?: number;
        /** Permission bits in octal, e.g. 0644 */
        mode?: string;
        mtime?: string;
        /** A symbolic link's target, as data (links are never followed) */
        target?: string;
      })>);
      truncated?: boolean;
    });
  };
  /** Create or replace a file with the request body, atomically (a temporary file renamed over the name); missing parent directories are made. X-File-Mode sets the permission bits (default 0644; setuid, setgid and sticky never set); If-None-Match: * creates only, If-Match replaces only that ETag */
  "PUT /v1/agents/{id}/files": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    headers?: {
      "x-file-mode"?: string;
      "if-match"?: string;
      "if-none-match"?: string;
    };
    response: {
      path?: string;
      created?: boolean;
      size?: number;
      etag?: string;
    };
  };
  /** Extract a tar (the request body) into a directory, made when missing (with X-File-Mode, its permission bits, the owner keeping every right): files, directories and links that stay inside the workspace; hard links, devices, FIFOs, absolute or .. names refused. All or nothing: extracted into a staging directory, moved in once the whole tar was accepted */
  "POST /v1/agents/{id}/files": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    headers?: {
      "x-file-mode"?: string;
    };
    response: {
      path?: string;
      files?: number;
      dirs?: number;
      symlinks?: number;
      bytes?: number;
    };
  };
  /** Delete a file, a symbolic link (never its target) or an empty directory; with ?recursive a directory and everything in it (links inside are removed, not followed) */
  "DELETE /v1/agents/{id}/files": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    query?: {
      recursive?: string;
    };
    response: {
      path?: string;
      removed?: number;
    };
  };
  /** A file of the agent's working directory (its bytes, ETag, Last-Modified, X-File-Mode); a directory with ?list (JSON entries) or ?format=tar (a tar stream). Symbolic links are listed, never followed: GET of one is 409 */
  "GET /v1/agents/{id}/files/{*}": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    query?: {
      list?: string;
      format?: "tar";
    };
    response: ({
      path?: string;
      entries?: (Array<({
        name?: string;
        type?: "file" | "dir" | "symlink" | "other";
        size?: number;
        /** Permission bits in octal, e.g. 0644 */
        mode?: string;
        mtime?: string;
        /** A symbolic link's target, as data (links are never followed) */
        target?: string;
      })>);
      truncated?: boolean;
    });
  };
  /** Create or replace a file with the request body, atomically (a temporary file renamed over the name); missing parent directories are made. X-File-Mode sets the permission bits (default 0644; setuid, setgid and sticky never set); If-None-Match: * creates only, If-Match replaces only that ETag */
  "PUT /v1/agents/{id}/files/{*}": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    headers?: {
      "x-file-mode"?: string;
      "if-match"?: string;
      "if-none-match"?: string;
    };
    response: {
      path?: string;
      created?: boolean;
      size?: number;
      etag?: string;
    };
  };
  /** Extract a tar (the request body) into a directory, made when missing (with X-File-Mode, its permission bits, the owner keeping every right): files, directories and links that stay inside the workspace; hard links, devices, FIFOs, absolute or .. names refused. All or nothing: extracted into a staging directory, moved in once the whole tar was accepted */
  "POST /v1/agents/{id}/files/{*}": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    headers?: {
      "x-file-mode"?: string;
    };
    response: {
      path?: string;
      files?: number;
      dirs?: number;
      symlinks?: number;
      bytes?: number;
    };
  };
  /** Delete a file, a symbolic link (never its target) or an empty directory; with ?recursive a directory and everything in it (links inside are removed, not followed) */
  "DELETE /v1/agents/{id}/files/{*}": {
    params: {
      id: string;
      /** The path relative to the agent's working directory; empty for the directory itself */
      "*": string;
    };
    query?: {
      recursive?: string;
    };
    response: {
      path?: string;
      removed?: number;
    };
  };
  /** Type text into a running tty agent's terminal (as keystrokes: end a line with \r) */
  "POST /v1/agents/{id}/input": {
    params: {
      id: string;
    };
    body: {
      data: string;
    };
    response: undefined;
  };
  /** An agent asks a person for input (with its own token; for itself only). 201 with the open request; await the answer with GET /v1/agents/{id}/input-requests/{requestId}?wait=SECONDS */
  "POST /v1/agents/{id}/input-requests": {
    params: {
      id: string;
    };
    body: {
      /** What the agent asks, shown to the operator */
      prompt: string;
    };
    response: ({
      inputRequest?: ({
        id?: string;
        agentId?: string;
        /** The agent's name */
        agent?: string;
        /** prompt: seen on its quiet terminal; explicit: the agent asked through the API */
        reason?: "prompt" | "explicit";
        /** The prompt line that matched, or the agent's own text */
        prompt?: string;
        /** Which prompt pattern matched (a prompt) */
        pattern?: string;
        /** The last lines of its screen when raised (a prompt), trimmed */
        lines?: Array<string>;
        created?: string;
        state?: "open" | "answered" | "withdrawn" | "ended";
        closed?: ({
          at?: string;
          why?: "answer" | "output" | "input" | "agent" | "agent-ended" | "api-closed";
          answer?: {
            length?: number;
            enter?: boolean;
            by?: {
              [key: string]: unknown;
            };
          };
        });
      });
    });
  };
  /** An agent's own input request, with the answer's text once answered; `wait` (seconds, at most 60) holds the call while it is open */
  "GET /v1/agents/{id}/input-requests/{requestId}": {
    params: {
      id: string;
      requestId: string;
    };
    query?: {
      wait?: number;
    };
    response: ({
      inputRequest?: ({
        id?: string;
        agentId?: string;
        /** The agent's name */
        agent?: string;
        /** prompt: seen on its quiet terminal; explicit: the agent asked through the API */
        reason?: "prompt" | "explicit";
        /** The prompt line that matched, or the agent's own text */
        prompt?: string;
        /** Which prompt pattern matched (a prompt) */
        pattern?: string;
        /** The last lines of its screen when raised (a prompt), trimmed */
        lines?: Array<string>;
        created?: string;
        state?: "open" | "answered" | "withdrawn" | "ended";
        closed?: ({
          at?: string;
          why?: "answer" | "output" | "input" | "agent" | "agent-ended" | "api-closed";
          answer?: {
            length?: number;
            enter?: boolean;
            by?: {
              [key: string]: unknown;
            };
          };
        });
        answer?: {
          text?: string;
        };
      });
    });
  };
  /** An agent takes back its own open input request (state withdrawn); 409 once closed */
  "DELETE /v1/agents/{id}/input-requests/{requestId}": {
    params: {
      id: string;
      requestId: string;
    };
    response: ({
      inputRequest?: ({
        id?: string;
        agentId?: string;
        /** The agent's name */
        agent?: string;
        /** prompt: seen on its quiet terminal; explicit: the agent asked through the API */
        reason?: "prompt" | "explicit";
        /** The prompt line that matched, or the agent's own text */
        prompt?: string;
        /** Which prompt pattern matched (a prompt) */
        pattern?: string;
        /** The last lines of its screen when raised (a prompt), trimmed */
        lines?: Array<string>;
        created?: string;
        state?: "open" | "answered" | "withdrawn" | "ended";
        closed?: ({
          at?: string;
          why?: "answer" | "output" | "input" | "agent" | "agent-ended" | "api-closed";
          answer?: {
            length?: number;
            enter?: boolean;
            by?: {
              [key: string]: unknown;
            };
          };
        });
      });
    });
  };
  /** Captured output after `after`: JSON {chunks}, or with follow=true (or Accept: text/event-stream) live Server-Sent Events until the agent ends; resume with Last-Event-ID */
  "GET /v1/agents/{id}/output": {
    params: {
      id: string;
    };
    query?: {
      after?: number;
      follow?: boolean;
    };
    response: {
      chunks?: Array<{
        seq?: number;
        stream?: string;
        time?: string;
        text?: string;
      }>;
    };
  };
  /** Replace an ended agent's working directory with a snapshot (409 while it runs): built beside it, then swapped in. Modes (permission bits only), mtimes and links come back; setuid bits, devices and FIFOs never do; files belong to the agent */
  "POST /v1/agents/{id}/restore": {
    params: {
      id: string;
    };
    body: {
      /** A snapshot id (snp_…) */
      snapshot: string;
    };
    response: {
      restored?: string;
      agent?: string;
      files?: number;
      bytes?: number;
      /** true when the directory is a snapshot of the snapshot's btrfs clone (no byte copied), false when built by copying */
      cloned?: boolean;
      /** true when the directory is a copy of the snapshot built ahead (PUT /v1/snapshots/{sid}/warm), renamed into place */
      warm?: boolean;
    };
  };
  /** Snapshot the agent's working directory, running or ended: content-addressed, deduplicated across snapshots and agents. Each file is as of its own read (read whole, again if it changed meanwhile): not one instant for the whole tree while the agent writes */
  "POST /v1/agents/{id}/snapshots": {
    params: {
      id: string;
    };
    body: {
      /** A note shown in listings: one line of text (no control characters) */
      label?: string;
    } | null;
    response: {
      snapshot?: {
        id?: string;
        label?: string;
        createdAt?: string;
        agent?: {
          id?: string;
          name?: string;
          cwd?: string;
        };
        stats?: {
          files?: number;
          dirs?: number;
          symlinks?: number;
          /** FIFOs, sockets, devices and files of other owners linked in: never captured */
          skipped?: number;
          /** Sum of the files' sizes */
          bytes?: number;
          /** Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse) */
          holeBytes?: number;
          /** What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded */
          buildBytes?: number;
          chunks?: number;
          /** Bytes of the distinct chunks it refers to (what it holds once deduplicated) */
          storedBytes?: number;
          addedChunks?: number;
          /** Bytes this snapshot added to the store; the rest was there already (shared) */
          addedBytes?: number;
          /** Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread */
          reusedFiles?: number;
          /** Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none */
          aheadFiles?: number;
          /** Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them */
          reusedDirs?: number;
          /** Files that kept changing while read (three reads); kept as last read */
          changed?: number;
          durationMs?: number;
        };
        /** The first 100 files that kept changing while read */
        changedPaths?: Array<string>;
        /** It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes */
        clone?: boolean;
        /** GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed */
        warm?: {
          wanted?: number;
          ready?: number;
          building?: boolean;
          error?: string;
        };
        /** GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget) */
        sharing?: {
          storedBytes?: number;
          sharedBytes?: number;
          exclusiveBytes?: number;
          chargedBytes?: number;
        };
      };
    };
  };
  /** Pending approval requests, oldest first */
  "GET /v1/approvals": {
    response: ({
      approvals?: (Array<({
        id?: string;
        /** sha256: of the canonical JSON of {action, agent, arguments, policy} */
        digest?: string;
        action?: "spawn" | "egress" | "provider" | "egress-change";
        /** The agent's name (null: an operator's action) */
        agent?: string | null;
        agentId?: string | null;
        arguments?: {
          [key: string]: unknown;
        };
        rule?: {
          index?: number;
          id?: string;
        } | null;
        reason?: string;
        policy?: string;
        created?: string;
        expires?: string;
        state?: "pending" | "approved" | "denied" | "timeout";
        decision?: {
          outcome?: string;
          reason?: string;
          scope?: string;
          at?: string;
          by?: {
            actor?: {
              [key: string]: unknown;
            };
            signed?: boolean;
            pubkey?: string;
            signature?: {
              id?: string;
              sig?: string;
            };
          };
        };
      })>);
    });
  };
  /** Approval requests as Server-Sent Events: a `snapshot` of the pending ones, then one `requested` or `decided` record per change */
  "GET /v1/approvals/stream": {
    response: string;
  };
  /** One approval request, pending or recently decided */
  "GET /v1/approvals/{id}": {
    params: {
      id: string;
    };
    response: ({
      approval?: ({
        id?: string;
        /** sha256: of the canonical JSON of {action, agent, arguments, policy} */
        digest?: string;
        action?: "spawn" | "egress" | "provider" | "egress-change";
        /** The agent's name (null: an operator's action) */
        agent?: string | null;
        agentId?: string | null;
        arguments?: {
          [key: string]: unknown;
        };
        rule?: {
          index?: number;
          id?: string;
        } | null;
        reason?: string;
        policy?: string;
        created?: string;
        expires?: string;
        state?: "pending" | "approved" | "denied" | "timeout";
        decision?: {
          outcome?: string;
          reason?: string;
          scope?: string;
          at?: string;
          by?: {
            actor?: {
              [key: string]: unknown;
            };
            signed?: boolean;
            pubkey?: string;
            signature?: {
              id?: string;
              sig?: string;
            };
          };
        };
      });
    });
  };
  /** Approve or deny a pending request, with a reason and a scope; signed by an operator key (signed) or unsigned with the API key or a dashboard session */
  "POST /v1/approvals/{id}": {
    params: {
      id: string;
    };
    body: ({
      decision: "approve" | "deny";
      reason?: string;
      /** once (this request), agent (later asks of the same rule by the same agent, until the API restarts) or until=<ISO time> (the same, until then; at most 24 h) */
      scope?: string;
      /** The digest the decider saw: a request whose digest differs is refused (409 ABX_ERR_APPROVAL_CHANGED) */
      digest?: string;
      /** A Nostr event of kind 4751 signed by a key of mesh.operator_pubkeys, its content the JSON statement {request, digest, policy, decision, scope, expires} */
      signed?: {
        [key: string]: unknown;
      };
    });
    response: ({
      approval?: ({
        id?: string;
        /** sha256: of the canonical JSON of {action, agent, arguments, policy} */
        digest?: string;
        action?: "spawn" | "egress" | "provider" | "egress-change";
        /** The agent's name (null: an operator's action) */
        agent?: string | null;
        agentId?: string | null;
        arguments?: {
          [key: string]: unknown;
        };
        rule?: {
          index?: number;
          id?: string;
        } | null;
        reason?: string;
        policy?: string;
        created?: string;
        expires?: string;
        state?: "pending" | "approved" | "denied" | "timeout";
        decision?: {
          outcome?: string;
          reason?: string;
          scope?: string;
          at?: string;
          by?: {
            actor?: {
              [key: string]: unknown;
            };
            signed?: boolean;
            pubkey?: string;
            signature?: {
              id?: string;
              sig?: string;
            };
          };
        };
      });
    });
  };
  /** Proof that this box holds an API key, without the key being sent: `proof` is HMAC-SHA256 of the challenge's bytes under HMAC-SHA256(apiKey, "agentbox key proof v1"), hex. `agentbox` commands ask for it and compare it with their own before they send the key under --root */
  "GET /v1/auth/key-proof": {
    query: {
      /** A challenge: 32 random bytes as 64 lower-case hex digits */
      challenge: string;
    };
    response: {
      proof?: string;
    };
  };
  /** List beads in creation order, optionally by status and epic */
  "GET /v1/beads": {
    query?: ({
      status?: "open" | "claimed" | "closed";
      parentId?: string;
      limit?: number;
      cursor?: string;
    });
    response: ({
      items?: (Array<({
        id?: string;
        kind?: "epic" | "task";
        title?: string;
        body?: string;
        parentId?: string;
        dependsOn?: Array<string>;
        status?: "open" | "claimed" | "closed";
        claimedBy?: string;
        claimedAt?: string;
        closedAt?: string;
        outcome?: "success" | "failure" | "cancelled";
        outcomeNote?: string;
        createdAt?: string;
        updatedAt?: string;
      })>);
      nextCursor?: string;
    });
  };
  /** Create a bead (an epic or a task) */
  "POST /v1/beads": {
    body: ({
      /** An epic groups tasks (default task) */
      kind?: "epic" | "task";
      title: string;
      body?: string;
      /** The epic this bead belongs to */
      parentId?: string;
      /** Beads that must close with success first */
      dependsOn?: Array<string>;
    });
    response: ({
      bead?: ({
        id?: string;
        kind?: "epic" | "task";
        title?: string;
        body?: string;
        parentId?: string;
        dependsOn?: Array<string>;
        status?: "open" | "claimed" | "closed";
        claimedBy?: string;
        claimedAt?: string;
        closedAt?: string;
        outcome?: "success" | "failure" | "cancelled";
        outcomeNote?: string;
        createdAt?: string;
        updatedAt?: string;
      });
    });
  };
  /** The ready queue: open beads whose dependencies all closed with success, oldest first */
  "GET /v1/beads/ready": {
    query?: {
      limit?: number;
      cursor?: string;
    };
    response: ({
      items?: (Array<({
        id?: string;
        kind?: "epic" | "task";
        title?: string;
        body?: string;
        parentId?: string;
        dependsOn?: Array<string>;
        status?: "open" | "claimed" | "closed";
        claimedBy?: string;
        claimedAt?: string;
        closedAt?: string;
        outcome?: "success" | "failure" | "cancelled";
        outcomeNote?: string;
        createdAt?: string;
        updatedAt?: string;
      })>);
      nextCursor?: string;
    });
  };
  /** One bead */
  "GET /v1/beads/{id}": {
    params: {
      id: string;
    };
    response: ({
      bead?: ({
        id?: string;
        kind?: "epic" | "task";
        title?: string;
        body?: string;
        parentId?: string;
        dependsOn?: Array<string>;
        status?: "open" | "claimed" | "closed";
        claimedBy?: string;
        claimedAt?: string;
        closedAt?: string;
        outcome?: "success" | "failure" | "cancelled";
        outcomeNote?: string;
        createdAt?: string;
        updatedAt?: string;
      });
    });
  };
  /** Claim an open, ready bead: exactly one of concurrent claimants wins (409 for the others); the winner may repeat the claim */
  "POST /v1/beads/{id}/claim": {
    params: {
      id: string;
    };
    body: {
      claimant: string;
    };
    response: ({
      bead?: ({
        id?: string;
        kind?: "epic" | "task";
        title?: string;
        body?: string;
        parentId?: string;
        dependsOn?: Array<string>;
        status?: "open" | "claimed" | "closed";
        claimedBy?: string;
        claimedAt?: string;
        closedAt?: string;
        outcome?: "success" | "failure" | "cancelled";
        outcomeNote?: string;
        createdAt?: string;
        updatedAt?: string;
      });
      claimed?: boolean;
    });
  };
  /** Close a bead with an outcome (success, failure, cancelled); repeating the same close is harmless */
  "POST /v1/beads/{id}/close": {
    params: {
      id: string;
    };
    body: ({
      outcome: "success" | "failure" | "cancelled";
      note?: string;
    });
    response: ({
      bead?: ({
        id?: string;
        kind?: "epic" | "task";
        title?: string;
        body?: string;
        parentId?: string;
        dependsOn?: Array<string>;
        status?: "open" | "claimed" | "closed";
        claimedBy?: string;
        claimedAt?: string;
        closedAt?: string;
        outcome?: "success" | "failure" | "cancelled";
        outcomeNote?: string;
        createdAt?: string;
        updatedAt?: string;
      });
    });
  };
  /** The dashboard live stream (SSE): for each topic (overview, agents, beads, mesh, approvals, inputs; default all) an `event: <topic>` message with its JSON on connect and whenever it changes */
  "GET /v1/dashboard/stream": {
    query?: {
      /** Comma-separated topics */
      topics?: string;
    };
    response: string;
  };
  /** Query events, oldest first, by kind and inclusive time range; page with nextCursor */
  "GET /v1/events": {
    query?: {
      /** Only these kinds (repeat the parameter for several) */
      kind?: Array<string>;
      /** ISO-8601 time, inclusive */
      since?: string;
      /** ISO-8601 time, inclusive */
      until?: string;
      limit?: number;
      cursor?: string;
    };
    response: {
      items?: Array<{
        id?: string;
        seq?: number;
        time?: string;
        kind?: string;
        source?: string;
        data?: {
          [key: string]: unknown;
        };
      }>;
      nextCursor?: string;
    };
  };
  /** Append one event to the event sink; 201 once it is durable */
  "POST /v1/events": {
    body: {
      /** Dotted event kind, e.g. agent.note */
      kind: string;
      /** Who emits the event (default api) */
      source?: string;
      /** Free-form JSON payload */
      data?: Record<string, unknown>;
    };
    response: {
      event?: {
        id?: string;
        seq?: number;
        time?: string;
        kind?: string;
        source?: string;
        data?: {
          [key: string]: unknown;
        };
      };
    };
  };
  /** The event log's latest signed checkpoint: a C2SP tlog-checkpoint signed note (origin, size, base64 RFC 6962 root), text/plain */
  "GET /v1/events/checkpoint": {
    response: string;
  };
  /** Sign a checkpoint of the event log as it is now (none when the latest already covers every entry) and answer the latest signed note, text/plain; agentbox backup asks for one so the backup holds every event so far */
  "POST /v1/events/checkpoint": {
    response: string;
  };
  /** RFC 6962 consistency proof between the trees of from and to entries (default to: the latest checkpoint) */
  "GET /v1/events/proof/consistency": {
    query: {
      from: number;
      to?: number;
    };
    response: {
      from?: number;
      to?: number;
      /** base64 hashes */
      path?: Array<string>;
    };
  };
  /** RFC 6962 inclusion proof of entry index (seq − 1) in the tree of size entries (default: the latest checkpoint) */
  "GET /v1/events/proof/inclusion": {
    query: {
      index: number;
      size?: number;
    };
    response: {
      index?: number;
      size?: number;
      /** base64 SHA-256(0x00 || the stored line) */
      leafHash?: string;
      /** base64 hashes, deepest sibling first */
      path?: Array<string>;
    };
  };
  /** Live events as Server-Sent Events; resume with Last-Event-ID or start from a time with since */
  "GET /v1/events/stream": {
    query?: {
      /** Only these kinds (repeat the parameter for several) */
      kind?: Array<string>;
      /** ISO-8601 time, inclusive */
      since?: string;
    };
    response: string;
  };
  /** Agents waiting for a person: the open input requests, oldest first */
  "GET /v1/input-requests": {
    response: ({
      inputRequests?: (Array<({
        id?: string;
        agentId?: string;
        /** The agent's name */
        agent?: string;
        /** prompt: seen on its quiet terminal; explicit: the agent asked through the API */
        reason?: "prompt" | "explicit";
        /** The prompt line that matched, or the agent's own text */
        prompt?: string;
        /** Which prompt pattern matched (a prompt) */
        pattern?: string;
        /** The last lines of its screen when raised (a prompt), trimmed */
        lines?: Array<string>;
        created?: string;
        state?: "open" | "answered" | "withdrawn" | "ended";
        closed?: ({
          at?: string;
          why?: "answer" | "output" | "input" | "agent" | "agent-ended" | "api-closed";
          answer?: {
            length?: number;
            enter?: boolean;
            by?: {
              [key: string]: unknown;
            };
          };
        });
      })>);
    });
  };
  /** One input request, open or recently closed */
  "GET /v1/input-requests/{id}": {
    params: {
      id: string;
    };
    response: ({
      inputRequest?: ({
        id?: string;
        agentId?: string;
        /** The agent's name */
        agent?: string;
        /** prompt: seen on its quiet terminal; explicit: the agent asked through the API */
        reason?: "prompt" | "explicit";
        /** The prompt line that matched, or the agent's own text */
        prompt?: string;
        /** Which prompt pattern matched (a prompt) */
        pattern?: string;
        /** The last lines of its screen when raised (a prompt), trimmed */
        lines?: Array<string>;
        created?: string;
        state?: "open" | "answered" | "withdrawn" | "ended";
        closed?: ({
          at?: string;
          why?: "answer" | "output" | "input" | "agent" | "agent-ended" | "api-closed";
          answer?: {
            length?: number;
            enter?: boolean;
            by?: {
              [key: string]: unknown;
            };
          };
        });
      });
    });
  };
  /** Answer an open input request: a prompt's text (and Enter) is typed into the agent's terminal; an explicit request's text is handed to the agent. 409 once it is answered, withdrawn or ended */
  "POST /v1/input-requests/{id}": {
    params: {
      id: string;
    };
    body: {
      /** Typed into the terminal as keystrokes (a prompt), or handed to the agent (explicit) */
      text: string;
      /** Press Enter (\r) after the text */
      enter?: boolean;
    };
    response: ({
      inputRequest?: ({
        id?: string;
        agentId?: string;
        /** The agent's name */
        agent?: string;
        /** prompt: seen on its quiet terminal; explicit: the agent asked through the API */
        reason?: "prompt" | "explicit";
        /** The prompt line that matched, or the agent's own text */
        prompt?: string;
        /** Which prompt pattern matched (a prompt) */
        pattern?: string;
        /** The last lines of its screen when raised (a prompt), trimmed */
        lines?: Array<string>;
        created?: string;
        state?: "open" | "answered" | "withdrawn" | "ended";
        closed?: ({
          at?: string;
          why?: "answer" | "output" | "input" | "agent" | "agent-ended" | "api-closed";
          answer?: {
            length?: number;
            enter?: boolean;
            by?: {
              [key: string]: unknown;
            };
          };
        });
      });
    });
  };
  /** List memories of a namespace in insertion order (without vectors) */
  "GET /v1/memory/{namespace}": {
    params: {
      /** Isolates callers: letters, digits, ".", "_", "-" */
      namespace: string;
    };
    query?: {
      limit?: number;
      cursor?: string;
    };
    response: {
      items?: Array<{
        id?: string;
        namespace?: string;
        text?: string;
        metadata?: {
          [key: string]: unknown;
        };
        createdAt?: string;
      }>;
      nextCursor?: string;
    };
  };
  /** Store a memory (an existing id is replaced); without a vector the built-in text embedder computes one */
  "POST /v1/memory/{namespace}": {
    params: {
      /** Isolates callers: letters, digits, ".", "_", "-" */
      namespace: string;
    };
    body: {
      id?: string;
      text: string;
      /** Any JSON object, at most 16384 bytes */
      metadata?: Record<string, unknown>;
      /** integrations.memory.dimension numbers */
      vector?: Array<number>;
    };
    response: {
      id?: string;
    };
  };
  /** Nearest memories to a text or a vector, best first (score = cosine similarity) */
  "POST /v1/memory/{namespace}/search": {
    params: {
      /** Isolates callers: letters, digits, ".", "_", "-" */
      namespace: string;
    };
    body: {
      text?: string;
      /** integrations.memory.dimension numbers */
      vector?: Array<number>;
      k: number;
    };
    response: {
      hits?: Array<{
        id?: string;
        score?: number;
        text?: string;
        metadata?: {
          [key: string]: unknown;
        };
      }>;
    };
  };
  /** One memory with its vector */
  "GET /v1/memory/{namespace}/{id}": {
    params: {
      /** Isolates callers: letters, digits, ".", "_", "-" */
      namespace: string;
      id: string;
    };
    response: {
      memory?: {
        id?: string;
        namespace?: string;
        text?: string;
        metadata?: {
          [key: string]: unknown;
        };
        createdAt?: string;
        vector?: Array<number>;
      };
    };
  };
  /** Delete a memory; deleted is false when there was none */
  "DELETE /v1/memory/{namespace}/{id}": {
    params: {
      /** Isolates callers: letters, digits, ".", "_", "-" */
      namespace: string;
      id: string;
    };
    response: {
      deleted?: boolean;
    };
  };
  /** Identity of the box: API version, Nostr identity (npub, hex public key, did:nostr), image hash, manifest sha256, federation mode, adapters and their contract versions, metrics endpoint */
  "GET /v1/meta": {
    response: ({
      name?: string;
      version?: string;
      imageHash?: string;
      manifestSha256?: string;
      identity?: {
        npub?: string;
        pubkey?: string;
        did?: string;
      };
      /** mode standalone: {mode, state: disabled}. client: state (registering, registered, backing_off), hostUrl, host (the address in use), sessionId, heartbeatIntervalSec, registeredAt, lastHeartbeatAt, lastError, retryAt. host: registry, heartbeatIntervalSec, members {registered, evicted}, lastError, witness {verifierKey (the key cosignatures of members' checkpoints verify with), flagged}. A client also shows witness {hostKey, size, root, lastOutcome, lastMessage, lastCosignedAt, flagged} */
      federation?: ({
        mode?: "standalone" | "client" | "host";
        [key: string]: unknown;
      });
      adapters?: ({
        [key: string]: {
          impl?: string;
          adapter?: string;
          contractVersion?: string;
          state?: string;
        } | undefined;
      });
      metrics?: {
        url?: string;
      };
      /** the agents' listener: the API's base URL agents are given (AGENTBOX_API_URL), on 127.0.0.1; it serves agent-token routes only */
      agentApiUrl?: string;
      /** agent confinement: confined (Landlock, seccomp and rlimits enforced), unconfined (sandbox.enabled = false), unavailable (enabled but this host cannot enforce it: spawns are refused) or unknown (no local orchestrator probed it) */
      sandbox?: ({
        enabled?: boolean;
        mode?: "confined" | "unconfined" | "unavailable" | "unknown";
        landlockAbi?: number;
        requiredAbi?: number;
        missing?: string;
        /** sandbox.namespaces and, once probed, whether each agent runs in bubblewrap here (own user, PID, network namespaces), why not, and how /proc is given (fresh, or the outer one read-only where a fresh one cannot be mounted), and whether bwrap's --disable-userns is used */
        namespaces?: ({
          setting?: "auto" | "required" | "off";
          active?: boolean;
          reason?: string;
          proc?: "fresh" | "ro-bind";
          disableUserns?: boolean;
          checkedAt?: string;
        });
      });
      /** the event log's origin and the signed-note verifier key its checkpoints verify with (absent when the events slot keeps no Merkle tree) */
      eventLog?: {
        origin?: string;
        verifierKey?: string;
      };
    });
  };
  /** A resource (its bytes, Content-Type, ETag, Last-Modified; 304 on a matching If-None-Match) or, for a path ending in /, a page of the container members */
  "GET /v1/pods/{*}": {
    params: {
      /** The pod path after /v1/pods/; a trailing / names a container */
      "*": string;
    };
    query?: {
      limit?: number;
      cursor?: string;
    };
    headers?: {
      /** Write or delete only if the current ETag is one of these (or * for any existing) */
      "if-match"?: string;
      /** PUT: * creates only if absent. GET: answer 304 when the ETag matches */
      "if-none-match"?: string;
    };
    response: unknown;
  };
  /** Create or replace a resource with the request body and its Content-Type (201 created, 200 replaced); an empty PUT to a path ending in / creates a container */
  "PUT /v1/pods/{*}": {
    params: {
      /** The pod path after /v1/pods/; a trailing / names a container */
      "*": string;
    };
    headers?: {
      /** Write or delete only if the current ETag is one of these (or * for any existing) */
      "if-match"?: string;
      /** PUT: * creates only if absent. GET: answer 304 when the ETag matches */
      "if-none-match"?: string;
    };
    response: {
      path?: string;
      etag?: string;
      created?: boolean;
    };
  };
  /** Delete a resource, or an empty container; If-Match makes it conditional */
  "DELETE /v1/pods/{*}": {
    params: {
      /** The pod path after /v1/pods/; a trailing / names a container */
      "*": string;
    };
    headers?: {
      /** Write or delete only if the current ETag is one of these (or * for any existing) */
      "if-match"?: string;
      /** PUT: * creates only if absent. GET: answer 304 when the ETag matches */
      "if-none-match"?: string;
    };
    response: undefined;
  };
  /** The allowlist the egress proxy enforces now, and whether it is the manifest's or a runtime change */
  "GET /v1/sandbox/egress": {
    response: ({
      port?: number;
      source?: "manifest" | "runtime";
      allow_domains?: Array<string>;
      allow_ports?: Array<number>;
    });
  };
  /** Replace the allowlist: effective for the next request, kept until the API restarts (the manifest is the list at boot) */
  "PUT /v1/sandbox/egress": {
    body: {
      /** Domains agents may reach: exact names (example.com) or *.suffix (*.example.com matches any subdomain, not example.com itself). Changeable at run time through the API. Loopback, link-local, private and metadata addresses are refused unless listed here. */
      allow_domains: Array<string>;
      /** Destination ports agents may reach on allowed domains. */
      allow_ports: Array<number>;
    };
    response: ({
      port?: number;
      source?: "manifest" | "runtime";
      allow_domains?: Array<string>;
      allow_ports?: Array<number>;
    });
  };
  /** Every snapshot in the store, oldest first; ?agent=<id> only those of one agent */
  "GET /v1/snapshots": {
    query?: {
      agent?: string;
    };
    response: {
      snapshots?: Array<{
        id?: string;
        label?: string;
        createdAt?: string;
        agent?: {
          id?: string;
          name?: string;
          cwd?: string;
        };
        stats?: {
          files?: number;
          dirs?: number;
          symlinks?: number;
          /** FIFOs, sockets, devices and files of other owners linked in: never captured */
          skipped?: number;
          /** Sum of the files' sizes */
          bytes?: number;
          /** Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse) */
          holeBytes?: number;
          /** What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded */
          buildBytes?: number;
          chunks?: number;
          /** Bytes of the distinct chunks it refers to (what it holds once deduplicated) */
          storedBytes?: number;
          addedChunks?: number;
          /** Bytes this snapshot added to the store; the rest was there already (shared) */
          addedBytes?: number;
          /** Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread */
          reusedFiles?: number;
          /** Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none */
          aheadFiles?: number;
          /** Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them */
          reusedDirs?: number;
          /** Files that kept changing while read (three reads); kept as last read */
          changed?: number;
          durationMs?: number;
        };
        /** The first 100 files that kept changing while read */
        changedPaths?: Array<string>;
        /** It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes */
        clone?: boolean;
        /** GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed */
        warm?: {
          wanted?: number;
          ready?: number;
          building?: boolean;
          error?: string;
        };
        /** GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget) */
        sharing?: {
          storedBytes?: number;
          sharedBytes?: number;
          exclusiveBytes?: number;
          chargedBytes?: number;
        };
      }>;
    };
  };
  /** One snapshot, with what it shares with the others now and what only it holds */
  "GET /v1/snapshots/{sid}": {
    params: {
      /** A snapshot id (snp_…) */
      sid: string;
    };
    response: {
      snapshot?: {
        id?: string;
        label?: string;
        createdAt?: string;
        agent?: {
          id?: string;
          name?: string;
          cwd?: string;
        };
        stats?: {
          files?: number;
          dirs?: number;
          symlinks?: number;
          /** FIFOs, sockets, devices and files of other owners linked in: never captured */
          skipped?: number;
          /** Sum of the files' sizes */
          bytes?: number;
          /** Of those, bytes in whole 1 MiB chunks of zeros, which forks and restores leave as holes (a sparse file comes back sparse) */
          holeBytes?: number;
          /** What a fork or a restore that copies allocates on disk: each file's bytes less its holes in 4 KiB blocks (each hard link a file of its own), each directory's blocks, a block for each link whose target is 60 bytes or more; absent in a snapshot made before it was recorded */
          buildBytes?: number;
          chunks?: number;
          /** Bytes of the distinct chunks it refers to (what it holds once deduplicated) */
          storedBytes?: number;
          addedChunks?: number;
          /** Bytes this snapshot added to the store; the rest was there already (shared) */
          addedBytes?: number;
          /** Files unchanged since the agent's previous snapshot (same inode, size, mtime, ctime), taken from it unread */
          reusedFiles?: number;
          /** Of reusedFiles, those whose lstat a helper thread made while the walk went on (a second snapshot of at least 5,000 files, on two cores or more); absent when none */
          aheadFiles?: number;
          /** Directories unchanged since the agent's previous snapshot (same inode, mtime, ctime), whose names were taken from it without listing them */
          reusedDirs?: number;
          /** Files that kept changing while read (three reads); kept as last read */
          changed?: number;
          durationMs?: number;
        };
        /** The first 100 files that kept changing while read */
        changedPaths?: Array<string>;
        /** It keeps a clone (btrfs): its forks and restores are made in constant time, sharing its bytes */
        clone?: boolean;
        /** GET of one snapshot only, when warm forks of it were asked for (PUT /v1/snapshots/{sid}/warm): copies wanted, ready, one being built, and why the last build failed */
        warm?: {
          wanted?: number;
          ready?: number;
          building?: boolean;
          error?: string;
        };
        /** GET of one snapshot only, as of now: bytes it shares with other snapshots, bytes only it holds (what deleting it frees), and bytes it is charged (the chunks it is the oldest snapshot to refer to; an agent counts its own against its disk budget) */
        sharing?: {
          storedBytes?: number;
          sharedBytes?: number;
          exclusiveBytes?: number;
          chargedBytes?: number;
        };
      };
    };
  };
  /** Delete a snapshot; the chunks no other snapshot refers to are removed (the answer says how many bytes that freed) */
  "DELETE /v1/snapshots/{sid}": {
    params: {
      /** A snapshot id (snp_…) */
      sid: string;
    };
    response: {
      deleted?: string;
      freedBytes?: number;
      freedChunks?: number;
    };
  };
  /** What changed from snapshot ?from= to this one, from their entries alone (no file is read, nothing is built): paths added, deleted and modified, in path order, with counts of every change */
  "GET /v1/snapshots/{sid}/diff": {
    params: {
      /** A snapshot id (snp_…) */
      sid: string;
    };
    query: {
      /** The earlier snapshot (any agent’s) */
      from: string;
      /** The most changes listed */
      limit?: number;
      /** The nextCursor of the page before: the changes after it */
      cursor?: string;
    };
    response: ({
      from?: string;
      to?: string;
      counts?: {
        added?: number;
        deleted?: number;
        modified?: number;
      };
      /** Bytes of the files added */
      addedBytes?: number;
      /** Bytes of the files deleted */
      deletedBytes?: number;
      changes?: (Array<({
        path?: string;
        change?: "added" | "deleted" | "modified";
        /** In the later snapshot (in the earlier one for a deletion) */
        type?: "file" | "dir" | "symlink";
        /** A modification's aspects: content (a file's bytes), mode (permission bits), target (a link's), type. A modification time alone is no change */
        what?: (Array<"type" | "content" | "mode" | "target">);
        /** A file's size (in the earlier snapshot for a deletion) */
        size?: number;
        /** A modified file's size in the earlier snapshot */
        sizeBefore?: number;
      })>);
      /** More changes after those listed (see counts) */
      truncated?: boolean;
      /** When truncated: pass as ?cursor= for the next page */
      nextCursor?: string;
    });
  };
  /** A file of a snapshot, read from the store (its bytes, ETag, Last-Modified, X-File-Mode); a directory's entries with ?list, or the directory as a tar stream with ?format=tar; no agent is forked. Links are listed (and packed) as links, never followed */
  "GET /v1/snapshots/{sid}/files": {
    params: {
      /** A snapshot id (snp_…) */
      sid: string;
      /** The path relative to the working directory the snapshot was taken of; empty for that directory */
      "*": string;
    };
    query?: {
      list?: string;
      format?: "tar";
    };
    response: ({
      path?: string;
      entries?: (Array<({
        name?: string;
        type?: "file" | "dir" | "symlink" | "other";
        size?: number;
        /** Permission bits in octal, e.g. 0644 */
        mode?: string;
        mtime?: string;
        /** A symbolic link's target, as data (links are never followed) */
        target?: string;
      })>);
      truncated?: boolean;
    });
  };
  /** A file of a snapshot, read from the store (its bytes, ETag, Last-Modified, X-File-Mode); a directory's entries with ?list, or the directory as a tar stream with ?format=tar; no agent is forked. Links are listed (and packed) as links, never followed */
  "GET /v1/snapshots/{sid}/files/{*}": {
    params: {
      /** A snapshot id (snp_…) */
      sid: string;
      /** The path relative to the working directory the snapshot was taken of; empty for that directory */
      "*": string;
    };
    query?: {
      list?: string;
      format?: "tar";
    };
    response: ({
      path?: string;
      entries?: (Array<({
        name?: string;
        type?: "file" | "dir" | "symlink" | "other";
        size?: number;
        /** Permission bits in octal, e.g. 0644 */
        mode?: string;
        mtime?: string;
        /** A symbolic link's target, as data (links are never followed) */
        target?: string;
      })>);
      truncated?: boolean;
    });
  };
  /** Keep copies of a snapshot built ahead, so that forks of it take one by a rename instead of copying every byte while they wait (0 removes them). Built one at a time in the background, each replaced once a fork takes it; each holds the snapshot's buildBytes on the workspace's volume */
  "PUT /v1/snapshots/{sid}/warm": {
    params: {
      /** A snapshot id (snp_…) */
      sid: string;
    };
    body: {
      /** Copies to keep ready */
      forks: number;
    };
    response: {
      snapshot?: string;
      warm?: {
        wanted?: number;
        ready?: number;
        building?: boolean;
        error?: string;
      };
    };
  };
}

/** A route, as "METHOD /path/{param}". */
export type RouteKey = keyof Routes;

/** Every route, in the order of the document. */
export const ROUTE_KEYS: readonly RouteKey[] = [
  "GET /health",
  "GET /livez",
  "GET /ready",
  "GET /v1/agents",
  "POST /v1/agents",
  "GET /v1/agents/{id}",
  "DELETE /v1/agents/{id}",
  "POST /v1/agents/{id}/exec",
  "GET /v1/agents/{id}/files",
  "PUT /v1/agents/{id}/files",
  "POST /v1/agents/{id}/files",
  "DELETE /v1/agents/{id}/files",
  "GET /v1/agents/{id}/files/{*}",
  "PUT /v1/agents/{id}/files/{*}",
  "POST /v1/agents/{id}/files/{*}",
  "DELETE /v1/agents/{id}/files/{*}",
  "POST /v1/agents/{id}/input",
  "POST /v1/agents/{id}/input-requests",
  "GET /v1/agents/{id}/input-requests/{requestId}",
  "DELETE /v1/agents/{id}/input-requests/{requestId}",
  "GET /v1/agents/{id}/output",
  "POST /v1/agents/{id}/restore",
  "POST /v1/agents/{id}/snapshots",
  "GET /v1/approvals",
  "GET /v1/approvals/stream",
  "GET /v1/approvals/{id}",
  "POST /v1/approvals/{id}",
  "GET /v1/auth/key-proof",
  "GET /v1/beads",
  "POST /v1/beads",
  "GET /v1/beads/ready",
  "GET /v1/beads/{id}",
  "POST /v1/beads/{id}/claim",
  "POST /v1/beads/{id}/close",
  "GET /v1/dashboard/stream",
  "GET /v1/events",
  "POST /v1/events",
  "GET /v1/events/checkpoint",
  "POST /v1/events/checkpoint",
  "GET /v1/events/proof/consistency",
  "GET /v1/events/proof/inclusion",
  "GET /v1/events/stream",
  "GET /v1/input-requests",
  "GET /v1/input-requests/{id}",
  "POST /v1/input-requests/{id}",
  "GET /v1/memory/{namespace}",
  "POST /v1/memory/{namespace}",
  "POST /v1/memory/{namespace}/search",
  "GET /v1/memory/{namespace}/{id}",
  "DELETE /v1/memory/{namespace}/{id}",
  "GET /v1/meta",
  "GET /v1/pods/{*}",
  "PUT /v1/pods/{*}",
  "DELETE /v1/pods/{*}",
  "GET /v1/sandbox/egress",
  "PUT /v1/sandbox/egress",
  "GET /v1/snapshots",
  "GET /v1/snapshots/{sid}",
  "DELETE /v1/snapshots/{sid}",
  "GET /v1/snapshots/{sid}/diff",
  "GET /v1/snapshots/{sid}/files",
  "GET /v1/snapshots/{sid}/files/{*}",
  "PUT /v1/snapshots/{sid}/warm",
];
