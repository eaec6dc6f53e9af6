import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RESTARTS_IN_PROCESS } from '../drivers/index.js';
import { createNotifyRelay, restartPolicy, startWatchdog, watchdogIntervalMs } from '../services/core/systemd.js';

/**
 * The Raspberry Pi service (bin/systemd/, docs/raspberry-pi.md): the unit as systemd reads it, the watchdog fed from
 * the charge-point core, READY and STOPPING, and how POST /v1/restart restarts where pigpio cannot load twice.
 */

const ROOT = join(import.meta.dirname, '..');
const UNIT = join(ROOT, 'bin', 'systemd', 'charge-controller.service');
const SYSUSERS = join(ROOT, 'bin', 'systemd', 'charge-controller.sysusers');
const ENTRY = join(ROOT, 'dist', 'bin', 'controller.js');

/** The unit's settings: section → key → every value given (in order). */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      sections[section] ??= {};
      continue;
    }
    const [key, ...value] = line.split('=');
    ((sections[section] ??= {})[key!] ??= []).push(value.join('='));
  }
  return sections;
}

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'cc-systemd-'))));

/**
 * A systemd-notify of our own on a PATH folder (the real one needs systemd as PID 1): it records each message it is
 * given with its parent's pid. `messages()` reads them back.
 */
async function fakeSystemdNotify(
  name: string,
): Promise<{ bin: string; lines(): Promise<Array<{ message: string; parent: string }>>; messages(): Promise<string[]> }> {
  const bin = join(root, name);
  const record = join(root, `${name}.log`);
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'systemd-notify'), `#!/bin/sh\necho "$* $PPID" >> "${record}"\n`);
  await chmod(join(bin, 'systemd-notify'), 0o755);
  const lines = async () =>
    (await readFile(record, 'utf8').catch(() => ''))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => ({ message: l.split(' ')[0]!, parent: l.split(' ')[1]! }));
  return { bin, lines, messages: async () => (await lines()).map((l) => l.message) };
}
afterAll(() => rm(root, { recursive: true, force: true }));

describe('the unit', () => {
  test('restart always, watchdog, its own user in gpio and dialout, read-only system with one writable data directory, no new privileges', async () => {
    const unit = parseUnit(await readFile(UNIT, 'utf8'));
    const service = unit.Service!;
    const one = (key: string) => {
      expect(service[key], key).toHaveLength(1);
      return service[key]![0]!;
    };
    expect(one('Type')).toBe('notify');
    expect(one('NotifyAccess')).toBe('all');
    expect(one('Restart')).toBe('always');
    expect(one('WatchdogSec')).toMatch(/^\d+s$/);
    expect(one('User')).toBe('charge-controller');
    expect(one('SupplementaryGroups').split(' ')).toEqual(expect.arrayContaining(['gpio', 'dialout']));
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ProtectHome')).toBe('yes');
    // The one data directory: systemd creates it for the user, writable under ProtectSystem=strict.
    expect(one('StateDirectory')).toBe('charge-controller');
    expect(one('StateDirectoryMode')).toBe('0700');
    expect(one('Environment')).toContain('DATA_DIR=/var/lib/charge-controller');
    expect(one('Environment')).toContain('HARDWARE=rpi');
    expect(one('ReadWritePaths')).toBe('/run /opt/charge-controller/slots'); // pigpio's lock file, the update slots
    expect(one('KillMode')).toBe('mixed'); // SIGTERM to the launcher, which passes it on (once) to the controller
    expect(one('DevicePolicy')).toBe('closed');
    expect(one('CapabilityBoundingSet')).toBe(one('AmbientCapabilities'));
    expect(unit.Install!.WantedBy).toEqual(['multi-user.target']);
  });

  test('it runs the built launcher, which starts the controller with the same Node options as npm start (no TypeScript on the Pi)', async () => {
    const exec = parseUnit(await readFile(UNIT, 'utf8')).Service!.ExecStart![0]!;
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const options = pkg.scripts.start!.replace(/^node /, '').replace(/ dist\/bin\/controller\.js$/, '');
    expect(exec).toBe(`/usr/bin/node dist/bin/launcher.js ${options}`);
  });

  test('its user and groups are declared for systemd-sysusers, the same groups as the unit gives it', async () => {
    const lines = (await readFile(SYSUSERS, 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines[0]).toMatch(/^u charge-controller - ".+" \/var\/lib\/charge-controller \/usr\/sbin\/nologin$/);
    const groups = lines.filter((l) => l.startsWith('m charge-controller ')).map((l) => l.split(' ')[2]);
    const unit = parseUnit(await readFile(UNIT, 'utf8'));
    expect(groups).toEqual(unit.Service!.SupplementaryGroups![0]!.split(' '));
  });

  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  test.skipIf(analyze.status !== 0)("systemd-analyze verify finds nothing to report (with ExecStart on this machine's node)", async () => {
    // verify checks that ExecStart's program exists: the unit is checked with this machine's node in its place.
    const copy = join(root, 'charge-controller.service');
    await writeFile(copy, (await readFile(UNIT, 'utf8')).replace('/usr/bin/node ', `${process.execPath} `));
    const res = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', env: { ...process.env, SYSTEMD_LOG_TARGET: 'console' } });
    expect([res.status, res.stderr.trim()]).toEqual([0, '']);
    // And it does report a broken unit.
    await writeFile(copy, (await readFile(copy, 'utf8')).replace(/^Restart=always$/m, 'Restart=sometimes'));
    expect(spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', env: { ...process.env, SYSTEMD_LOG_TARGET: 'console' } }).stderr).toMatch(
      /Failed to parse service restart specifier/,
    );
  });
});

describe('the watchdog', () => {
  const env = { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '10000000' };

  test('only where systemd asks for one, for this process', () => {
    expect(watchdogIntervalMs(env, 42)).toBe(10_000);
    expect(watchdogIntervalMs({ ...env, WATCHDOG_PID: '42' }, 42)).toBe(10_000);
    expect(watchdogIntervalMs({ ...env, WATCHDOG_PID: '41' }, 42)).toBeUndefined();
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '10000000' }, 42)).toBeUndefined();
    expect(watchdogIntervalMs({ NOTIFY_SOCKET: '/run/systemd/notify' }, 42)).toBeUndefined();
    expect(startWatchdog({ env: {} })).toBeUndefined();
  });

  test('WATCHDOG=1 at once and every half interval through the relay; each failure reported once; stop ends the relay', () => {
    const sent: string[] = [];
    let relayError: (error: string) => void = () => {};
    let closed = false;
    const relay = (onError: (error: string) => void) => {
      relayError = onError;
      return { send: (m: string) => void sent.push(m), close: () => void (closed = true) };
    };
    let tick: () => void = () => {};
    let every = 0;
    const errors: string[] = [];
    const dog = startWatchdog({
      env,
      pid: 42,
      relay,
      setInterval: (fn, ms) => ((tick = fn), (every = ms)),
      clearInterval: () => (tick = () => {}),
      onError: (e) => errors.push(e),
    });
    expect(dog?.intervalMs).toBe(10_000);
    expect(every).toBe(5_000);
    expect(sent).toEqual(['WATCHDOG=1']);
    tick();
    tick();
    expect(sent).toHaveLength(3);
    relayError('systemd-notify WATCHDOG=1 failed (127)');
    relayError('systemd-notify WATCHDOG=1 failed (127)');
    relayError('the notification relay ended (0)');
    expect(errors).toEqual(['systemd-notify WATCHDOG=1 failed (127)', 'the notification relay ended (0)']);
    dog!.stop();
    tick();
    expect([sent.length, closed]).toEqual([3, true]);
  });

  test('the relay runs systemd-notify for each message from one shell process', async () => {
    const { bin, lines: notified } = await fakeSystemdNotify('relay-bin');
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    const errors: string[] = [];
    const relay = createNotifyRelay((e) => errors.push(e));
    process.env.PATH = path;
    for (let i = 0; i < 3; i++) relay.send('WATCHDOG=1');
    let lines: Array<{ message: string; parent: string }> = [];
    for (let i = 0; i < 100 && lines.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
      lines = await notified();
    }
    relay.close();
    expect(lines.map((l) => l.message)).toEqual(['WATCHDOG=1', 'WATCHDOG=1', 'WATCHDOG=1']);
    expect(new Set(lines.map((l) => l.parent)).size).toBe(1); // one parent: the relay's shell
    expect(errors).toEqual([]);
  });

  test(
    "the controller under a notify unit: READY=1 once listening, WATCHDOG=1 from the core's thread every half interval, STOPPING=1 on SIGTERM",
    { timeout: 45_000 },
    async () => {
      const { bin, messages: notified } = await fakeSystemdNotify('bin');
      const child = spawn(process.execPath, [ENTRY], {
        env: {
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          HOST: '127.0.0.1',
          PORT: '0',
          DATA_DIR: join(root, 'data'),
          OPERATOR_PASSWORD: 'operator-pass',
          NOTIFY_SOCKET: '/run/systemd/notify',
          WATCHDOG_USEC: '300000',
          INVOCATION_ID: 'test',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out: string[] = [];
      child.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
      const until = async (done: (lines: string[]) => boolean) => {
        // A start takes about a second; a loaded CI machine (load 15) once took over 5 s: 20 s before giving up.
        for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
          if (done(await notified())) return;
          await new Promise((r) => setTimeout(r, 25));
        }
        throw new Error(`not notified: ${(await notified()).join(', ')}\n${out.join('')}`);
      };
      try {
        // The log line reaches this pipe through the controller's log buffer (up to 100 ms late, more under load), so it
        // is waited for like the notifications.
        await until((lines) => lines.includes('READY=1') && lines.filter((l) => l === 'WATCHDOG=1').length >= 4 && out.join('').includes('listening on'));
      } finally {
        child.kill('SIGTERM');
      }
      expect((await once(child, 'exit'))[0]).toBe(0);
      const lines = await notified();
      expect(lines.filter((l) => l === 'READY=1')).toHaveLength(1);
      expect(lines).toContain('STOPPING=1');
      expect(lines.every((l) => ['READY=1', 'WATCHDOG=1', 'STOPPING=1'].includes(l))).toBe(true);
    },
  );

  const throughLauncher =
    'through the launcher, as the unit runs it: READY=1 from the launcher once ready, WATCHDOG=1 from the core, SIGTERM passed on once, ' +
    "the unit's Node options reach the controller";
  test(throughLauncher, async () => {
    const { bin, lines: notifiedLines } = await fakeSystemdNotify('bin3');
    // The unit's own command line, with this machine's node: the launcher and the Node options it hands on.
    const [, ...launcherArgs] = parseUnit(await readFile(UNIT, 'utf8')).Service!.ExecStart![0]!.split(' ');
    const nodeOptions = launcherArgs.slice(1);
    expect(nodeOptions).toEqual(expect.arrayContaining(['--heap-growing-percent=20', '--optimize-for-size']));
    // systemd names the main process (the launcher) in WATCHDOG_PID: exec keeps the shell's pid.
    const child = spawn('/bin/sh', ['-c', `WATCHDOG_PID=$$ exec "${process.execPath}" ${launcherArgs.join(' ')}`], {
      cwd: ROOT,
      env: {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: join(root, 'data3'),
        OPERATOR_PASSWORD: 'operator-pass',
        NOTIFY_SOCKET: '/run/systemd/notify',
        WATCHDOG_USEC: '300000',
        INVOCATION_ID: 'test',
        UPDATE_ROOT: ROOT,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: string[] = [];
    child.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
    child.stderr!.on('data', (d: Buffer) => out.push(d.toString()));
    const messages = async () => (await notifiedLines()).map((l) => l.message);
    try {
      for (let i = 0; i < 400; i++) {
        const lines = await messages();
        if (lines.includes('READY=1') && lines.filter((l) => l === 'WATCHDOG=1').length >= 4) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      // The core's systemd-notify runs under a relay shell of the controller (services/core/systemd.ts): the relay's
      // parent is the controller, whose command line is read while it runs.
      const relay = (await notifiedLines()).find((l) => l.message === 'WATCHDOG=1' && l.parent !== String(child.pid))?.parent;
      const controller = /^PPid:\s+(\d+)$/m.exec(await readFile(`/proc/${relay}/status`, 'utf8'))?.[1];
      const cmdline = (await readFile(`/proc/${controller}/cmdline`, 'utf8')).split('\0').filter(Boolean);
      expect(cmdline.slice(1)).toEqual([...nodeOptions, join(ROOT, 'dist', 'bin', 'controller.js')]);
    } finally {
      child.kill('SIGTERM'); // KillMode=mixed: to the launcher alone
    }
    expect((await once(child, 'exit'))[0]).toBe(0);
    const lines = await notifiedLines();
    expect(
      lines.filter((l) => l.message === 'READY=1'),
      out.join(''),
    ).toEqual([{ message: 'READY=1', parent: String(child.pid) }]);
    expect(lines.filter((l) => l.message === 'WATCHDOG=1').length).toBeGreaterThanOrEqual(4);
    // The launcher feeds the watchdog only while the controller starts; then the core's relay does (another parent).
    expect(lines.some((l) => l.message === 'WATCHDOG=1' && l.parent !== String(child.pid))).toBe(true);
    expect(lines.map((l) => l.message)).toContain('STOPPING=1');
    // One SIGTERM reached the controller: it stopped gracefully (a second would have made it exit at once).
    expect(out.join('')).not.toContain('second signal');
  });

  test('without NOTIFY_SOCKET nothing is sent', async () => {
    const { bin, messages } = await fakeSystemdNotify('bin2');
    const child = spawn(process.execPath, [ENTRY], {
      env: {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: join(root, 'data2'),
        OPERATOR_PASSWORD: 'operator-pass',
        WATCHDOG_USEC: '300000',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const out: string[] = [];
    child.stdout!.on('data', (d: Buffer) => out.push(d.toString()));
    for (let i = 0; i < 200 && !out.join('').includes('listening on'); i++) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 400)); // longer than the interval asked for
    child.kill('SIGTERM');
    expect((await once(child, 'exit'))[0]).toBe(0);
    expect(await messages()).toEqual([]);
  });
});

describe('POST /v1/restart where the hardware cannot start twice in one process', () => {
  test('sim restarts in its process; rpi ends the process for systemd to start again, and offers no restart without a service manager', () => {
    expect(RESTARTS_IN_PROCESS).toEqual({ sim: true, rpi: false });
    expect(restartPolicy(RESTARTS_IN_PROCESS.sim, {})).toBe('process');
    expect(restartPolicy(RESTARTS_IN_PROCESS.rpi, { INVOCATION_ID: '2f6c…' })).toBe('service-manager');
    expect(restartPolicy(RESTARTS_IN_PROCESS.rpi, {})).toBeUndefined();
  });
});
