import { expect, test } from 'vitest';
import { FAILED, useLoggedInController } from '../harness.js';

const ctx = useLoggedInController();

const call = ctx.call;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('create, read, list, rename, delete', async () => {
  const created = await call('POST', '/v1/users', { userName: 'Alice' });
  expect(created.status).toBe(201);
  expect(created.json).toEqual({ userId: expect.stringMatching(UUID), userName: 'Alice' });
  const id = created.json.userId as string;

  expect((await call('GET', `/v1/users/${id}`)).json).toEqual({ userId: id, userName: 'Alice' });
  expect((await call('GET', `/v1/users/${id.toUpperCase()}`)).json).toEqual({ userId: id, userName: 'Alice' });
  const renamed = await call('PATCH', `/v1/users/${id}`, { userName: 'Alice B.' });
  expect([renamed.status, renamed.json]).toEqual([200, { success: true }]);
  const list = await call('GET', '/v1/users');
  expect(list.status).toBe(200);
  expect(list.json.users).toContainEqual({ userId: id, userName: 'Alice B.' });

  const deleted = await call('DELETE', `/v1/users/${id}`);
  expect([deleted.status, deleted.text]).toEqual([204, '']);
  expect((await call('GET', `/v1/users/${id}`)).status).toBe(404);
  expect((await call('GET', '/v1/users')).json.users.map((u: { userId: string }) => u.userId)).not.toContain(id);
});

test('users are listed in creation order', async () => {
  const names = ['u-one', 'u-two', 'u-three'];
  for (const userName of names) await call('POST', '/v1/users', { userName });
  const listed = (await call('GET', '/v1/users')).json.users.map((u: { userName: string }) => u.userName);
  expect(listed.filter((n: string) => names.includes(n))).toEqual(names);
});

test('names are 1 to 255 characters (code points)', async () => {
  expect((await call('POST', '/v1/users', { userName: 'x'.repeat(255) })).status).toBe(201);
  expect((await call('POST', '/v1/users', { userName: '😀'.repeat(255) })).status).toBe(201);
  for (const userName of ['', 'x'.repeat(256), '😀'.repeat(256), 'tab\there', 42, null]) {
    const res = await call('POST', '/v1/users', { userName });
    expect([res.status, res.json]).toEqual([400, FAILED]);
  }
  expect((await call('POST', '/v1/users', {})).status).toBe(400);
  expect((await call('POST', '/v1/users')).status).toBe(400);
  expect((await ctx.h.http('POST', '/v1/users', { session: ctx.session, rawBody: '{"userName": "x"' })).status).toBe(400);
});

test('invalid UUID in the path: 400; unknown user: 404; nothing changes on errors', async () => {
  const { json } = await call('POST', '/v1/users', { userName: 'Keep' });
  const before = (await call('GET', '/v1/users')).text;
  for (const method of ['GET', 'PATCH', 'DELETE']) {
    const bad = await call(method, '/v1/users/not-a-uuid', { userName: 'x' });
    expect([method, bad.status, bad.json]).toEqual([method, 400, FAILED]);
    const unknown = await call(method, '/v1/users/00000000-0000-4000-8000-000000000000', { userName: 'x' });
    expect([method, unknown.status, unknown.json]).toEqual([method, 404, FAILED]);
  }
  const badRename = await call('PATCH', `/v1/users/${json.userId}`, { userName: '' });
  expect(badRename.status).toBe(400);
  expect((await call('GET', '/v1/users')).text).toBe(before);
});

test('deleting a user keeps its whitelist entries without userid', async () => {
  const { json } = await call('POST', '/v1/users', { userName: 'Tagged' });
  await call('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: 'TAG-OF-TAGGED', userid: json.userId }] });
  await call('DELETE', `/v1/users/${json.userId}`);
  const tags = (await call('GET', '/v1/whitelist?type=local')).json.tags;
  expect(tags).toContainEqual({ id: 'TAG-OF-TAGGED' });
});
