// /v1/beads over HTTP on the real app: authentication, schemas, status codes and error bodies.
import t from 'tap';
import { removeBox, startBox, type BeadsBox } from './beads-remote-box.js';
import { onlySlot } from './pods-harness.js';

type Reply = {
  status: number;
  body: Record<string, unknown> & { bead?: Record<string, unknown>; items?: Array<Record<string, unknown>>; nextCursor?: string };
};

function client(box: BeadsBox) {
  return async (method: string, pathname: string, body?: unknown, auth: string | false = box.key): Promise<Reply> => {
    const headers: Record<string, string> = {};
    if (auth !== false) headers['authorization'] = `Bearer ${auth}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(box.url + pathname, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as Reply['body'] };
  };
}

t.test('the bead routes end to end', async (t) => {
  const box = await startBox();
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  const call = client(box);

  const epic = await call('POST', '/v1/beads', { kind: 'epic', title: 'ship it' });
  t.equal(epic.status, 201);
  t.match(epic.body.bead, { kind: 'epic', title: 'ship it', status: 'open', dependsOn: [] });
  const epicId = epic.body.bead!['id'] as string;
  const first = await call('POST', '/v1/beads', { title: 'build', parentId: epicId });
  const firstId = first.body.bead!['id'] as string;
  const second = await call('POST', '/v1/beads', { title: 'test', parentId: epicId, dependsOn: [firstId], body: 'run the suite' });
  t.equal(second.status, 201);
  const secondId = second.body.bead!['id'] as string;

  t.same((await call('GET', `/v1/beads/${secondId}`)).body.bead, second.body.bead, 'GET /v1/beads/:id');
  const page1 = await call('GET', `/v1/beads?parentId=${epicId}&limit=1`);
  t.equal(page1.status, 200);
  t.equal(page1.body.items!.length, 1);
  t.type(page1.body.nextCursor, 'string');
  const page2 = await call('GET', `/v1/beads?parentId=${epicId}&limit=1&cursor=${page1.body.nextCursor}`);
  t.same([page1.body.items![0]!['id'], page2.body.items![0]!['id']], [firstId, secondId], 'paged in creation order');

  const ready = async () => (await call('GET', '/v1/beads/ready')).body.items!.map((b) => b['id']);
  t.ok((await ready()).includes(firstId) && !(await ready()).includes(secondId), 'the ready queue follows dependencies');
  t.equal((await call('POST', `/v1/beads/${secondId}/claim`, { claimant: 'agent-1' })).status, 409, 'a bead that is not ready cannot be claimed');

  const claim = await call('POST', `/v1/beads/${firstId}/claim`, { claimant: 'agent-1' });
  t.equal(claim.status, 200);
  t.match(claim.body, { claimed: true, bead: { status: 'claimed', claimedBy: 'agent-1' } });
  t.match(await call('POST', `/v1/beads/${firstId}/claim`, { claimant: 'agent-2' }), { status: 409, body: { error: 'ABX_ERR_CONFLICT', message: /agent-1/ } });
  const closed = await call('POST', `/v1/beads/${firstId}/close`, { outcome: 'success', note: 'green' });
  t.match(closed, { status: 200, body: { bead: { status: 'closed', outcome: 'success', outcomeNote: 'green' } } });
  t.ok((await ready()).includes(secondId), 'the dependent bead is ready now');
  t.match(await call('POST', `/v1/beads/${firstId}/close`, { outcome: 'failure' }), { status: 409, body: { error: 'ABX_ERR_CONFLICT' } });
  t.match(await call('GET', '/v1/beads/bd-missing'), { status: 404, body: { error: 'ABX_ERR_NOT_FOUND', message: 'bead bd-missing not found' } });
  t.match(await call('GET', '/v1/beads?status=closed'), { status: 200, body: { items: [{ id: firstId }] } });
});

t.test('the routes refuse what their schemas do not allow, with ABX_ERR_VALIDATION', async (t) => {
  const box = await startBox();
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  const call = client(box);
  const id = (await call('POST', '/v1/beads', { title: 'x' })).body.bead!['id'] as string;
  const refused: Array<[string, string, unknown]> = [
    ['POST', '/v1/beads', {}],
    ['POST', '/v1/beads', { title: '' }],
    ['POST', '/v1/beads', { title: 'x', kind: 'story' }],
    ['POST', '/v1/beads', { title: 'x', owner: 'me' }],
    ['POST', '/v1/beads', { title: 'x', dependsOn: 'bd-1' }],
    ['POST', `/v1/beads/${id}/claim`, {}],
    ['POST', `/v1/beads/${id}/close`, { outcome: 'done' }],
    ['GET', '/v1/beads?limit=0', undefined],
    ['GET', '/v1/beads?status=stale', undefined],
    ['GET', '/v1/beads?cursor=forged', undefined],
  ];
  for (const [method, url, body] of refused)
    t.match(await call(method, url, body), { status: 400, body: { error: 'ABX_ERR_VALIDATION' } }, `${method} ${url} ${JSON.stringify(body) ?? ''}`);
  t.equal((await call('GET', `/v1/beads/${id}`)).body.bead!['status'], 'open', 'nothing changed');
});

t.test('the routes need the API key, and mutations are rate limited', async (t) => {
  const box = await startBox({ limits: { max: 3 } });
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  const call = client(box);
  t.match(await call('GET', '/v1/beads', undefined, false), { status: 401, body: { error: 'ABX_ERR_AUTH_REQUIRED' } });
  t.match(await call('POST', '/v1/beads', { title: 'x' }, 'wrong-key'), { status: 401, body: { error: 'ABX_ERR_AUTH_INVALID' } });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await call('POST', '/v1/beads', { title: `n${i}` })).status);
  t.same(statuses, [201, 201, 201, 429]);
  t.equal((await call('GET', '/v1/beads')).status, 200, 'reads are not rate limited');
});

t.test('with the slot off the routes answer 503 ABX_ERR_ADAPTER_OFF', async (t) => {
  const box = await startBox({ toml: onlySlot('beads', 'off') });
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  t.match(await client(box)('POST', '/v1/beads', { title: 'x' }), { status: 503, body: { error: 'ABX_ERR_ADAPTER_OFF' } });
  t.match(await client(box)('GET', '/v1/beads/ready'), { status: 503, body: { error: 'ABX_ERR_ADAPTER_OFF' } });
});
