// `Agentbox`: the typed client of one box, a method per route grouped by family, over fetch only (Node ≥ 20 and browsers).
import type { Credential } from './auth.js';
import { AgentboxError } from './errors.js';
import type { RouteKey, Routes } from './generated/api-types.js';
import { type CallOptions, callRoute, type InputArgs, type RouteInput, type RouteResponse, streamRoute } from './route-call.js';
import type { SseMessage } from './sse.js';
import { Transport, type TransportOptions } from './transport.js';

/** What the client is made with: the box URL, a credential, and optionally fetch and retry settings. */
export interface AgentboxOptions extends Omit<TransportOptions, 'credential'> {
  /** `{apiKey}`, `{agentToken}` or `{nip98: signer}`; absent, only the probes answer. */
  auth?: Credential;
}

type Body<K extends RouteKey> = RouteInput<K> extends { body?: infer B } ? B : never;
type Query<K extends RouteKey> = RouteInput<K> extends { query?: infer Q } ? Q : never;
/** An agent's record, as the API answers it. */
export type Agent = NonNullable<RouteResponse<'GET /v1/agents/{id}'>['agent']>;
/** One chunk of an agent's captured output. */
export type OutputChunk = NonNullable<RouteResponse<'GET /v1/agents/{id}/output'>['chunks']>[number];
/** One event of the box's log. */
export type BoxEvent = NonNullable<RouteResponse<'GET /v1/events'>['items']>[number];
/** What following an agent's output yields: each chunk, then the agent's record once it has ended. */
export type OutputEvent = { type: 'output'; chunk: OutputChunk } | { type: 'end'; agent: Agent };

/** A pod resource as read: its bytes as text, content type and ETag (status 304 when If-None-Match held). */
export interface PodResource {
  status: number;
  contentType: string | undefined;
  etag: string | undefined;
  text: string;
}

/** A workspace file as read: status (304 when `if-none-match` held), ETag, permission bits and bytes. */
export interface WorkspaceFile {
  status: number;
  etag: string | undefined;
  mode: string | undefined;
  bytes: Uint8Array;
}

/** A workspace file opened as a stream: ETag, permission bits, size when the box sent it, and the bytes as they come. */
export interface WorkspaceFileStream {
  etag: string | undefined;
  mode: string | undefined;
  size: number | undefined;
  body: ReadableStream<Uint8Array>;
}

/** The client of one box. Every method throws {@link AgentboxError} on a refusal or a failure to reach the box. */
export class Agentbox {
  readonly #t: Transport;

  constructor(options: AgentboxOptions) {
    const { auth, ...rest } = options;
    this.#t = new Transport({ ...rest, ...(auth ? { credential: auth } : {}) });
  }

  /** Any route by its key, typed from the API's schemas (routes added later are here once the types are regenerated). */
  call<K extends RouteKey>(key: K, ...[input, options]: InputArgs<K>): Promise<RouteResponse<K>> {
    return callRoute(this.#t, key, input, options);
  }

  /** Any event-stream route by its key: its Server-Sent Events as they come. */
  stream<K extends RouteKey>(key: K, ...[input, options]: InputArgs<K>): AsyncGenerator<SseMessage> {
    return streamRoute(this.#t, key, input, options);
  }

  /**
   * A route this client's types do not know yet (a newer box): method, path template and loose
   * inputs; the JSON answer, untyped. Prefer {@link call} for every route the types list.
   */
  request(
    method: string,
    path: string,
    input: { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown } = {},
    options?: CallOptions,
  ): Promise<unknown> {
    return this.#t.json({ method, path, ...input, signal: options?.signal });
  }

  /** Liveness: answers while the process runs. */
  livez(options?: CallOptions): Promise<RouteResponse<'GET /livez'>> {
    return callRoute(this.#t, 'GET /livez', undefined, options);
  }

  /** Readiness, also when not ready (503 is an answer here, not an error). */
  ready(options?: CallOptions): Promise<RouteResponse<'GET /ready'>> {
    return callRoute(this.#t, 'GET /ready', undefined, options, [503]);
  }

  health(options?: CallOptions): Promise<RouteResponse<'GET /health'>> {
    return callRoute(this.#t, 'GET /health', undefined, options);
  }

  meta(options?: CallOptions): Promise<RouteResponse<'GET /v1/meta'>> {
    return callRoute(this.#t, 'GET /v1/meta', undefined, options);
  }

  /**
   * The box's answer to `challenge` (64 hex digits): HMAC-SHA256 of its bytes under
   * HMAC-SHA256(apiKey, "agentbox key proof v1"). Sent without the credential, and a redirect is an
   * error, never followed; compare it with your own to learn the box holds your key before you send it there.
   */
  keyProof(challenge: string, options?: CallOptions): Promise<RouteResponse<'GET /v1/auth/key-proof'>> {
    return callRoute(this.#t, 'GET /v1/auth/key-proof', { query: { challenge } }, options);
  }

  /** Agent processes: start, list, read and follow output, terminate. */
  readonly agents = {
    /** Start an agent (by command; by profile once the API offers it: the body is the route's own type). */
    spawn: async (body: Body<'POST /v1/agents'>, options?: CallOptions): Promise<Agent> =>
      need((await callRoute(this.#t, 'POST /v1/agents', { body }, options)).agent, 'POST /v1/agents'),
    list: async (options?: CallOptions): Promise<Agent[]> => (await callRoute(this.#t, 'GET /v1/agents', undefined, options)).agents ?? [],
    get: async (id: string, options?: CallOptions): Promise<Agent> =>
      need((await callRoute(this.#t, 'GET /v1/agents/{id}', { params: { id } }, options)).agent, 'GET /v1/agents/{id}'),
    /** The captured output after chunk `after` (default 0), as it is now. */
    output: async (id: string, query: { after?: number } = {}, options?: CallOptions): Promise<OutputChunk[]> =>
      (await callRoute(this.#t, 'GET /v1/agents/{id}/output', { params: { id }, query: { ...query, follow: false } }, options)).chunks ?? [],
    /** Follow the output live: each chunk, then `end` with the record; stop early by breaking the loop or aborting `signal`. */
    follow: (id: string, query: { after?: number } = {}, options?: CallOptions): AsyncGenerator<OutputEvent> => this.#follow(id, query.after ?? 0, options),
    /** SIGTERM, then SIGKILL after `graceMs` (the API's default when absent); the final record. */
    terminate: async (id: string, query: Query<'DELETE /v1/agents/{id}'> = {}, options?: CallOptions): Promise<Agent> =>
      need((await callRoute(this.#t, 'DELETE /v1/agents/{id}', { params: { id }, query }, options)).agent, 'DELETE /v1/agents/{id}'),
    /**
     * Run a command in a running agent's sandbox and working directory (as `docker exec`); the
     * command's own record (its `execOf` names the agent): read its output, follow or terminate it by its id.
     */
    exec: async (id: string, body: Body<'POST /v1/agents/{id}/exec'>, options?: CallOptions): Promise<Agent> =>
      // The route's answer schema leaves the record open (additionalProperties): it is an agent record all the same.
      need((await callRoute(this.#t, 'POST /v1/agents/{id}/exec', { params: { id }, body }, options)).agent as Agent | undefined, 'POST /v1/agents/{id}/exec'),
    /** Type `data` into a tty agent's terminal (the terminal itself is a WebSocket: GET /v1/agents/{id}/terminal). */
    input: (id: string, data: string, options?: CallOptions) => callRoute(this.#t, 'POST /v1/agents/{id}/input', { params: { id }, body: { data } }, options),
  };

  /**
   * An agent's workspace files. `path` is relative to its working directory ('' is the directory
   * itself); links are listed, never followed; writes are atomic.
   */
  readonly files = {
    /** A directory's entries (name, type, size, mode, mtime, a link's target). */
    list: (id: string, path = '', options?: CallOptions): Promise<unknown> =>
      this.#t.json({ ...filesRoute(id, path, 'GET'), query: { list: 'true' }, signal: options?.signal }),
    /** A file's bytes with its ETag and mode (status 304 and no bytes when `if-none-match` held). */
    read: async (id: string, path: string, headers: { 'if-none-match'?: string } = {}, options?: CallOptions): Promise<WorkspaceFile> => {
      const res = await this.#t.send({ ...filesRoute(id, path, 'GET'), headers, signal: options?.signal, accept: [304] });
      return {
        status: res.status,
        etag: res.headers.get('etag') ?? undefined,
        mode: res.headers.get('x-file-mode') ?? undefined,
        bytes: new Uint8Array(await res.arrayBuffer()),
      };
    },
    /** A file as a stream with its size (Content-Length), to read only the start of a large one: cancel `body` when done. */
    open: async (id: string, path: string, options?: CallOptions): Promise<WorkspaceFileStream> => {
      const res = await this.#t.send({ ...filesRoute(id, path, 'GET'), signal: options?.signal });
      if (!res.body) throw new AgentboxError('ABX_CLIENT_BAD_RESPONSE', res.status, 'the file answer has no body');
      const length = res.headers.get('content-length');
      return {
        etag: res.headers.get('etag') ?? undefined,
        mode: res.headers.get('x-file-mode') ?? undefined,
        size: length === null ? undefined : Number(length),
        body: res.body,
      };
    },
    /** Create or replace a file (parents made); `x-file-mode` sets its permission bits, `if-match`/`if-none-match: *` make it conditional. */
    write: (
      id: string,
      path: string,
      data: string | Uint8Array,
      headers: { 'x-file-mode'?: string; 'if-match'?: string; 'if-none-match'?: string } = {},
      options?: CallOptions,
    ): Promise<unknown> =>
      this.#t.json({ ...filesRoute(id, path, 'PUT'), headers, raw: { text: data, contentType: 'application/octet-stream' }, signal: options?.signal }),
    /** Remove a file, a link or an empty directory; `recursive` a whole tree (links inside removed, not followed). */
    delete: (id: string, path: string, query: { recursive?: boolean } = {}, options?: CallOptions): Promise<unknown> =>
      this.#t.json({ ...filesRoute(id, path, 'DELETE'), query: query.recursive ? { recursive: 'true' } : {}, signal: options?.signal }),
    /** A directory as a tar stream (the response body, read it as it comes). */
    tar: async (id: string, path = '', options?: CallOptions): Promise<ReadableStream<Uint8Array>> => {
      const res = await this.#t.send({ ...filesRoute(id, path, 'GET'), query: { format: 'tar' }, signal: options?.signal });
      if (!res.body) throw new AgentboxError('ABX_CLIENT_BAD_RESPONSE', res.status, 'the tar answer has no body');
      return res.body;
    },
    /** Extract a tar into a directory: every entry checked, all or nothing. */
    untar: (id: string, path: string, tar: Uint8Array, options?: CallOptions): Promise<unknown> =>
      this.#t.json({ ...filesRoute(id, path, 'POST'), raw: { text: tar, contentType: 'application/x-tar' }, signal: options?.signal }),
  };

  /**
   * Workspace snapshots: made of an agent's working directory (running or ended), listed, read
   * with what they share, compared, browsed file by file, deleted, restored in place into an ended agent. A fork is
   * `agents.spawn({ ..., fromSnapshot })`.
   */
  readonly snapshots = {
    create: (id: string, body: Body<'POST /v1/agents/{id}/snapshots'> = {}, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/agents/{id}/snapshots', { params: { id }, body }, options),
    list: (query: Query<'GET /v1/snapshots'> = {}, options?: CallOptions) => callRoute(this.#t, 'GET /v1/snapshots', { query }, options),
    get: (sid: string, options?: CallOptions) => callRoute(this.#t, 'GET /v1/snapshots/{sid}', { params: { sid } }, options),
    delete: (sid: string, options?: CallOptions) => callRoute(this.#t, 'DELETE /v1/snapshots/{sid}', { params: { sid } }, options),
    /** Replace an ended agent's working directory with snapshot `sid` (409 while it runs). */
    restore: (id: string, sid: string, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/agents/{id}/restore', { params: { id }, body: { snapshot: sid } }, options),
    /** Keep `forks` copies of snapshot `sid` built ahead (0 removes them): a fork of it then takes one by a rename, without copying. */
    warm: (sid: string, forks: number, options?: CallOptions) =>
      callRoute(this.#t, 'PUT /v1/snapshots/{sid}/warm', { params: { sid }, body: { forks } }, options),
    /** What changed from snapshot `from` to snapshot `sid`: paths added, deleted, modified (from their records; nothing read or built); a long diff a page at a time (`query.cursor`: the answer's `nextCursor`). */
    diff: (sid: string, from: string, query: { limit?: number; cursor?: string } = {}, options?: CallOptions) =>
      callRoute(this.#t, 'GET /v1/snapshots/{sid}/diff', { params: { sid }, query: { from, ...query } }, options),
    /** A directory of snapshot `sid` ('' its top), listed from the store as `files.list` lists a workspace's. */
    listFiles: (sid: string, path = '', options?: CallOptions): Promise<unknown> =>
      this.#t.json({ ...snapshotFilesRoute(sid, path), query: { list: 'true' }, signal: options?.signal }),
    /** A directory of snapshot `sid` ('' its top) as a tar stream, packed from the store (the response body, read it as it comes). */
    tar: async (sid: string, path = '', options?: CallOptions): Promise<ReadableStream<Uint8Array>> => {
      const res = await this.#t.send({ ...snapshotFilesRoute(sid, path), query: { format: 'tar' }, signal: options?.signal });
      if (!res.body) throw new AgentboxError('ABX_CLIENT_BAD_RESPONSE', res.status, 'the tar answer has no body');
      return res.body;
    },
    /** A file of snapshot `sid`, read from the store: its bytes, ETag and mode (status 304 and no bytes when `if-none-match` held). */
    readFile: async (sid: string, path: string, headers: { 'if-none-match'?: string } = {}, options?: CallOptions): Promise<WorkspaceFile> => {
      const res = await this.#t.send({ ...snapshotFilesRoute(sid, path), headers, signal: options?.signal, accept: [304] });
      return {
        status: res.status,
        etag: res.headers.get('etag') ?? undefined,
        mode: res.headers.get('x-file-mode') ?? undefined,
        bytes: new Uint8Array(await res.arrayBuffer()),
      };
    },
  };

  /** Requests a supervised agent's `ask` holds, and the operator's decisions on them. */
  readonly approvals = {
    list: (options?: CallOptions) => callRoute(this.#t, 'GET /v1/approvals', undefined, options),
    get: (id: string, options?: CallOptions) => callRoute(this.#t, 'GET /v1/approvals/{id}', { params: { id } }, options),
    /** Approve or deny; `signed` carries an operator's signed statement (a Nostr event of kind 4751), else the decision is recorded unsigned. */
    decide: (id: string, body: Body<'POST /v1/approvals/{id}'>, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/approvals/{id}', { params: { id }, body }, options),
    /** The queue live: a snapshot, then each request and decision as it happens, until aborted. */
    stream: (options?: CallOptions): AsyncGenerator<SseMessage> => streamRoute(this.#t, 'GET /v1/approvals/stream', undefined, options),
  };

  /**
   * Agents waiting for a person: the operator lists and answers (a prompt's answer is typed into
   * the agent's terminal); an agent, with its own token, asks, awaits and takes back its own.
   */
  readonly inputRequests = {
    /** The open requests, oldest first. */
    list: (options?: CallOptions) => callRoute(this.#t, 'GET /v1/input-requests', undefined, options),
    get: (id: string, options?: CallOptions) => callRoute(this.#t, 'GET /v1/input-requests/{id}', { params: { id } }, options),
    /** Answer: `text`, then Enter unless `enter: false`. */
    answer: (id: string, body: Body<'POST /v1/input-requests/{id}'>, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/input-requests/{id}', { params: { id }, body }, options),
    /** An agent asks for input (agent `agentId` is the caller itself when it uses its token). */
    raise: (agentId: string, prompt: string, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/agents/{id}/input-requests', { params: { id: agentId }, body: { prompt } }, options),
    /** An agent's own request, with the answer's text once answered; `wait` seconds (at most 60) while it is open. */
    own: (agentId: string, requestId: string, query: Query<'GET /v1/agents/{id}/input-requests/{requestId}'> = {}, options?: CallOptions) =>
      callRoute(this.#t, 'GET /v1/agents/{id}/input-requests/{requestId}', { params: { id: agentId, requestId }, query }, options),
    /** An agent takes back its own open request. */
    withdraw: (agentId: string, requestId: string, options?: CallOptions) =>
      callRoute(this.#t, 'DELETE /v1/agents/{id}/input-requests/{requestId}', { params: { id: agentId, requestId } }, options),
  };

  /** Task receipts. */
  readonly beads = {
    create: (body: Body<'POST /v1/beads'>, options?: CallOptions) => callRoute(this.#t, 'POST /v1/beads', { body }, options),
    list: (query: Query<'GET /v1/beads'> = {}, options?: CallOptions) => callRoute(this.#t, 'GET /v1/beads', { query }, options),
    ready: (query: Query<'GET /v1/beads/ready'> = {}, options?: CallOptions) => callRoute(this.#t, 'GET /v1/beads/ready', { query }, options),
    get: (id: string, options?: CallOptions) => callRoute(this.#t, 'GET /v1/beads/{id}', { params: { id } }, options),
    claim: (id: string, claimant: string, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/beads/{id}/claim', { params: { id }, body: { claimant } }, options),
    close: (id: string, body: Body<'POST /v1/beads/{id}/close'>, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/beads/{id}/close', { params: { id }, body }, options),
  };

  /** Vector memory, by namespace. */
  readonly memory = {
    put: (namespace: string, body: Body<'POST /v1/memory/{namespace}'>, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/memory/{namespace}', { params: { namespace }, body }, options),
    list: (namespace: string, query: Query<'GET /v1/memory/{namespace}'> = {}, options?: CallOptions) =>
      callRoute(this.#t, 'GET /v1/memory/{namespace}', { params: { namespace }, query }, options),
    search: (namespace: string, body: Body<'POST /v1/memory/{namespace}/search'>, options?: CallOptions) =>
      callRoute(this.#t, 'POST /v1/memory/{namespace}/search', { params: { namespace }, body }, options),
    get: (namespace: string, id: string, options?: CallOptions) =>
      callRoute(this.#t, 'GET /v1/memory/{namespace}/{id}', { params: { namespace, id } }, options),
    delete: (namespace: string, id: string, options?: CallOptions) =>
      callRoute(this.#t, 'DELETE /v1/memory/{namespace}/{id}', { params: { namespace, id } }, options),
  };

  /** The box's event log: append, query, follow live, and its transparency-log checkpoint and proofs. */
  readonly events = {
    append: (body: Body<'POST /v1/events'>, options?: CallOptions) => callRoute(this.#t, 'POST /v1/events', { body }, options),
    query: (query: Query<'GET /v1/events'> = {}, options?: CallOptions) => callRoute(this.#t, 'GET /v1/events', { query }, options),
    /** Live events (after replaying from `since`) until aborted or the box closes the stream. */
    stream: (query: Query<'GET /v1/events/stream'> = {}, options?: CallOptions): AsyncGenerator<BoxEvent> => this.#events(query, options),
    checkpoint: (options?: CallOptions) => callRoute(this.#t, 'GET /v1/events/checkpoint', undefined, options),
    /** Sign a checkpoint of the log as it is now (none when the latest covers every entry); the latest signed note. */
    signCheckpoint: (options?: CallOptions) => callRoute(this.#t, 'POST /v1/events/checkpoint', undefined, options),
    inclusionProof: (query: Query<'GET /v1/events/proof/inclusion'>, options?: CallOptions) =>
      callRoute(this.#t, 'GET /v1/events/proof/inclusion', { query }, options),
    consistencyProof: (query: Query<'GET /v1/events/proof/consistency'>, options?: CallOptions) =>
      callRoute(this.#t, 'GET /v1/events/proof/consistency', { query }, options),
  };

  /** The egress allowlist the proxy enforces. */
  readonly egress = {
    get: (options?: CallOptions) => callRoute(this.#t, 'GET /v1/sandbox/egress', undefined, options),
    put: (body: Body<'PUT /v1/sandbox/egress'>, options?: CallOptions) => callRoute(this.#t, 'PUT /v1/sandbox/egress', { body }, options),
  };

  /** Pod storage: resources of any content type, conditional by ETag. */
  readonly pods = {
    get: async (path: string, headers: { 'if-none-match'?: string } = {}, options?: CallOptions): Promise<PodResource> => {
      const res = await this.#t.send({ method: 'GET', path: '/v1/pods/{*}', params: { '*': path }, headers, signal: options?.signal, accept: [304] });
      return {
        status: res.status,
        contentType: res.headers.get('content-type') ?? undefined,
        etag: res.headers.get('etag') ?? undefined,
        text: await res.text(),
      };
    },
    put: async (
      path: string,
      text: string,
      contentType: string,
      headers: { 'if-match'?: string; 'if-none-match'?: string } = {},
      options?: CallOptions,
    ): Promise<RouteResponse<'PUT /v1/pods/{*}'>> =>
      this.#t.json({ method: 'PUT', path: '/v1/pods/{*}', params: { '*': path }, headers, raw: { text, contentType }, signal: options?.signal }),
    delete: async (path: string, headers: { 'if-match'?: string } = {}, options?: CallOptions): Promise<void> => {
      await this.#t.send({ method: 'DELETE', path: '/v1/pods/{*}', params: { '*': path }, headers, signal: options?.signal });
    },
  };

  async *#follow(id: string, after: number, options: CallOptions | undefined): AsyncGenerator<OutputEvent> {
    for await (const message of streamRoute(this.#t, 'GET /v1/agents/{id}/output', { params: { id }, query: { after, follow: true } }, options)) {
      if (message.event === 'output') yield { type: 'output', chunk: JSON.parse(message.data) as OutputChunk };
      else if (message.event === 'end') {
        yield { type: 'end', agent: (JSON.parse(message.data) as { agent: Agent }).agent };
        return;
      }
    }
  }

  async *#events(query: Query<'GET /v1/events/stream'>, options: CallOptions | undefined): AsyncGenerator<BoxEvent> {
    for await (const message of streamRoute(this.#t, 'GET /v1/events/stream', { query }, options)) yield JSON.parse(message.data) as BoxEvent;
  }
}

/** The route of an agent's workspace path: the directory itself, or a path below it. */
function filesRoute(id: string, path: string, method: string): { method: string; path: string; params: Record<string, string> } {
  const below = path.replace(/^\/+/, '');
  return below === '' ? { method, path: '/v1/agents/{id}/files', params: { id } } : { method, path: '/v1/agents/{id}/files/{*}', params: { id, '*': below } };
}

/** The route of a path in a snapshot: its top, or a path below it. */
function snapshotFilesRoute(sid: string, path: string): { method: string; path: string; params: Record<string, string> } {
  const below = path.replace(/^\/+/, '');
  return below === ''
    ? { method: 'GET', path: '/v1/snapshots/{sid}/files', params: { sid } }
    : { method: 'GET', path: '/v1/snapshots/{sid}/files/{*}', params: { sid, '*': below } };
}

function need<T>(value: T | undefined, key: string): T {
  if (value === undefined) throw new AgentboxError('ABX_CLIENT_BAD_RESPONSE', 200, `${key}: the answer lacks its record`);
  return value;
}

export type { Routes, RouteKey };
