import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_ACCOUNTS } from '../../services/accounts.js';
import { ACCOUNT_RECHECK_MS } from '../../services/sessions.js';
import { MAX_FAILED_LOGINS } from '../../machines/session.js';
import { loginProof } from '../../machines/secrets.js';
import { startHarness, type Harness } from '../harness.js';

/**
 * Issue 35 items 2, 3, 5, 6: a session ends when its account changes (whoever changes it: the API, `npm run accounts`
 * in another process, a restore written to the database), user names are path segments, account changes are in the
 * event log with who and from where, and the smaller points (throttling at warning, own password, nosniff, a cap).
 */
const ACCOUNTS_CLI = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'accounts.js');
const PASSWORD = 'installer-password-1';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await h.controller.accounts.set('boss', 'manufacturer', PASSWORD);
  await h.controller.accounts.set('tech', 'installer', PASSWORD);
});
afterAll(() => h.stop());

/** `npm run accounts` on the harness's database, in its own process, as the shell runs it (password on stdin). */
function cli(args: string[], input = ''): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACCOUNTS_CLI, ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: h.dataDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

const events = async (session: string) => (await h.http('GET', '/v1/events', { session })).json.events as Array<Record<string, unknown>>;

describe('a change of the account ends its session at once', () => {
  test.each([
    ['demoted by npm run accounts (another process)', ['set', 'tech', '--role', 'user', '--password', '-'], `${PASSWORD}\n`],
    ['its password set by npm run accounts', ['set', 'tech', '--role', 'installer', '--password', '-'], 'another-password\n'],
    ['removed by npm run accounts', ['remove', 'tech'], ''],
  ])('%s', async (_what, args, input) => {
    await h.controller.accounts.set('tech', 'installer', PASSWORD);
    const session = await h.login('tech', PASSWORD);
    expect((await h.http('GET', '/v1/session', { session })).json).toEqual({ username: 'tech', role: 'installer', passwordChangeRequired: false });
    const run = await cli(args, input);
    expect(run.status).toBe(0);
    // Another process's change is seen when the account is read again (services/sessions.ts ACCOUNT_RECHECK_MS).
    await h.step(ACCOUNT_RECHECK_MS);
    const after = await h.http('GET', '/v1/session', { session });
    expect([after.status, after.json.code]).toEqual([401, 1003]);
    const create = await h.http('POST', '/v1/accounts', { session, body: { username: 'sneaky', role: 'installer', password: 'sneaky-password' } });
    expect(create.status).toBe(401);
    expect((await h.controller.accounts.list()).map((a) => a.username)).not.toContain('sneaky');
  });

  test('removed and added again with the same role and password (a restore written to the database)', async () => {
    await h.controller.accounts.set('tech', 'installer', PASSWORD);
    const session = await h.login('tech', PASSWORD);
    expect((await h.http('GET', '/v1/session', { session })).status).toBe(200);
    const db = createClient({ url: `file:${join(h.dataDir, 'controller.db')}` });
    try {
      await db.execute({ sql: 'UPDATE accounts SET created_at = created_at + 1 WHERE username = ?', args: ['tech'] });
    } finally {
      db.close();
    }
    await h.step(ACCOUNT_RECHECK_MS);
    expect((await h.http('GET', '/v1/session', { session })).status).toBe(401);
  });
});

describe('user names are single path segments', () => {
  test.each(['.', '..'])('%j is refused with 400 by the API and the CLI', async (username) => {
    const session = await h.login('boss', PASSWORD);
    const res = await h.http('POST', '/v1/accounts', { session, body: { username, role: 'user', password: 'dot-password' } });
    expect([res.status, res.json.success]).toEqual([400, false]);
    expect(res.json.cause).toContain('".."');
    const run = await cli(['set', username, '--role', 'user', '--password', '-'], 'dot-password\n');
    expect(run.status).toBe(2);
    expect((await h.controller.accounts.list()).map((a) => a.username)).not.toContain(username);
  });

  test('names with dots that are not dot segments stay allowed', async () => {
    const session = await h.login('boss', PASSWORD);
    expect((await h.http('POST', '/v1/accounts', { session, body: { username: '...', role: 'user', password: 'dots-password' } })).status).toBe(201);
    expect((await h.http('DELETE', '/v1/accounts/...', { session })).status).toBe(204);
  });
});

describe('audit trail', () => {
  test('account changes by the API and the CLI name who and from where, never a password', async () => {
    const session = await h.login('boss', PASSWORD);
    const secret = 'audited-password-1';
    expect((await h.http('POST', '/v1/accounts', { session, body: { username: 'audited', role: 'operator', password: secret } })).status).toBe(201);
    expect((await h.http('PATCH', '/v1/accounts/audited', { session, body: { role: 'user' } })).status).toBe(200);
    const reset = await h.http('POST', '/v1/accounts/audited/password', { session });
    expect(reset.status).toBe(200);
    expect((await h.http('DELETE', '/v1/accounts/audited', { session })).status).toBe(204);
    expect((await cli(['set', 'audited', '--role', 'operator', '--password', '-'], `${secret}\n`)).status).toBe(0);
    expect((await cli(['set', 'audited', '--role', 'user', '--password', '-'], `${secret}\n`)).status).toBe(0);
    expect((await cli(['remove', 'audited'])).status).toBe(0);
    const session2 = await h.login('boss', PASSWORD);
    const audit = (await events(session2)).filter((e) => String(e.kind).startsWith('account_') && e.username === 'audited');
    const shell = expect.stringMatching(/^shell:/);
    expect(audit.map(({ id: _id, at: _at, message: _m, ...e }) => e)).toEqual([
      { kind: 'account_created', username: 'audited', role: 'operator', by: 'boss', address: '127.0.0.1' },
      { kind: 'account_role_changed', username: 'audited', role: 'user', previousRole: 'operator', by: 'boss', address: '127.0.0.1' },
      { kind: 'account_password_reset', username: 'audited', by: 'boss', address: '127.0.0.1' },
      { kind: 'account_removed', username: 'audited', by: 'boss', address: '127.0.0.1' },
      { kind: 'account_created', username: 'audited', role: 'operator', by: shell, address: 'shell' },
      { kind: 'account_role_changed', username: 'audited', role: 'user', previousRole: 'operator', by: shell, address: 'shell' },
      { kind: 'account_password_reset', username: 'audited', by: shell, address: 'shell' },
      { kind: 'account_removed', username: 'audited', by: shell, address: 'shell' },
    ]);
    const everything = JSON.stringify(await events(session2)) + h.logs.join('');
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(reset.json.password);
    expect(everything).not.toContain(session);
  });
});

describe('smaller points', () => {
  test('login_throttled is logged at warning', async () => {
    const before = h.logs.length;
    for (let i = 0; i < MAX_FAILED_LOGINS; i++) {
      const { json } = await h.http('GET', '/v1/login', { from: '127.0.0.9' });
      await h.http('POST', '/v1/login', { from: '127.0.0.9', body: { username: 'boss', password: loginProof(`guess-${i}`, json.token) } });
    }
    const throttled = h.logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .filter((l) => l.event === 'login_throttled');
    expect(throttled.map((l) => l.level)).toEqual([40]);
  });

  test('a person changes their own password with the current one proven (any role); a wrong one ends the session', async () => {
    await h.controller.accounts.set('viewer', 'user', 'viewer-password-1');
    let session = await h.login('viewer', 'viewer-password-1');
    const without = await h.http('POST', '/v1/accounts/viewer/password', { session, body: { password: 'viewer-password-2' } });
    expect([without.status, without.json.cause]).toEqual([400, expect.stringContaining('currentPassword')]);
    const changed = await h.http('POST', '/v1/accounts/viewer/password', {
      session,
      body: { password: 'viewer-password-2', currentPassword: 'viewer-password-1' },
    });
    expect([changed.status, changed.json]).toEqual([200, { success: true }]);
    expect((await h.http('GET', '/v1/session', { session })).status).toBe(200); // the session that proved it holds
    expect((await h.http('POST', '/v1/accounts/boss/password', { session, body: {} })).status).toBe(403); // not another's
    const wrong = await h.http('POST', '/v1/accounts/viewer/password', { session, body: { password: 'viewer-password-3', currentPassword: 'nope-nope-nope' } });
    expect(wrong.status).toBe(403);
    expect((await h.http('GET', '/v1/session', { session })).status).toBe(401);
    session = await h.login('viewer', 'viewer-password-2');
    expect(session).toBeTruthy();
  });

  test('JSON error answers carry X-Content-Type-Options: nosniff', async () => {
    const session = await h.login('boss', PASSWORD);
    for (const [method, path, opts] of [
      ['GET', '/v1/users', {}],
      ['GET', '/v1/nothing-here', { session }],
      ['POST', '/v1/map', { session, rawBody: '{"broken' }],
      ['GET', '/nothing-here', {}],
    ] as const) {
      const res = await h.http(method, path, opts);
      expect([path, res.status >= 400, res.headers['content-type'], res.headers['x-content-type-options']]).toEqual([
        path,
        true,
        expect.stringContaining('application/json'),
        'nosniff',
      ]);
    }
  });

  test(`at most ${MAX_ACCOUNTS} accounts (API and CLI)`, async () => {
    const existing = (await h.controller.accounts.list()).length;
    for (let i = existing; i < MAX_ACCOUNTS; i++) await h.controller.accounts.set(`filler-${i}`, 'user', 'filler-password');
    const session = await h.login('boss', PASSWORD);
    const res = await h.http('POST', '/v1/accounts', { session, body: { username: 'one-too-many', role: 'user' } });
    expect([res.status, res.json.cause]).toEqual([400, expect.stringContaining(String(MAX_ACCOUNTS))]);
    expect((await cli(['set', 'one-too-many', '--role', 'user', '--password', '-'], 'filler-password\n')).status).toBe(2);
    expect(await h.controller.accounts.list()).toHaveLength(MAX_ACCOUNTS);
  });
});
