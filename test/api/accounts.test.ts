import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Role } from '../../db/schema.js';
import { loginProof } from '../../machines/secrets.js';
import { FAILED, OPERATOR_PASSWORD, startHarness, type Harness, type HttpResult } from '../harness.js';
import { until } from '../processes.js';

/** The /v1/accounts and /v1/session extensions over HTTP (rules in services/accounts.ts, shared with the CLI). */

let h: Harness;
let current: { username: string; session: string } | undefined;
const PASSWORD = 'secret-password-1';

beforeAll(async () => {
  h = await startHarness();
  await h.controller.accounts.set('boss', 'manufacturer', PASSWORD);
  await h.controller.accounts.set('tech', 'installer', PASSWORD);
  await h.controller.accounts.set('tech2', 'installer', PASSWORD);
  await h.controller.accounts.set('viewer', 'user', PASSWORD);
});
afterAll(() => h.stop());

/** A call as `username` (logging in again when another account holds the one session). */
async function as(username: string, method: string, path: string, body?: unknown): Promise<HttpResult> {
  const password = username === 'operator' ? OPERATOR_PASSWORD : PASSWORD;
  if (current?.username !== username) current = { username, session: await h.login(username, password) };
  return h.http(method, path, { session: current.session, body });
}

const names = async () => (await as('boss', 'GET', '/v1/accounts')).json.accounts.map((a: { username: string; role: Role }) => `${a.username}:${a.role}`);
const canLogIn = async (username: string, password: string) => {
  const { json } = await h.http('GET', '/v1/login');
  const res = await h.http('POST', '/v1/login', { body: { username, password: loginProof(password, json.token) } });
  current = res.status === 200 ? { username, session: res.json.session.id } : undefined;
  return res.status === 200;
};

describe('/v1/session', () => {
  test('answers the logged-in account and its role, for every role', async () => {
    expect((await as('viewer', 'GET', '/v1/session')).json).toEqual({ username: 'viewer', role: 'user', passwordChangeRequired: false });
    expect((await as('tech', 'GET', '/v1/session')).json).toEqual({ username: 'tech', role: 'installer', passwordChangeRequired: false });
    expect((await h.http('GET', '/v1/session')).status).toBe(401);
    expect((await as('tech', 'POST', '/v1/session')).status).toBe(400);
  });
});

describe('/v1/accounts', () => {
  test('needs a session of role operator or higher: 401 without one, 403 below operator', async () => {
    expect((await h.http('GET', '/v1/accounts')).json).toMatchObject({ logged_in: false, code: 1002 });
    for (const who of ['viewer']) {
      for (const [method, path, body] of [
        ['GET', '/v1/accounts'],
        ['POST', '/v1/accounts', { username: 'x', role: 'user' }],
        ['PATCH', '/v1/accounts/viewer', { role: 'user' }],
        ['POST', '/v1/accounts/tech2/password'],
        ['DELETE', '/v1/accounts/viewer'],
      ] as const) {
        const res = await as(who, method, path, body);
        expect([who, method, path, res.status, res.json]).toEqual([
          who,
          method,
          path,
          403,
          { success: false, cause: 'Managing accounts needs a session of role operator or higher' },
        ]);
      }
    }
    expect(await names()).toContain('viewer:user');
  });

  test('an operator manages accounts up to its own role: adds a user and an operator, not an installer, and leaves installers alone', async () => {
    const user = await as('operator', 'POST', '/v1/accounts', { username: 'app-user', role: 'user' });
    expect(user.status).toBe(201);
    expect((await as('operator', 'POST', '/v1/accounts', { username: 'colleague', role: 'operator', password: 'colleague-pass-1' })).status).toBe(201);
    const above = await as('operator', 'POST', '/v1/accounts', { username: 'not-me', role: 'installer' });
    expect([above.status, above.json.cause]).toEqual([403, 'Role operator may not give the role installer (above its own)']);
    const reset = await as('operator', 'POST', '/v1/accounts/tech2/password');
    expect([reset.status, reset.json.cause]).toEqual([403, 'Account "tech2" has the role installer, above operator']);
    expect((await as('operator', 'DELETE', '/v1/accounts/app-user')).status).toBe(204);
    expect((await as('operator', 'DELETE', '/v1/accounts/colleague')).status).toBe(204);
    expect(await names()).not.toContain('app-user:user');
  });

  test('lists accounts without passwords', async () => {
    const res = await as('tech', 'GET', '/v1/accounts');
    expect(res.status).toBe(200);
    expect(res.json.accounts).toContainEqual({ username: 'operator', role: 'operator', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(res.text).not.toContain(PASSWORD);
    expect(res.text).not.toContain(OPERATOR_PASSWORD);
    expect(res.json.accounts.map((a: { username: string }) => a.username)).toEqual(['boss', 'operator', 'tech', 'tech2', 'viewer']);
  });

  test('add: a generated password is answered once (not cached) and logs in; a chosen one is never answered', async () => {
    const added = await as('tech', 'POST', '/v1/accounts', { username: 'night-shift', role: 'operator' });
    expect(added.status).toBe(201);
    expect(added.headers['cache-control']).toBe('no-store');
    expect(added.json).toEqual({ username: 'night-shift', role: 'operator', createdAt: expect.any(String), password: expect.stringMatching(/^\S{16}$/) });
    expect(await canLogIn('night-shift', added.json.password)).toBe(true);

    const chosen = await as('tech', 'POST', '/v1/accounts', { username: 'day.shift@site', role: 'user', password: 'chosen-password' });
    expect(chosen.status).toBe(201);
    expect(chosen.json).toEqual({ username: 'day.shift@site', role: 'user', createdAt: expect.any(String) });
    expect(await canLogIn('day.shift@site', 'chosen-password')).toBe(true);
  });

  test('add refuses a name in use, a bad name, role or password, and a role above its own; nothing changes', async () => {
    const before = await names();
    for (const body of [
      { username: 'viewer', role: 'user' },
      { username: '', role: 'user' },
      { username: 'has space', role: 'user' },
      { username: 'x'.repeat(65), role: 'user' },
      { username: 'ok', role: 'admin' },
      { username: 'ok', role: 'user', password: 'short' },
      { username: 'ok', role: 'user', password: 'x'.repeat(256) },
      { username: 'ok', role: 'user', extra: 1 },
      { username: 'ok' },
    ]) {
      const res = await as('tech', 'POST', '/v1/accounts', body);
      expect([JSON.stringify(body), res.status, res.json]).toEqual([JSON.stringify(body), 400, FAILED]);
    }
    const above = await as('tech', 'POST', '/v1/accounts', { username: 'ok', role: 'manufacturer' });
    expect([above.status, above.json.cause]).toEqual([403, 'Role installer may not give the role manufacturer (above its own)']);
    expect(await names()).toEqual(before);
  });

  test('change role: up to its own role, not for accounts above it, not its own', async () => {
    await as('tech', 'POST', '/v1/accounts', { username: 'promoted', role: 'user' });
    const up = await as('tech', 'PATCH', '/v1/accounts/promoted', { role: 'installer' });
    expect([up.status, up.json]).toEqual([200, { username: 'promoted', role: 'installer', createdAt: expect.any(String) }]);
    expect((await as('tech', 'PATCH', '/v1/accounts/promoted', { role: 'manufacturer' })).status).toBe(403);
    expect((await as('tech', 'PATCH', '/v1/accounts/boss', { role: 'user' })).status).toBe(403);
    const self = await as('tech', 'PATCH', '/v1/accounts/tech', { role: 'user' });
    expect([self.status, self.json.cause]).toMatchObject([403, expect.stringMatching(/may not change the role of itself/)]);
    expect((await as('tech', 'PATCH', '/v1/accounts/nobody', { role: 'user' })).status).toBe(404);
    expect((await as('tech', 'PATCH', '/v1/accounts/promoted', { role: 'root' })).status).toBe(400);
    expect((await as('tech', 'PATCH', '/v1/accounts/promoted', {})).status).toBe(400);
    expect(await names()).toEqual(expect.arrayContaining(['promoted:installer', 'boss:manufacturer', 'tech:installer']));
  });

  test('reset password: generated (answered once) or chosen; the old one stops working; not above its own role', async () => {
    await as('tech', 'POST', '/v1/accounts', { username: 'forgetful', role: 'operator', password: 'old-password' });
    const reset = await as('tech', 'POST', '/v1/accounts/forgetful/password');
    expect(reset.status).toBe(200);
    expect(reset.headers['cache-control']).toBe('no-store');
    expect(reset.json).toEqual({ success: true, password: expect.stringMatching(/^\S{16}$/) });
    expect(await canLogIn('forgetful', 'old-password')).toBe(false);
    expect(await canLogIn('forgetful', reset.json.password)).toBe(true);

    const chosen = await as('tech', 'POST', '/v1/accounts/forgetful/password', { password: 'new-password' });
    expect([chosen.status, chosen.json]).toEqual([200, { success: true }]);
    expect(await canLogIn('forgetful', 'new-password')).toBe(true);

    // Its own password: with the current one proven (the session stays).
    expect((await as('tech2', 'POST', '/v1/accounts/tech2/password', { password: PASSWORD, currentPassword: PASSWORD })).status).toBe(200);
    expect((await as('tech2', 'GET', '/v1/session')).status).toBe(200);

    expect((await as('tech', 'POST', '/v1/accounts/boss/password')).status).toBe(403);
    expect((await as('tech', 'POST', '/v1/accounts/forgetful/password', { password: 'short' })).status).toBe(400);
    expect((await as('tech', 'POST', '/v1/accounts/nobody/password')).status).toBe(404);
    expect(await canLogIn('boss', PASSWORD)).toBe(true);
  });

  test('remove: at or below its own role, not its own account; the account can no longer log in', async () => {
    await as('tech', 'POST', '/v1/accounts', { username: 'leaving', role: 'user', password: 'leaving-password' });
    const removed = await as('tech', 'DELETE', '/v1/accounts/leaving');
    expect([removed.status, removed.text]).toEqual([204, '']);
    expect(await canLogIn('leaving', 'leaving-password')).toBe(false);
    expect((await as('tech', 'DELETE', '/v1/accounts/leaving')).status).toBe(404);
    expect((await as('tech', 'DELETE', '/v1/accounts/boss')).status).toBe(403);
    expect((await as('tech', 'DELETE', '/v1/accounts/tech')).status).toBe(403);
    // A name with characters that need encoding in the path.
    await as('tech', 'POST', '/v1/accounts', { username: 'a@b.c', role: 'user' });
    expect((await as('tech', 'DELETE', `/v1/accounts/${encodeURIComponent('a@b.c')}`)).status).toBe(204);
    expect(await names()).toEqual(expect.arrayContaining(['boss:manufacturer', 'tech:installer']));
  });

  test('other methods get 400 naming the supported ones', async () => {
    expect((await as('tech', 'PUT', '/v1/accounts')).json.cause).toMatch(/use GET or POST/);
    expect((await as('tech', 'GET', '/v1/accounts/viewer')).json.cause).toMatch(/use PATCH or DELETE/);
  });
});

describe('the last account of the highest role present', () => {
  test('can be neither removed nor lowered, by the API or the CLI owner; a second one lifts the rule', async () => {
    const accounts = h.controller.accounts;
    // The rule is reachable through the API only with a session whose role is stale; the service refuses for both.
    await expect(accounts.remove('owner', 'boss')).rejects.toThrow(/last account of role manufacturer/);
    await expect(accounts.setRole('owner', 'boss', 'installer')).rejects.toThrow(/last account of role manufacturer/);
    await expect(accounts.set('boss', 'installer', PASSWORD)).rejects.toThrow(/last account of role manufacturer/);
    await expect(accounts.remove({ username: 'other', role: 'manufacturer' }, 'boss')).rejects.toThrow(/last account of role manufacturer/);
    expect(await names()).toContain('boss:manufacturer');

    await accounts.set('boss2', 'manufacturer', PASSWORD);
    expect((await as('boss', 'DELETE', '/v1/accounts/boss2')).status).toBe(204);
    await accounts.set('boss2', 'manufacturer', PASSWORD);
    expect((await as('boss2', 'PATCH', '/v1/accounts/boss', { role: 'installer' })).status).toBe(200);
    expect(await names()).toContain('boss:installer');
  });

  test('on a fresh controller the one operator account is that account', async () => {
    const fresh = await startHarness();
    try {
      const accounts = fresh.controller.accounts;
      await expect(accounts.remove('owner', 'operator')).rejects.toThrow(/last account of role operator/);
      await expect(accounts.setRole('owner', 'operator', 'user')).rejects.toThrow(/last account of role operator/);
      await accounts.set('second', 'operator', PASSWORD);
      await accounts.remove('owner', 'operator');
      expect((await accounts.list()).map((a) => `${a.username}:${a.role}`)).toEqual(['second:operator']);
    } finally {
      await fresh.stop();
    }
  });
});

describe('one-time passwords (first run)', () => {
  test('a generated password asks for a new one until the account chooses its own; one chosen for it by another does not', async () => {
    const generated = (await h.controller.accounts.add('owner', 'newcomer', 'user')).generatedPassword!;
    const required = async (password: string) => {
      current = undefined; // this login ends the one `as` keeps
      const session = await h.login('newcomer', password);
      return (await h.http('GET', '/v1/session', { session })).json.passwordChangeRequired;
    };
    expect(await required(generated)).toBe(true);
    current = undefined;
    const session = await h.login('newcomer', generated);
    const own = { password: 'newcomer-own-1', currentPassword: generated };
    expect((await h.http('POST', '/v1/accounts/newcomer/password', { session, body: own })).status).toBe(200);
    expect((await h.http('GET', '/v1/session', { session })).json.passwordChangeRequired).toBe(false);

    const reset = await as('boss', 'POST', '/v1/accounts/newcomer/password');
    expect(reset.json, reset.text).toHaveProperty('password');
    expect(await required(reset.json.password)).toBe(true);
    expect((await as('boss', 'POST', '/v1/accounts/newcomer/password', { password: 'chosen-for-you-1' })).status).toBe(200);
    expect(await required('chosen-for-you-1')).toBe(false);
    current = undefined;
  });

  test('the first start’s generated operator password is one-time, one given by OPERATOR_PASSWORD is not', async () => {
    expect((await as('operator', 'GET', '/v1/session')).json.passwordChangeRequired).toBe(false);
    const shown: string[] = [];
    // No OPERATOR_PASSWORD: the first start generates one and shows it once.
    const env = { OPERATOR_PASSWORD: undefined } as unknown as Record<string, string>;
    const fresh = await startHarness({ env, showInitialPassword: (_u, password) => shown.push(password) });
    try {
      await until('the password shown', () => shown.length > 0);
      const session = await fresh.login('operator', shown[0]!);
      expect((await fresh.http('GET', '/v1/session', { session })).json.passwordChangeRequired).toBe(true);
    } finally {
      await fresh.stop();
    }
  });
});
