// The directories a tar upload makes count as what they cost: each to the entry limit (named or made for a path) and 4 KiB to the agent's disk budget.
import t from 'tap';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { MAX_TAR_ENTRIES } from '../../management-api/src/workspace-files/tar-limits.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { ustarHeader } from '../helpers/ustar.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

const spawn = async (name: string, disk?: string): Promise<string> => {
  const res = await box.api('/v1/agents', { body: { name, command: '/bin/sh', args: ['-c', 'exec sleep 600'], ...(disk ? { limits: { disk } } : {}) } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return (res.json['agent'] as { id: string }).id;
};
const postTar = (id: string, dir: string, body: Buffer) =>
  fetch(`${box.server.apiUrl}/v1/agents/${id}/files/${dir}`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${box.key}`, 'content-type': 'application/x-tar' },
  });

/** A ustar header with no data (tests/helpers/ustar.ts): `type` '0' a file, '5' a directory. */
const header = (name: string, type: '0' | '5'): Buffer => ustarHeader(name, type, 0, type === '5' ? 0o755 : 0o644);
const tar = (headers: Buffer[]) => Buffer.concat([...headers, Buffer.alloc(1024)]);
/** A file `levels` directories down, none of them named by an entry: the upload makes them for its path. */
const deepFile = (top: string, levels: number) => header(`${top}/${'x/'.repeat(levels - 1)}f`, '0');

t.test("directories count to the agent's disk budget, 4 KiB each: named by entries, or made for a path; over it, nothing is kept", async (t) => {
  const id = await spawn('dirs-budget', '1m');
  const ws = path.join(box.paths.workspaceDir, 'dirs-budget');
  // 300 empty directories: 1.2 MB of disk, over a budget of 1 MiB though the tar holds no byte of data.
  const named = await postTar(id, 'named', tar(Array.from({ length: 300 }, (_, i) => header(`d${i}/`, '5'))));
  t.equal(named.status, 413);
  t.match(await named.json(), { error: 'ABX_ERR_FILE_TOO_LARGE', message: /disk budget .*4 KiB a directory/ });
  // Ten files 48 directories down each: 480 directories no entry names.
  const made = await postTar(id, 'made', tar(Array.from({ length: 10 }, (_, i) => deepFile(`a${i}`, 48))));
  t.equal(made.status, 413);
  t.match(await made.json(), { error: 'ABX_ERR_FILE_TOO_LARGE', message: /disk budget/ });
  t.same(
    (await readdir(ws)).filter((n) => n !== 'tmp'),
    [],
    'nothing kept, no staging left',
  );
  const within = await postTar(id, 'within', tar([deepFile('b', 48)]));
  t.equal(within.status, 200, 'one such file is within the budget');
  t.ok((await stat(path.join(ws, 'within/b', ...Array.from({ length: 47 }, () => 'x'), 'f'))).isFile());
});

t.test("the directories made for entries' paths count to the entry limit", async (t) => {
  const id = await spawn('dirs-count');
  // One file 48 levels down (48 directories made) and the same directory named again and again: past the limit only with the directories counted.
  const entries = [deepFile('deep', 48), ...Array.from({ length: MAX_TAR_ENTRIES - 47 }, () => header('d/', '5'))];
  t.ok(entries.length <= MAX_TAR_ENTRIES, 'no more headers than the limit');
  const res = await postTar(id, 'many', tar(entries));
  t.equal(res.status, 413);
  t.match(await res.json(), {
    error: 'ABX_ERR_FILE_TOO_LARGE',
    message: new RegExp(`more than ${MAX_TAR_ENTRIES} entries \\(the directories made for their paths counted\\)`),
  });
  await t.rejects(stat(path.join(box.paths.workspaceDir, 'dirs-count', 'many')), { code: 'ENOENT' }, 'nothing kept');
});
