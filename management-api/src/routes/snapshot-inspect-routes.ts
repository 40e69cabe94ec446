// /v1/snapshots/:sid/diff and /v1/snapshots/:sid/files/*: what changed between two snapshots, and a snapshot's files and directories (as tars) read where they are stored, without forking it.
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import '../app-state.js';
import { afterNameCursor } from '../adapters/cursor-pager.js';
import { ApiError, errorResponses } from '../errors.js';
import { parseFilePath } from '../workspace-files/file-path.js';
import { MAX_DIFF_CHANGES } from '../snapshots/snapshot-diff.js';
import { browseSnapshot, diffSnapshots, openSnapshotFile, packSnapshotDir } from '../snapshots/snapshot-inspect.js';
import { TarDownloads } from '../workspace-files/tar-limits.js';
import { readQuerystring, readResponses } from './files-routes.js';
import { replyWithTar } from './tar-reply.js';
import { snapshotIdSchema, type SnapshotEntry } from '../snapshots/snapshot-manifest.js';
import { filePathOf } from '../http/file-url-path.js';

const errors = errorResponses(400, 401, 403, 404, 409, 429, 503);
/** A page of a diff carries the last path listed; snapshots never change, so the next page is the changes after it. */
const diffCursor = afterNameCursor();
const sidParams = { type: 'object', additionalProperties: false, required: ['sid'], properties: { sid: snapshotIdSchema } } as const;
const changeSchema = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    change: { type: 'string', enum: ['added', 'deleted', 'modified'] },
    type: { type: 'string', enum: ['file', 'dir', 'symlink'], description: 'In the later snapshot (in the earlier one for a deletion)' },
    what: {
      type: 'array',
      items: { type: 'string', enum: ['type', 'content', 'mode', 'target'] },
      description:
        "A modification's aspects: content (a file's bytes), mode (permission bits), target (a link's), type. A modification time alone is no change",
    },
    size: { type: 'integer', description: "A file's size (in the earlier snapshot for a deletion)" },
    sizeBefore: { type: 'integer', description: "A modified file's size in the earlier snapshot" },
  },
} as const;

/** `?list`, `?list=1`: present and not false. */
const on = (v: string | undefined): boolean => v !== undefined && v !== 'false' && v !== '0';

/** A snapshot entry as the workspace files API lists one. */
function listed(e: SnapshotEntry) {
  const name = e.path.slice(e.path.lastIndexOf('/') + 1);
  const mtime = new Date(Number(BigInt(e.mtimeNs) / 1_000_000n)).toISOString();
  if (e.type === 'symlink') return { name, type: e.type, size: Buffer.byteLength(e.target), mode: '0777', mtime, target: e.target };
  return { name, type: e.type, size: e.type === 'file' ? e.size : 0, mode: modeString(e.mode), mtime };
}

const modeString = (mode: number): string => `0${(mode & 0o7777).toString(8).padStart(3, '0')}`;

/** Operator only, as every read of snapshots is: a snapshot may hold another agent's files. */
export function registerSnapshotInspectRoutes(app: FastifyInstance): void {
  const store = () => app.agentbox.snapshots;
  // A snapshot's tars at once are bounded as an agent's are (per snapshot, and in all).
  const tarDownloads = new TarDownloads();

  app.get<{ Params: { sid: string }; Querystring: { from: string; limit?: number; cursor?: string } }>(
    '/v1/snapshots/:sid/diff',
    {
      config: { agent: 'deny' },
      schema: {
        summary:
          'What changed from snapshot ?from= to this one, from their entries alone (no file is read, nothing is built): paths added, deleted and modified, in path order, with counts of every change',
        tags: ['snapshots'],
        params: sidParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['from'],
          properties: {
            from: { ...snapshotIdSchema, description: 'The earlier snapshot (any agent\u2019s)' },
            limit: { type: 'integer', minimum: 1, maximum: MAX_DIFF_CHANGES, default: MAX_DIFF_CHANGES, description: 'The most changes listed' },
            cursor: { type: 'string', maxLength: 16_384, description: 'The nextCursor of the page before: the changes after it' },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              from: { type: 'string' },
              to: { type: 'string' },
              counts: { type: 'object', properties: { added: { type: 'integer' }, deleted: { type: 'integer' }, modified: { type: 'integer' } } },
              addedBytes: { type: 'integer', description: 'Bytes of the files added' },
              deletedBytes: { type: 'integer', description: 'Bytes of the files deleted' },
              changes: { type: 'array', items: changeSchema },
              truncated: { type: 'boolean', description: 'More changes after those listed (see counts)' },
              nextCursor: { type: 'string', description: 'When truncated: pass as ?cursor= for the next page' },
            },
          },
          ...errors,
        },
      },
    },
    async (request) => {
      const { sid } = request.params;
      const { from, limit = MAX_DIFF_CHANGES, cursor } = request.query;
      // An empty cursor is the first page, as none is (as the other listings' cursors).
      const afterPath = cursor ? diffCursor.decode(cursor) : undefined;
      if (cursor && afterPath === undefined)
        throw new ApiError('ABX_ERR_VALIDATION', 'cursor is not one a diff answered with: pass the nextCursor of the page before, unchanged');
      const diff = await diffSnapshots(store(), from, sid, limit, afterPath);
      const last = diff.changes.at(-1);
      return { from, to: sid, ...diff, ...(diff.truncated && last ? { nextCursor: diffCursor.encode(last.path) } : {}) };
    },
  );

  for (const url of ['/v1/snapshots/:sid/files', '/v1/snapshots/:sid/files/*']) {
    app.get<{ Params: { sid: string; '*'?: string }; Querystring: { list?: string; format?: string }; Headers: { 'if-none-match'?: string } }>(
      url,
      {
        config: { agent: 'deny' },
        schema: {
          summary:
            "A file of a snapshot, read from the store (its bytes, ETag, Last-Modified, X-File-Mode); a directory's entries with ?list, or the directory as a tar stream with ?format=tar; no agent is forked. Links are listed (and packed) as links, never followed",
          tags: ['snapshots'],
          params: {
            type: 'object',
            required: ['sid'],
            properties: {
              sid: snapshotIdSchema,
              '*': {
                type: 'string',
                maxLength: 16_384,
                description: 'The path relative to the working directory the snapshot was taken of; empty for that directory',
              },
            },
          },
          querystring: readQuerystring,
          response: { ...readResponses, ...errors },
        },
      },
      async (request, reply) => {
        const segments = parseFilePath(filePathOf(request));
        const path = segments.join('/');
        const { sid } = request.params;
        if (request.query.format === 'tar') {
          const ended = tarDownloads.admit(sid, `snapshot ${sid}`);
          let packing: Awaited<ReturnType<typeof packSnapshotDir>>;
          try {
            packing = await packSnapshotDir(store(), sid, path, { entries: 0, skipped: 0 });
          } catch (err) {
            ended();
            throw err;
          }
          void packing.released.then(ended);
          // The directory's own mode: the tar holds only what is below it, and a copy made of it keeps it.
          void reply.header('x-file-mode', modeString(packing.mode));
          return replyWithTar(reply, packing, segments.at(-1) ?? sid);
        }
        if (on(request.query.list)) {
          const found = await browseSnapshot(store(), sid, path, true);
          if (found.entry.type !== 'dir') throw new ApiError('ABX_ERR_FILE_TYPE', `"${path}" in snapshot ${sid} is not a directory`);
          return reply.send({ path, entries: (found.children ?? []).map(listed), truncated: found.truncated === true });
        }
        const { entry, tag, body } = await openSnapshotFile(store(), sid, path);
        if (filePathOf(request).endsWith('/')) {
          body.destroy();
          throw new ApiError('ABX_ERR_FILE_TYPE', `"${path}" in snapshot ${sid} is not a directory`);
        }
        const etag = `"${tag}"`;
        void reply
          .header('etag', etag)
          .header('last-modified', new Date(Number(BigInt(entry.mtimeNs) / 1_000_000n)).toUTCString())
          .header('x-file-mode', modeString(entry.mode))
          .type('application/octet-stream');
        if (request.headers['if-none-match']?.split(',').some((t) => t.trim() === etag) === true) {
          body.destroy();
          return reply.code(304).send();
        }
        return reply.header('content-length', entry.size).send(body);
      },
    );
  }
}
