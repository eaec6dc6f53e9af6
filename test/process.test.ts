import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { loginProof } from '../machines/secrets.js';
import { httpRequest } from './harness.js';
import { ENTRY, killHard, launch, login, until } from './processes.js';

/**
 * The controller as `npm start` runs it: the compiled entry point (`npm test` builds first) in its own process,
 * on a fresh data directory.
 */
const ACCOUNTS = join(import.meta.dirname, '..', 'dist', 'bin', 'accounts.js');

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'cc-process-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

test('first start: data directory and database, the generated password once, last, boxed with the data directory; JSON log', async () => {
  const dataDir = join(root, 'fresh', 'nested');
  const run = await launch({ DATA_DIR: dataDir });
  // After the start's log lines (the box waits for the log's next write).
  const box = await until('the password box', () => /\n(#{20,})\n[^]*?\n\1\n/.exec(run.stderr.join(''))?.[0]);
  expect(box).toContain(`# Log in at http://127.0.0.1:${run.port}/ as "operator" (role operator) with the password`);
  expect(box).toContain(`Data directory (database, settings, accounts): ${dataDir}`);
  const printed = /password[\s#]+(\S{16})\s/.exec(box);
  expect(printed).not.toBeNull();
  const password = printed![1]!;
  expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
  expect((await stat(join(dataDir, 'controller.db'))).mode & 0o777).toBe(0o600);
  await login(run.port, password);

  // A quiet console: the login is in the log as an event, the request lines only at level debug.
  const lines = () =>
    run.stdout
      .join('')
      .trim()
      .split('\n')
      .flatMap((l): Record<string, unknown>[] => {
        try {
          return [JSON.parse(l)];
        } catch {
          return []; // a line still being written
        }
      });
  await until('the login event in the log', () => lines().some((l) => l.event === 'login' && l.username === 'operator'));
  expect(lines().filter((l) => l.msg === 'request')).toEqual([]);
  expect(run.stdout.join('')).not.toContain(password);
  // What starting held the main thread is logged with the "listening on" line (the metric counts from there).
  const listeningLine = JSON.parse(
    run.stdout
      .join('')
      .split('\n')
      .find((l) => l.includes('"listening on'))!,
  ) as { startupHoldMs?: unknown };
  expect(listeningLine.startupHoldMs).toEqual(expect.any(Number));

  run.child.kill('SIGINT');
  expect((await once(run.child, 'exit'))[0]).toBe(0);

  // Second start: migrations are idempotent, no new password is printed, the old one still works.
  const again = await launch({ DATA_DIR: dataDir });
  expect(again.stderr.join('')).not.toMatch(/password/i);
  await login(again.port, password);
  again.child.kill('SIGTERM');
  expect((await once(again.child, 'exit'))[0]).toBe(0);
});

test('Ctrl-C lets an in-flight request finish, then closes the database; its data is kept', async () => {
  const dataDir = join(root, 'graceful');
  const run = await launch({ DATA_DIR: dataDir, OPERATOR_PASSWORD: 'graceful-pass' });
  const session = await login(run.port, 'graceful-pass');

  // Start a request and send only half of its body.
  const body = JSON.stringify({ 'written-during-shutdown': 'yes' });
  const response = new Promise<number>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: run.port, method: 'POST', path: '/v1/map', headers: { authorization: session, 'content-length': body.length } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 10));
    setTimeout(() => {
      run.child.kill('SIGINT');
      setTimeout(() => req.end(body.slice(10)), 300);
    }, 200);
  });
  expect(await response).toBe(201);
  expect((await once(run.child, 'exit'))[0]).toBe(0);
  expect(run.stdout.join('')).toContain('"msg":"stopped"');

  const again = await launch({ DATA_DIR: dataDir });
  const s2 = await login(again.port, 'graceful-pass');
  expect((await httpRequest(again.port, 'GET', '/v1/map', { session: s2 })).json).toEqual({ 'written-during-shutdown': 'yes' });
  again.child.kill('SIGTERM');
  await once(again.child, 'exit');
});

test('the log reader going away (EPIPE on stdout) does not stop the controller', async () => {
  const run = await launch({ DATA_DIR: join(root, 'epipe'), OPERATOR_PASSWORD: 'epipe-password' });
  try {
    run.child.stdout!.destroy(); // the reading end of the pipe is closed: the next write to stdout fails
    // Each call logs a line; 100 of them exceed the 4096 characters that make the log buffer write at once.
    for (let i = 0; i < 100; i++) expect((await httpRequest(run.port, 'GET', '/v1/login')).status).toBe(200);
    const session = await login(run.port, 'epipe-password');
    expect((await httpRequest(run.port, 'GET', '/v1/system_state', { session })).status).toBe(200);
    expect(run.child.exitCode).toBeNull();
    expect(run.stderr.join('')).not.toContain('EPIPE');
  } finally {
    run.child.kill('SIGTERM');
    expect((await once(run.child, 'exit'))[0]).toBe(0);
  }
});

test('an invalid variable stops the process with a message naming it', () => {
  const res = spawnSync(process.execPath, [ENTRY], { env: { PATH: process.env.PATH ?? '', PORT: 'eighty', DATA_DIR: join(root, 'never') }, encoding: 'utf8' });
  expect(res.status).toBe(2);
  expect(res.stderr).toContain('PORT: must be a whole number from 0 to 65535 (got "eighty")');
});

test('HARDWARE=rpi where there is no Raspberry Pi: the hardware is checked first, nothing is created, no password printed', async () => {
  const dataDir = join(root, 'no-pi');
  const res = spawnSync(process.execPath, [ENTRY], {
    env: { PATH: process.env.PATH ?? '', HARDWARE: 'rpi', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  expect(res.status).toBe(1);
  expect(res.stderr).toMatch(/The controller failed to start: .*pigpio/);
  expect(res.stderr).not.toContain('First start');
  await expect(stat(dataDir)).rejects.toThrow(/ENOENT/);
});

test('npm run accounts: set, list and remove accounts on the controller database', async () => {
  const dataDir = join(root, 'accounts');
  const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir };
  const run = (args: string[], input?: string) => spawnSync(process.execPath, [ACCOUNTS, ...args], { env, encoding: 'utf8', input });
  expect(run(['set', 'tech', '--role', 'installer', '--password', '-'], 'tech-password\n').status).toBe(0);
  const generated = run(['set', 'viewer', '--role', 'user']);
  // It names the database it works on (on stderr: stdout stays the command's output).
  expect(generated.stderr).toBe(`Database: ${dataDir}/controller.db\n`);
  expect(generated.stdout).toMatch(/Password \(shown only now\): \S{16}/);
  expect(run(['list']).stdout).toMatch(/^tech\tinstaller\t.*\nviewer\tuser\t/);
  expect(run(['set', 'x', '--role', 'admin']).status).toBe(2);
  expect(run(['set', 'x', '--role', 'user', '--password', 'short']).status).toBe(2);
  expect(run(['set', 'has space', '--role', 'user']).status).toBe(2);
  expect(run(['remove', 'viewer']).status).toBe(0);
  expect(run(['remove', 'viewer']).status).toBe(1);
  // The same rules as /v1/accounts (services/accounts.ts): the last account of the highest role present stays.
  const last = run(['remove', 'tech']);
  expect([last.status, last.stderr]).toEqual([
    2,
    `Database: ${dataDir}/controller.db\n"tech" is the last account of role installer, the highest present; add another installer first.\n`,
  ]);
  expect(run(['set', 'tech', '--role', 'user', '--password', 'tech-password']).status).toBe(2);

  // The controller uses the same database: the account logs in.
  const controller = await launch({ DATA_DIR: dataDir, OPERATOR_PASSWORD: 'operator-pass' });
  const { json } = await httpRequest(controller.port, 'GET', '/v1/login');
  const res = await httpRequest(controller.port, 'POST', '/v1/login', { body: { username: 'tech', password: loginProof('tech-password', json.token) } });
  expect(res.status).toBe(200);
  controller.child.kill('SIGTERM');
  await once(controller.child, 'exit');
});

test('power loss while charging (SIGKILL): after restart the transaction is completed with its last checkpoint', async () => {
  const dataDir = join(root, 'power-loss');
  const env = { DATA_DIR: dataDir, OPERATOR_PASSWORD: 'operator-secret-1' };
  const run = await launch(env);
  const session = await login(run.port, 'operator-secret-1');
  const call = (method: string, path: string, body?: unknown) => httpRequest(run.port, method, path, { session, body });
  const tag = '04A1B2C3';
  expect((await call('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: tag }] })).status).toBe(200);
  /** Polls the state until `done` holds (the controller runs on the real clock here). */
  const until = async (done: (s: any) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const s = (await call('GET', '/v1/system_state')).json;
      if (done(s)) return s;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('state not reached');
  };
  for (const path of ['/sim/plug', '/sim/charge']) expect((await httpRequest(run.port, 'POST', path)).status).toBe(200);
  expect((await httpRequest(run.port, 'POST', '/sim/tag', { body: { id: tag } })).status).toBe(200);
  await until((s) => s.systemState === 'charging' && s.transaction?.consumption >= 2);
  expect((await httpRequest(run.port, 'POST', '/sim/pause')).status).toBe(200); // a state change: checkpoint
  const paused = await until((s) => s.systemState === 'charging_pause' && s.transaction.power === 0);
  const { transactionId, consumption } = paused.transaction;

  await killHard(run);

  const again = await launch(env);
  try {
    expect(again.stdout.join('')).toContain('completed transactions interrupted by a power loss');
    const s2 = await login(again.port, 'operator-secret-1');
    const list = await httpRequest(again.port, 'GET', '/v1/transactions', { session: s2 });
    expect(list.json).toEqual([
      {
        transactionId,
        tagId: tag,
        startTransaction: paused.transaction.transactionStart,
        endTransaction: expect.any(String),
        consumption,
        maxPower: expect.any(Number),
        meterStartWh: expect.any(Number),
        meterStopWh: expect.any(Number),
        stopReason: 'PowerLoss',
      },
    ]);
    expect(list.json[0].maxPower).toBeGreaterThan(10_000);
    expect((await httpRequest(again.port, 'GET', '/v1/transactions/active', { session: s2 })).status).toBe(204);
  } finally {
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
  }
});

test('npm run accounts names a database server without its credentials', () => {
  const res = spawnSync(process.execPath, [ACCOUNTS, 'list'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: 'http://admin:db-secret@127.0.0.1:9/controller?authToken=token-secret' },
    encoding: 'utf8',
  });
  expect(res.status).toBe(1); // nothing listens there
  expect(res.stderr).toMatch(/^Database: http:\/\/127\.0\.0\.1:9\/controller \(DATABASE_URL\)\n/);
  expect(res.stderr).not.toMatch(/secret|admin/);
});

test('power loss (SIGKILL): a stored event is still there after the restart', async () => {
  const dataDir = join(root, 'events-power-loss');
  const env = { DATA_DIR: dataDir, OPERATOR_PASSWORD: 'operator-secret-1' };
  const run = await launch(env);
  const session = await login(run.port, 'operator-secret-1');
  // Readers see committed writes only: once the login event is listed, it is stored.
  let events: any[] = [];
  for (let i = 0; i < 100 && !events.some((e) => e.kind === 'login'); i++) {
    events = (await httpRequest(run.port, 'GET', '/v1/events', { session })).json.events;
    if (!events.some((e) => e.kind === 'login')) await new Promise((r) => setTimeout(r, 10));
  }
  const stored = events.find((e) => e.kind === 'login');
  expect(stored).toMatchObject({ kind: 'login', username: 'operator', address: '127.0.0.1' });
  await killHard(run);

  const again = await launch(env);
  try {
    const s2 = await login(again.port, 'operator-secret-1');
    const after = (await httpRequest(again.port, 'GET', '/v1/events', { session: s2 })).json.events;
    expect(after[0]).toEqual(stored);
  } finally {
    again.child.kill('SIGTERM');
    await once(again.child, 'exit');
  }
});

test('POST /v1/restart: answers, restarts in the same process on the same port, and reboot settings take effect', async () => {
  const dataDir = join(root, 'restart');
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [ACCOUNTS, ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, encoding: 'utf8' });
  const run = await launch({ DATA_DIR: dataDir, OPERATOR_PASSWORD: 'operator-pass' });
  expect(cli(['set', 'tech', '--role', 'installer', '--password', 'tech-password']).status).toBe(0);
  expect(cli(['set', 'viewer', '--role', 'user', '--password', 'viewer-password']).status).toBe(0);
  const loginAs = async (username: string, password: string) => {
    const { json } = await httpRequest(run.port, 'GET', '/v1/login');
    const res = await httpRequest(run.port, 'POST', '/v1/login', { body: { username, password: loginProof(password, json.token) } });
    expect(res.status).toBe(200);
    return res.json.session.id as string;
  };
  try {
    const viewer = await loginAs('viewer', 'viewer-password');
    const refused = await httpRequest(run.port, 'POST', '/v1/restart', { session: viewer });
    expect([refused.status, refused.json]).toEqual([403, { success: false, cause: 'A restart needs a session of role operator or higher' }]);
    expect((await httpRequest(run.port, 'POST', '/v1/restart')).status).toBe(401);

    const session = await loginAs('tech', 'tech-password');
    expect((await httpRequest(run.port, 'GET', '/v1/restart', { session })).json.cause).toMatch(/use POST/);
    const changed = await httpRequest(run.port, 'PATCH', '/v1/settings', { session, body: { params: [{ key: 'Phases', value: 1 }] } });
    expect(changed.json).toEqual({ params: [{ key: 'Phases', success: true }], reboot_required: true });
    expect((await httpRequest(run.port, 'GET', '/sim')).json.plant.currentsA).toHaveLength(3);

    const restarted = await httpRequest(run.port, 'POST', '/v1/restart', { session });
    expect([restarted.status, restarted.json]).toEqual([200, { success: true }]);
    // Started again: a second "listening" line, on the same port, in the same process.
    const listening = () => run.stdout.join('').match(/"listening on http:\/\/127\.0\.0\.1:(\d+)"/g) ?? [];
    for (let i = 0; i < 200 && listening().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(listening()).toEqual([`"listening on http://127.0.0.1:${run.port}"`, `"listening on http://127.0.0.1:${run.port}"`]);
    expect(run.child.exitCode).toBeNull();
    const log = run.stdout.join('');
    expect(log.indexOf('"msg":"restarting"')).toBeGreaterThan(log.indexOf('"path":"/v1/restart"'));

    // Every session ended with it; the changed setting is in effect and nothing waits for a reboot.
    expect((await httpRequest(run.port, 'GET', '/v1/session', { session })).json).toMatchObject({ logged_in: false, code: 1003 });
    const again = await loginAs('tech', 'tech-password');
    const settings = await httpRequest(run.port, 'GET', '/v1/settings', { session: again });
    expect(settings.json.result).toEqual({ reboot_required: false });
    expect((await httpRequest(run.port, 'GET', '/v1/settings?params=Phases', { session: again })).json).toEqual({
      params: [{ Phases: { value: 1, label: '1 phase' } }],
    });
    expect((await httpRequest(run.port, 'GET', '/sim')).json.plant.currentsA).toHaveLength(1);
  } finally {
    run.child.kill('SIGTERM');
    expect((await once(run.child, 'exit'))[0]).toBe(0);
  }
});
