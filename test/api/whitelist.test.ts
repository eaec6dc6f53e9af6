import { beforeAll, beforeEach, expect, test } from 'vitest';
import { WHITELIST_CAPACITY } from '../../services/whitelist.js';
import { FAILED, useLoggedInController } from '../harness.js';

let userId: string;
const ctx = useLoggedInController();
beforeAll(async () => {
  userId = (await ctx.h.http('POST', '/v1/users', { session: ctx.session, body: { userName: 'Owner' } })).json.userId;
});
beforeEach(async () => {
  await call('POST', '/v1/whitelist', { type: 'local', command: 'clear' });
});

const call = ctx.call;
const list = async () => (await call('GET', '/v1/whitelist?type=local')).json.tags;
const add = (tags: unknown[]) => call('POST', '/v1/whitelist', { type: 'local', command: 'add', tags });

test('add with every field, list, edit, delete', async () => {
  const full = { id: '04A1B2C3', tagType: 'RFID', number: 7, name: 'Card 7', userid: userId, priority: 'HIGH' };
  const res = await add([full, { id: 'AA:BB:CC:DD:EE:FF', tagType: 'EVCCID' }]);
  expect([res.status, res.json]).toEqual([200, { success: true }]);
  const got = await call('GET', '/v1/whitelist?type=local');
  expect([got.status, got.json]).toEqual([200, { success: true, tags: [full, { id: 'AA:BB:CC:DD:EE:FF', tagType: 'EVCCID' }] }]);

  const edit = await call('POST', '/v1/whitelist', { type: 'local', command: 'edit', tags: [{ id: '04A1B2C3', name: 'Renamed', priority: 'NORMAL' }] });
  expect([edit.status, edit.json]).toEqual([200, { success: true }]);
  expect((await list())[0]).toEqual({ id: '04A1B2C3', name: 'Renamed', priority: 'NORMAL' });

  const del = await call('DELETE', '/v1/whitelist?type=local&ids=04A1B2C3,AA:BB:CC:DD:EE:FF');
  expect([del.status, del.text]).toEqual([204, '']);
  expect(await list()).toEqual([]);
});

test('clear removes every entry', async () => {
  await add([{ id: 'a' }, { id: 'b' }]);
  expect((await call('POST', '/v1/whitelist', { type: 'local', command: 'clear' })).status).toBe(200);
  expect(await list()).toEqual([]);
});

test('GET needs type=local', async () => {
  for (const q of ['', '?type=remote', '?type=']) {
    const res = await call('GET', `/v1/whitelist${q}`);
    expect([q, res.status, res.json]).toEqual([q, 400, FAILED]);
  }
});

test('invalid commands and entries: 400, nothing changes', async () => {
  await add([{ id: 'keep' }]);
  const before = await list();
  for (const body of [
    { type: 'local', command: 'rename', tags: [{ id: 'x' }] },
    { type: 'other', command: 'add', tags: [{ id: 'x' }] },
    { command: 'add', tags: [{ id: 'x' }] },
    { type: 'local', command: 'add' },
    { type: 'local', command: 'add', tags: [] },
    { type: 'local', command: 'add', tags: [{ id: '' }] },
    { type: 'local', command: 'add', tags: [{ id: 'has,comma' }] },
    { type: 'local', command: 'add', tags: [{ id: 'x'.repeat(256) }] },
    { type: 'local', command: 'add', tags: [{ id: 'x', tagType: 'BARCODE' }] },
    { type: 'local', command: 'add', tags: [{ id: 'x', priority: 'LOW' }] },
    { type: 'local', command: 'add', tags: [{ id: 'x', number: 1.5 }] },
    { type: 'local', command: 'add', tags: [{ id: 'x', number: -1 }] },
    { type: 'local', command: 'add', tags: [{ id: 'x', userid: 'not-a-uuid' }] },
    { type: 'local', command: 'add', tags: [{ id: 'x', name: 'n'.repeat(256) }] },
    { type: 'local', command: 'add', tags: [{ id: 'ok' }, { id: 'ok' }] },
    { type: 'local', command: 'add', tags: [{ id: 'new' }, { id: 'keep' }] },
    [],
  ]) {
    const res = await call('POST', '/v1/whitelist', body);
    expect([body, res.status, res.json]).toEqual([body, 400, FAILED]);
  }
  expect(await list()).toEqual(before);
});

test('adding an id that exists: 400 naming it; editing one that does not: 404', async () => {
  await add([{ id: 'exists' }]);
  const dup = await add([{ id: 'fresh' }, { id: 'exists' }]);
  expect(dup.status).toBe(400);
  expect(dup.json.cause).toContain('"exists"');
  const edit = await call('POST', '/v1/whitelist', { type: 'local', command: 'edit', tags: [{ id: 'exists', name: 'n' }, { id: 'missing' }] });
  expect(edit.status).toBe(404);
  expect(edit.json.cause).toContain('"missing"');
  expect(await list()).toEqual([{ id: 'exists' }]);
});

test('a userid must name an existing user: 404, nothing added', async () => {
  const res = await add([{ id: 'ok-1' }, { id: 'ok-2', userid: '00000000-0000-4000-8000-000000000000' }]);
  expect([res.status, res.json]).toEqual([404, FAILED]);
  expect(await list()).toEqual([]);
});

test(`the whitelist holds at most ${WHITELIST_CAPACITY} entries`, async () => {
  const tags = Array.from({ length: WHITELIST_CAPACITY }, (_, i) => ({ id: `T${i}` }));
  expect((await add(tags)).status).toBe(200);
  const over = await add([{ id: 'one-more' }]);
  expect([over.status, over.json]).toEqual([400, FAILED]);
  expect((await list()).length).toBe(WHITELIST_CAPACITY);
  // Editing all of them at once: every entry changed (written in chunks, one write).
  const named = tags.map((t, i) => ({ ...t, name: `card ${i}` }));
  expect((await call('POST', '/v1/whitelist', { type: 'local', command: 'edit', tags: named })).status).toBe(200);
  expect(await list()).toEqual(named);
});

test('DELETE: unknown id 404 and nothing deleted; missing or long parameters 400', async () => {
  await add([{ id: 'a' }, { id: 'b' }]);
  const unknown = await call('DELETE', '/v1/whitelist?type=local&ids=a,zzz');
  expect([unknown.status, unknown.json]).toEqual([404, FAILED]);
  expect((await list()).map((t: { id: string }) => t.id)).toEqual(['a', 'b']);
  for (const q of ['', '?type=local', '?ids=a', '?type=nope&ids=a', '?type=local&ids=', '?type=local&ids=a,,b', `?type=local&ids=${'a'.repeat(1001)}`]) {
    const res = await call('DELETE', `/v1/whitelist${q}`);
    expect([q, res.status, res.json]).toEqual([q, 400, FAILED]);
  }
  expect((await list()).length).toBe(2);
});

test('DELETE ids query of exactly 1000 characters is accepted', async () => {
  const ids = Array.from({ length: 99 }, (_, i) => `id-${String(i).padStart(6, '0')}`); // 9 characters each
  ids.push('last-id-10');
  await add(ids.map((id) => ({ id })));
  const query = ids.join(',');
  expect(query.length).toBe(1000);
  const res = await call('DELETE', `/v1/whitelist?type=local&ids=${query}`);
  expect(res.status).toBe(204);
  expect(await list()).toEqual([]);
});

test('DELETE by the deprecated body form', async () => {
  await add([{ id: 'a' }, { id: 'b' }]);
  const res = await call('DELETE', '/v1/whitelist', { type: 'local', command: 'delete', tags: [{ id: 'a' }] });
  expect(res.status).toBe(204);
  expect(await list()).toEqual([{ id: 'b' }]);
  for (const body of [
    { command: 'delete', tags: [{ id: 'b' }] },
    { type: 'local', tags: [{ id: 'b' }] },
    { type: 'local', command: 'delete' },
  ]) {
    expect((await call('DELETE', '/v1/whitelist', body)).status).toBe(400);
  }
  expect((await call('DELETE', '/v1/whitelist', { type: 'local', command: 'delete', tags: [{ id: 'nope' }] })).status).toBe(404);
  // Neither ids nor a body (none announced, or an announced length of 0): the missing query is named.
  for (const headers of [{}, { 'content-length': '0' }] as Array<Record<string, string>>) {
    const none = await ctx.h.http('DELETE', '/v1/whitelist', { session: ctx.session, headers });
    expect([none.status, none.json.cause]).toEqual([400, expect.stringMatching(/ids .* are missing/)]);
  }
  expect(await list()).toEqual([{ id: 'b' }]);
});

test('one card, one entry: ids that differ only in letter case are one tag for add, edit, delete and the reader', async () => {
  const alice = (await call('POST', '/v1/users', { userName: 'Alice' })).json.userId;
  const mallory = (await call('POST', '/v1/users', { userName: 'Mallory' })).json.userId;
  expect((await add([{ id: '04A1B2C3', userid: alice }])).status).toBe(200);
  // The same card in lower case is not a second entry.
  const second = await add([{ id: '04a1b2c3', userid: mallory }]);
  expect([second.status, second.json]).toEqual([400, FAILED]);
  expect(second.json.cause).toContain('"04A1B2C3" is already whitelisted');
  const both = await call('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: 'AB12' }, { id: 'ab12' }] });
  expect([both.status, both.json]).toEqual([400, FAILED]);
  // Edit in another case edits the entry (its id keeps the case it was added with).
  const edit = await call('POST', '/v1/whitelist', { type: 'local', command: 'edit', tags: [{ id: '04a1B2c3', userid: alice, name: 'Alice card' }] });
  expect(edit.status).toBe(200);
  expect(await list()).toEqual([{ id: '04A1B2C3', userid: alice, name: 'Alice card' }]);
  // Delete in another case revokes the card: the reader's UID no longer authorizes anyone.
  expect((await call('DELETE', '/v1/whitelist?type=local&ids=04a1b2c3')).status).toBe(204);
  expect(await list()).toEqual([]);
  await ctx.h.sim('plug');
  await ctx.h.sim('tag', { id: '04A1B2C3' });
  await ctx.h.step(100);
  expect((await call('GET', '/v1/system_state')).json).toMatchObject({ authState: 'wait_for_auth' });
  expect((await call('GET', '/v1/transactions/active')).status).toBe(204);
  await ctx.h.sim('unplug');
  await ctx.h.step(100);
});

test('an id named twice in one request is refused (400) for every command, DELETE included, and nothing changes', async () => {
  await add([{ id: 'X9' }, { id: 'Y9' }]);
  for (const [method, body, query] of [
    ['DELETE', undefined, '?type=local&ids=X9,X9'],
    ['DELETE', undefined, '?type=local&ids=X9,x9'],
    ['DELETE', { type: 'local', command: 'delete', tags: [{ id: 'Y9' }, { id: 'Y9' }] }, ''],
    ['POST', { type: 'local', command: 'edit', tags: [{ id: 'X9' }, { id: 'x9', name: 'n' }] }, ''],
    ['POST', { type: 'local', command: 'add', tags: [{ id: 'Z9' }, { id: 'Z9' }] }, ''],
  ] as const) {
    const res = await call(method, `/v1/whitelist${query}`, body);
    expect([method, query, res.status, res.json]).toEqual([method, query, 400, FAILED]);
    expect(res.json.cause).toMatch(/more than once/);
  }
  expect(await list()).toEqual([{ id: 'X9' }, { id: 'Y9' }]);
});

test('an RFID entry’s id is a UID in hex of 4, 7 or 10 bytes; other types keep a plain string (issue 33)', async () => {
  for (const id of ['04A1B2C3', '04a1b2c3d4e5f6', '04A1B2C3D4E5F6A7B8C9']) expect((await add([{ id, tagType: 'RFID' }])).status, id).toBe(200);
  for (const id of ['04A1B2C3D4', 'CARD-1', '04A1B2C', '04:A1:B2:C3', '04A1B2C3D4E5F6A7B8C9D0']) {
    const res = await add([
      { id: 'E0E1E2E3', tagType: 'RFID' },
      { id, tagType: 'RFID' },
    ]);
    expect([id, res.status, res.json]).toEqual([id, 400, FAILED]);
    expect(res.text).toMatch(/RFID tag must be its UID in hex: 4, 7 or 10 bytes \(8, 14 or 20 hex digits\)/);
  }
  // Nothing of a refused request is added.
  expect((await list()).map((t: { id: string }) => t.id)).not.toContain('E0E1E2E3');
  expect((await add([{ id: 'CARD-1', tagType: 'NFC' }, { id: 'CARD-2' }, { id: 'AA:BB', tagType: 'EVCCID' }])).status).toBe(200);
});
