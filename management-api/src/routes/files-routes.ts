// /v1/agents/:id/files/*: an agent's workspace files — read, list, write atomically, delete, and tar streams both ways.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { ApiError, errorResponses } from '../errors.js';
import { openWorkspace, type Workspace } from '../workspace-files/agent-workspace.js';
import { notADirectory, walkToDir } from '../workspace-files/dir-fd.js';
import { removePath } from '../workspace-files/file-delete.js';
import { parseFilePath } from '../workspace-files/file-path.js';
import { etagOf, listDir, modeString, openRegular } from '../workspace-files/file-read.js';
import { writeFileAtomic } from '../workspace-files/file-write.js';
import { exactLength } from '../workspace-files/exact-length.js';
import { extractTar } from '../workspace-files/tar-extract.js';
import { TarDownloads, uploadLimits } from '../workspace-files/tar-limits.js';
import { packTar } from '../workspace-files/tar-pack.js';
import { FILE_SHRANK } from '../workspace-files/tar-writer.js';
import { prepaid, WriteLedger, type WriteCharge } from '../workspace-files/write-ledger.js';
import { TOO_DEEP } from '../workspace-files/tree-depth.js';
import { TOO_SPARSE } from '../workspace-files/hole-allowance.js';
import { idParams } from './agents-routes.js';
import { replyWithTar } from './tar-reply.js';
import type { MutationLimits } from './events-routes.js';
import { filePathOf } from '../http/file-url-path.js';

const errors = errorResponses(400, 401, 403, 404, 409, 412, 413, 429, 503, 507);
const params = {
  type: 'object',
  required: ['id'],
  properties: {
    id: idParams.properties.id,
    // Longer than a path may be, so that parseFilePath, not the schema, refuses a long one: with its own error and reason.
    '*': { type: 'string', maxLength: 16_384, description: "The path relative to the agent's working directory; empty for the directory itself" },
  },
} as const;
const flag = { type: 'string', maxLength: 8 } as const;
const entrySchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    type: { type: 'string', enum: ['file', 'dir', 'symlink', 'other'] },
    size: { type: 'integer' },
    mode: { type: 'string', description: 'Permission bits in octal, e.g. 0644' },
    mtime: { type: 'string' },
    target: { type: 'string', description: "A symbolic link's target, as data (links are never followed)" },
  },
} as const;
/** The query of a read: `?list` (a listing), `?format=tar` (a directory's tar); the snapshots' files take the same. */
export const readQuerystring = { type: 'object', additionalProperties: false, properties: { list: flag, format: { type: 'string', enum: ['tar'] } } } as const;
/** What a read answers: a file's bytes, a tar, or a listing; the snapshots' files answer the same. */
export const readResponses = {
  200: {
    description: 'The file bytes (application/octet-stream), a tar stream (application/x-tar), or with ?list this JSON',
    type: 'object',
    properties: { path: { type: 'string' }, entries: { type: 'array', items: entrySchema }, truncated: { type: 'boolean' } },
  },
  304: { description: 'Not modified (If-None-Match)', type: 'null' },
} as const;
const writtenSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, created: { type: 'boolean' }, size: { type: 'integer' }, etag: { type: 'string' } },
} as const;
const extractedSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, files: { type: 'integer' }, dirs: { type: 'integer' }, symlinks: { type: 'integer' }, bytes: { type: 'integer' } },
} as const;

interface FilesRoute {
  Params: { id: string; '*'?: string };
  Querystring: { list?: string; format?: string; recursive?: string };
  Headers: { 'if-match'?: string; 'if-none-match'?: string; 'x-file-mode'?: string };
}

/** `?list`, `?list=1`, `?recursive=true`: present and not false. */
const on = (v: string | undefined): boolean => v !== undefined && v !== 'false' && v !== '0';

/**
 * Register the files routes in a scope of their own: bodies arrive as raw streams (a PUT's bytes,
 * a POST's tar), never buffered or parsed, which must not change how the other routes parse JSON.
 * The bearer key and a dashboard session reach every agent's files; an agent token its own only
 * (`agentSelf`). An ended agent's files are served as long as the orchestrator keeps its record.
 */
export function registerFileRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const self = { agent: agentScopes.agentSelf };
  const mutation = { config: { ...self, rateLimit: { max: limits.max, timeWindow: limits.timeWindowMs } } };

  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    // A write refused midway (a limit, the budget, a bad tar) answers before its body was read to
    // the end. Node reads no further on a request whose body was begun, so the rest would sit
    // unread and the connection, kept alive, would never parse the client's next request (it hung
    // until the keep-alive timeout). The rest is read and dropped as the answer goes out.
    scope.addHook('onSend', async (request, _reply, payload) => {
      const body = request.body;
      if (body instanceof Readable && !body.readableEnded && !body.destroyed) body.resume();
      return payload;
    });

    const tarDownloads = new TarDownloads();
    const ledger = new WriteLedger();
    for (const url of ['/v1/agents/:id/files', '/v1/agents/:id/files/*']) {
      scope.get<FilesRoute>(
        url,
        {
          config: self,
          schema: {
            summary:
              "A file of the agent's working directory (its bytes, ETag, Last-Modified, X-File-Mode); a directory with ?list (JSON entries) or ?format=tar (a tar stream). Symbolic links are listed, never followed: GET of one is 409",
            tags: ['files'],
            params,
            querystring: readQuerystring,
            response: { ...readResponses, ...errors },
          },
        },
        async (request, reply) => {
          const segments = parseFilePath(filePathOf(request));
          return withWorkspace(
            app,
            request,
            async (ws, agent) => {
              if (on(request.query.list)) {
                const { entries, truncated } = await listDir(ws, segments);
                return reply
                  .type('application/json; charset=utf-8')
                  .serializer(JSON.stringify)
                  .send({ path: segments.join('/'), entries, truncated });
              }
              if (request.query.format === 'tar') return sendTar(ws, segments, reply, tarDownloads.admit(request.params.id), agent.limits?.disk_bytes);
              return sendFile(ws, segments, request, reply, filePathOf(request).endsWith('/'));
            },
            request.query.format === 'tar' || !on(request.query.list),
          );
        },
      );

      scope.put<FilesRoute>(
        url,
        {
          ...mutation,
          schema: {
            summary:
              'Create or replace a file with the request body, atomically (a temporary file renamed over the name); missing parent directories are made. X-File-Mode sets the permission bits (default 0644; setuid, setgid and sticky never set); If-None-Match: * creates only, If-Match replaces only that ETag',
            tags: ['files'],
            params,
            headers: {
              type: 'object',
              properties: {
                'x-file-mode': { type: 'string', pattern: '^0?[0-7]{3,4}$' },
                'if-match': { type: 'string', maxLength: 1024 },
                'if-none-match': { type: 'string', maxLength: 1024 },
              },
            },
            response: { 200: writtenSchema, 201: writtenSchema, ...errors },
          },
        },
        async (request, reply) => {
          const segments = parseFilePath(filePathOf(request));
          if (filePathOf(request).endsWith('/'))
            throw new ApiError(
              'ABX_ERR_FILE_PATH',
              `workspace path "${filePathOf(request)}" ends with "/", which names a directory: a PUT writes a file (drop the "/")`,
            );
          const agent = await admitWrite(app, request);
          const charge = chargeOf(ledger, agent);
          const { fileBytes, fileName, totalBytes, totalName } = uploadLimits(charge.left);
          const max = Math.min(fileBytes, totalBytes);
          const limitName = max === fileBytes ? fileName : totalName;
          const declared = declaredLength(request);
          if (declared > max) throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `the body of ${declared} bytes is over ${limitName} (${max} bytes)`);
          // A body of known length takes its bytes at once: of several at once, those that fit are written whole, the rest refused now.
          const paid = Number.isSafeInteger(declared) ? prepaid(charge.charge, declared) : charge.charge;
          if (!paid)
            throw new ApiError(
              'ABX_ERR_FILE_TOO_LARGE',
              `the body of ${declared} bytes is over what the agent's disk budget (sandbox.limits.disk) has left, with the writes going on beside it`,
            );
          const { 'if-match': ifMatch, 'if-none-match': ifNoneMatch, 'x-file-mode': mode } = request.headers;
          const written = await charged(paid, () =>
            withWorkspace(app, request, (ws) =>
              writeFileAtomic(ws, segments, bodyOf(request), {
                maxBytes: max,
                limitName,
                charge: paid,
                parents: true,
                ...(mode !== undefined ? { mode: Number.parseInt(mode, 8) } : {}),
                ...(ifMatch !== undefined ? { ifMatch } : {}),
                ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
              }),
            ),
          );
          void reply.code(written.created ? 201 : 200).header('etag', written.etag);
          return { path: segments.join('/'), created: written.created, size: written.size, etag: written.etag };
        },
      );

      scope.post<FilesRoute>(
        url,
        {
          ...mutation,
          schema: {
            summary:
              'Extract a tar (the request body) into a directory, made when missing (with X-File-Mode, its permission bits, the owner keeping every right): files, directories and links that stay inside the workspace; hard links, devices, FIFOs, absolute or .. names refused. All or nothing: extracted into a staging directory, moved in once the whole tar was accepted',
            tags: ['files'],
            params,
            headers: { type: 'object', properties: { 'x-file-mode': { type: 'string', pattern: '^0?[0-7]{3,4}$' } } },
            response: { 200: extractedSchema, ...errors },
          },
        },
        async (request) => {
          const segments = parseFilePath(filePathOf(request));
          const mode = request.headers['x-file-mode'];
          const dirMode = mode !== undefined ? Number.parseInt(mode, 8) : undefined;
          const agent = await admitWrite(app, request);
          const charge = chargeOf(ledger, agent);
          const report = await charged(charge.charge, () =>
            withWorkspace(app, request, (ws) => extractTar(ws, segments, bodyOf(request), uploadLimits(charge.left), charge.charge, dirMode)),
          );
          return { path: segments.join('/'), ...report };
        },
      );

      scope.delete<FilesRoute>(
        url,
        {
          ...mutation,
          schema: {
            summary:
              'Delete a file, a symbolic link (never its target) or an empty directory; with ?recursive a directory and everything in it (links inside are removed, not followed)',
            tags: ['files'],
            params,
            querystring: { type: 'object', additionalProperties: false, properties: { recursive: flag } },
            response: { 200: { type: 'object', properties: { path: { type: 'string' }, removed: { type: 'integer' } } }, ...errors },
          },
        },
        async (request) => {
          const segments = parseFilePath(filePathOf(request));
          const { removed } = await withWorkspace(app, request, (ws) => removePath(ws, segments, on(request.query.recursive)));
          return { path: segments.join('/'), removed };
        },
      );
    }
  });
}

/** The agent's record: unknown ids are 404 (the orchestrator's), an agent without a working directory 409. */
async function agentOf(app: FastifyInstance, id: string): Promise<AgentProcess & { cwd: string }> {
  const agent = await app.agentbox.resolver.slot('orchestrator').status(id);
  if (typeof agent.cwd !== 'string')
    throw new ApiError('ABX_ERR_CONFLICT', `agent ${id} has no working directory this box can reach (its orchestrator does not report one)`);
  return agent as AgentProcess & { cwd: string };
}

/** Run `work` on the agent's workspace, closed afterwards unless the answer streams from it (`streams`: closed when the reply ends). */
async function withWorkspace<T>(
  app: FastifyInstance,
  request: FastifyRequest<FilesRoute>,
  work: (ws: Workspace, agent: AgentProcess) => Promise<T>,
  streams = false,
): Promise<T> {
  const agent = await agentOf(app, request.params.id);
  // The writes record their temporaries, so that one a killed API left is swept at the next start.
  const ws = await openWorkspace(app.agentbox.paths.workspaceDir, agent.cwd, app.agentbox.workspaceTemporaries.records);
  if (!streams) {
    try {
      return await work(ws, agent);
    } catch (err) {
      throw asClientError(err, filePathOf(request));
    } finally {
      await ws.close();
    }
  }
  try {
    return await work(ws, agent);
  } catch (err) {
    await ws.close();
    throw asClientError(err, filePathOf(request));
  }
}

/** A file system error of a request, as the client's where it is theirs to act on (every other error goes on as it was: a 500). */
const asClientError = (err: unknown, shown: string): unknown => closedEntry(diskFull(changedMeanwhile(err, shown), shown), shown);

/** Errors of an entry whose mode (or flag, or volume) refuses the box, which works as the agent's owner: on a box that is not root, its own uid. */
const CLOSED = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * An entry on the path the agent closed to its owner (chmod 000 or 0555, as Go's module cache
 * leaves its directories), an immutable file, or a read-only volume: 409 naming the fix, as the
 * box may change it only through the agent's own rights. Root passes modes, so a root box meets
 * this only for flags and read-only volumes.
 */
function closedEntry(err: unknown, shown: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (err instanceof ApiError || code === undefined || !CLOSED.has(code)) return err;
  return new ApiError(
    'ABX_ERR_CONFLICT',
    `"${shown}" or a directory above it is closed to the agent's own user (${code}: its mode, as chmod left it, an immutable flag or a read-only volume): nothing was changed; open it up (for example "chmod -R u+rwX" run in the agent) and retry`,
  );
}

/** Errors of a path that was there when checked and is not when used: the agent moved, removed or replaced something on it. */
const RACED = new Set(['ENOENT', 'ENOTDIR', 'EISDIR', 'ENOTEMPTY', 'EEXIST', 'ELOOP']);

/**
 * A file system error the checks did not foresee, as the client's: every entry is checked before
 * use, so one of these means the workspace changed between the check and the use (a running agent
 * renaming or swapping a directory). 409, to retry; the error's message is left out, as it names
 * the box's own paths (/proc/self/fd/...). Anything else goes on as it was.
 */
function changedMeanwhile(err: unknown, shown: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (err instanceof ApiError || code === undefined || !RACED.has(code)) return err;
  return new ApiError('ABX_ERR_CONFLICT', `"${shown}" changed in the workspace while the request ran (${code}): look at what is there, and retry`);
}

/** The body's length as its Content-Length declares it; NaN when it declares none. */
const declaredLength = (request: FastifyRequest<FilesRoute>): number => Number(request.headers['content-length'] ?? Number.NaN);

/**
 * A write that ran out of space midway (a body of unknown length, writes at once, a volume filled
 * by someone else): 507, as a write refused up front is. What it wrote is gone by then: a PUT's
 * temporary and a tar's staging directory are removed on every failure.
 */
function diskFull(err: unknown, shown: string): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (err instanceof ApiError || (code !== 'ENOSPC' && code !== 'EDQUOT')) return err;
  return new ApiError(
    'ABX_ERR_DISK_LOW',
    `the box's disk ran out of space while writing "${shown}" (${code}): nothing of this write was kept; free space on the workspace volume and retry`,
  );
}

/**
 * Before a write: the box has disk to spare, and room for the body when its length is declared
 * (the workspace volume's free space above resources.min_free_disk, as a fork's build is held to),
 * then the agent's record (for its budget). A body of unknown length, or writes at once that
 * together pass the room, meet a full disk as ENOSPC instead (diskFull).
 */
async function admitWrite(app: FastifyInstance, request: FastifyRequest<FilesRoute>): Promise<AgentProcess> {
  const disk = app.agentbox.probes.disk;
  await disk.admit('nothing is written to a workspace');
  const declared = declaredLength(request);
  if (Number.isSafeInteger(declared)) {
    // The statfs admit() has just made: the same figure, not another call.
    const room = disk.lastHeadroom('workspace');
    if (declared > room)
      throw new ApiError(
        'ABX_ERR_DISK_LOW',
        `the body of ${declared} bytes is more than the workspace volume may still take (${room} bytes above resources.min_free_disk): nothing was written; free space there and retry`,
      );
  }
  return app.agentbox.resolver.slot('orchestrator').status(request.params.id);
}

/**
 * What the agent's disk budget has left for a write (undefined without a budget): the budget less
 * its last walk's figure less what the API wrote that the walk may not have seen (write-ledger.ts),
 * and the charge the write takes its bytes from.
 */
function chargeOf(ledger: WriteLedger, agent: AgentProcess): { left: number | undefined; charge: WriteCharge } {
  const budget = agent.limits?.disk_bytes;
  if (!budget) return { left: undefined, charge: ledger.begin(agent.id, undefined, undefined) };
  const measured = agent.usage?.disk_measured_at;
  const measuredAtMs = measured === undefined ? undefined : Date.parse(measured);
  const room = Math.max(0, budget - (agent.usage?.disk_bytes ?? 0));
  return { left: Math.max(0, room - ledger.unseen(agent.id, measuredAtMs)), charge: ledger.begin(agent.id, room, measuredAtMs) };
}

/** Run a write under its charge: kept when it succeeds, dropped when it fails (what it wrote was removed). */
async function charged<T>(charge: WriteCharge, write: () => Promise<T>): Promise<T> {
  try {
    const value = await write();
    charge.end(true);
    return value;
  } catch (err) {
    charge.end(false);
    throw err;
  }
}

function bodyOf(request: FastifyRequest): Readable {
  const body = request.body;
  if (body instanceof Readable) return body;
  if (body === undefined || body === null) return Readable.from([]);
  return Readable.from([Buffer.isBuffer(body) ? body : Buffer.from(String(body))]);
}

/** A regular file's bytes, streamed from its descriptor; the workspace closes when the reply ends. */
async function sendFile(
  ws: Workspace,
  segments: readonly string[],
  request: FastifyRequest<FilesRoute>,
  reply: FastifyReply,
  /** The path ended with "/": it names a directory, and a file there is not one. */
  asDirectory: boolean,
): Promise<FastifyReply> {
  const { handle, stat } = await openRegular(ws, segments);
  if (asDirectory) {
    await handle.close();
    throw notADirectory(segments.join('/'));
  }
  const etag = etagOf(stat);
  void reply
    .header('etag', etag)
    .header('last-modified', new Date(Number(stat.mtimeMs)).toUTCString())
    .header('x-file-mode', modeString(stat))
    .type('application/octet-stream');
  const notModified = request.headers['if-none-match']?.split(',').some((t) => t.trim() === etag) === true;
  const size = Number(stat.size);
  if (notModified || size === 0) {
    await handle.close();
    await ws.close();
    return notModified ? reply.code(304).send() : reply.header('content-length', 0).send(Buffer.alloc(0));
  }
  const stream = handle.createReadStream({ start: 0, end: size - 1, highWaterMark: 1 << 20 });
  stream.once('close', () => void ws.close());
  return reply.header('content-length', size).send(exactLength(stream, size, segments.join('/')));
}

/**
 * A directory as a tar stream; `ended` is called once the worker is done with it. `maxHoleBytes`:
 * the agent's disk budget, the holes of sparse files the pack reads through before it fails.
 */
async function sendTar(ws: Workspace, segments: readonly string[], reply: FastifyReply, ended: () => void, maxHoleBytes?: number): Promise<FastifyReply> {
  const dir = await walkToDir(ws.root, segments).catch((err: unknown) => {
    ended();
    throw err;
  });
  const report = { entries: 0, skipped: 0 };
  let packing: ReturnType<typeof packTar>;
  try {
    // The directory's own mode: the tar holds only what is below it, and a copy made of it keeps it.
    void reply.header('x-file-mode', modeString(await dir.stat({ bigint: true })));
    packing = packTar(ws, dir, report, maxHoleBytes);
  } catch (err) {
    ended();
    if (dir !== ws.root) await dir.close();
    throw err;
  }
  // Closed once the worker is done with them (not when the stream closes: its walk may be a step behind).
  void packing.released.then(async () => {
    ended();
    if (dir !== ws.root) await dir.close();
    await ws.close();
  });
  return replyWithTar(reply, packing, segments.at(-1) ?? 'workspace', (err) =>
    [TOO_DEEP, TOO_SPARSE].includes(err.code ?? '')
      ? new ApiError('ABX_ERR_FILE_TOO_LARGE', err.message)
      : err.code === FILE_SHRANK
        ? new ApiError('ABX_ERR_CONFLICT', err.message)
        : err,
  );
}
