import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openDatabase } from '../db/client.js';
import {
  createNetwork,
  createNmcli,
  GSM_PROFILE,
  LAN_PROFILE,
  lanProblem,
  lanProblems,
  nmcliPlan,
  prefixOf,
  type NetworkBackend,
  type NetworkSettings,
} from '../services/network.js';
import { networkCheck } from '../services/network-check.js';
import { computedValues, createSettings } from '../services/settings/index.js';
import { FAILED, startHarness } from './harness.js';

/**
 * The network settings (LAN static address, GSM) applied through NetworkManager (services/network.ts,
 * docs/network.md): the nmcli commands for each case, nmcli's answers, a static configuration that must hold
 * together, a controller without NetworkManager, and the simulated manager of HARDWARE=sim.
 */

const DHCP: NetworkSettings = { lan: { mode: 'dhcp' }, gsm: { enabled: false, apn: '' } };
const STATIC: NetworkSettings = {
  lan: { mode: 'static', address: '192.168.10.20', netmask: '255.255.255.0', gateway: '192.168.10.1' },
  gsm: { enabled: false, apn: '' },
};

describe('the nmcli commands', () => {
  test("a fresh Pi: the LAN profile is added (ahead of NetworkManager's own), set and brought up", () => {
    expect(nmcliPlan(STATIC, { lan: null, gsm: null })).toEqual([
      [
        'connection',
        'add',
        'type',
        'ethernet',
        'ifname',
        'eth0',
        'con-name',
        LAN_PROFILE,
        'connection.autoconnect',
        'yes',
        'connection.autoconnect-priority',
        '100',
      ],
      [
        'connection',
        'modify',
        LAN_PROFILE,
        'ipv4.method',
        'manual',
        'ipv4.addresses',
        '192.168.10.20/24',
        'ipv4.gateway',
        '192.168.10.1',
        'ipv4.dns',
        '192.168.10.1',
      ],
      ['connection', 'up', LAN_PROFILE],
    ]);
  });

  test('DHCP clears the static address; a profile that already has the settings is left alone (the link is not bounced)', () => {
    const staticNow = { 'ipv4.method': 'manual', 'ipv4.addresses': '192.168.10.20/24', 'ipv4.gateway': '192.168.10.1', 'ipv4.dns': '192.168.10.1' };
    expect(nmcliPlan(DHCP, { lan: staticNow, gsm: null })).toEqual([
      ['connection', 'modify', LAN_PROFILE, 'ipv4.method', 'auto', 'ipv4.addresses', '', 'ipv4.gateway', '', 'ipv4.dns', ''],
      ['connection', 'up', LAN_PROFILE],
    ]);
    expect(nmcliPlan(STATIC, { lan: staticNow, gsm: null })).toEqual([]);
    expect(nmcliPlan(DHCP, { lan: { 'ipv4.method': 'auto', 'ipv4.addresses': '', 'ipv4.gateway': '', 'ipv4.dns': '' }, gsm: null })).toEqual([]);
  });

  test("GSM on: a modem profile with the APN whose routes win over the LAN's; off: it stops connecting", () => {
    const lan = { 'ipv4.method': 'auto', 'ipv4.addresses': '', 'ipv4.gateway': '', 'ipv4.dns': '' };
    const on = { ...DHCP, gsm: { enabled: true, apn: 'internet.provider.com' } };
    expect(nmcliPlan(on, { lan, gsm: null })).toEqual([
      [
        'connection',
        'add',
        'type',
        'gsm',
        'ifname',
        '*',
        'con-name',
        GSM_PROFILE,
        'gsm.apn',
        'internet.provider.com',
        'connection.autoconnect',
        'yes',
        'ipv4.route-metric',
        '50',
      ],
      ['connection', 'up', GSM_PROFILE],
    ]);
    const gsmNow = { 'gsm.apn': 'internet.provider.com', 'connection.autoconnect': 'yes', 'ipv4.route-metric': '50' };
    expect(nmcliPlan(on, { lan, gsm: gsmNow })).toEqual([]);
    expect(nmcliPlan({ ...on, gsm: { enabled: true, apn: 'other.apn' } }, { lan, gsm: gsmNow })).toEqual([
      ['connection', 'modify', GSM_PROFILE, 'gsm.apn', 'other.apn'],
      ['connection', 'up', GSM_PROFILE],
    ]);
    expect(nmcliPlan(DHCP, { lan, gsm: gsmNow })).toEqual([
      ['connection', 'modify', GSM_PROFILE, 'connection.autoconnect', 'no'],
      ['connection', 'down', GSM_PROFILE],
    ]);
    expect(nmcliPlan(DHCP, { lan, gsm: { ...gsmNow, 'connection.autoconnect': 'no' } })).toEqual([]);
    expect(nmcliPlan(DHCP, { lan, gsm: null })).toEqual([]);
  });
});

describe('a static configuration holds together', () => {
  test('netmasks and prefixes', () => {
    expect(['255.255.255.0', '255.255.0.0', '255.0.0.0', '255.255.255.252', '255.255.255.255', '0.0.0.0'].map(prefixOf)).toEqual([24, 16, 8, 30, 32, 0]);
    expect(prefixOf('255.0.255.0')).toBeUndefined();
  });

  test.each([
    ['192.168.10.20', '255.255.255.0', '192.168.10.1', null],
    ['192.168.10.0', '255.255.255.0', '192.168.10.1', 'address-is-network'],
    ['192.168.10.255', '255.255.255.0', '192.168.10.1', 'address-is-broadcast'],
    ['192.168.10.20', '255.255.255.0', '192.168.11.1', 'gateway-outside'],
    ['192.168.10.20', '255.255.255.0', '192.168.10.20', 'gateway-is-address'],
    ['10.1.2.3', '255.0.0.0', '10.200.0.1', null],
  ])('%s/%s via %s: %s', (address, netmask, gateway, problem) => {
    expect(lanProblem(address, netmask, gateway)?.problem ?? null).toBe(problem);
  });

  test('the address and the gateway are judged apart: both problems at once', () => {
    expect(lanProblems('192.168.10.0', '255.255.255.0', '10.0.0.1').map((p) => p.problem)).toEqual(['address-is-network', 'gateway-outside']);
    expect(lanProblems('192.168.10.255', '255.255.255.0', '192.168.10.255').map((p) => p.problem)).toEqual(['address-is-broadcast', 'gateway-is-address']);
  });
});

describe('nmcli', () => {
  type Call = { args: string[]; answer: { err?: Error & { code?: unknown }; stdout?: string; stderr?: string } };
  const fake = (answer: (args: string[]) => Call['answer']) => {
    const calls: string[][] = [];
    const backend = createNmcli((file, args, cb) => {
      expect(file).toBe('nmcli');
      calls.push(args);
      const a = answer(args);
      cb(a.err ?? null, a.stdout ?? '', a.stderr ?? '');
    });
    return { backend, calls };
  };

  test('missing: the network settings cannot be applied, and the reason says so', async () => {
    const { backend } = fake(() => ({ err: Object.assign(new Error('spawn nmcli ENOENT'), { code: 'ENOENT' }) }));
    expect(await backend.unavailable()).toBe('nmcli is not installed (NetworkManager)');
  });

  test("a profile's properties, one a line; a profile that does not exist is none", async () => {
    const { backend, calls } = fake((args) =>
      args.includes(GSM_PROFILE)
        ? { err: new Error('exit 10'), stderr: `Error: ${GSM_PROFILE} - no such connection profile.\n` }
        : { stdout: 'manual\n192.168.10.20/24\n192.168.10.1\n192.168.10.1\n' },
    );
    expect(await backend.profile(LAN_PROFILE, ['ipv4.method', 'ipv4.addresses', 'ipv4.gateway', 'ipv4.dns'])).toEqual({
      'ipv4.method': 'manual',
      'ipv4.addresses': '192.168.10.20/24',
      'ipv4.gateway': '192.168.10.1',
      'ipv4.dns': '192.168.10.1',
    });
    expect(await backend.profile(GSM_PROFILE, ['gsm.apn'])).toBeNull();
    expect(calls[0]).toEqual(['-g', 'ipv4.method,ipv4.addresses,ipv4.gateway,ipv4.dns', 'connection', 'show', LAN_PROFILE]);
  });
});

describe('applying at start', () => {
  const logger = () => {
    const lines: Array<{ level: string; fields: object; msg: string }> = [];
    const at = (level: string) => (fields: object, msg: string) => void lines.push({ level, fields, msg });
    return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } as never };
  };
  const backend = (over: Partial<NetworkBackend> = {}): NetworkBackend & { ran: string[][] } => {
    const ran: string[][] = [];
    return { kind: 'nmcli', ran, unavailable: async () => null, profile: async () => null, run: async (args) => void ran.push(args), ...over };
  };

  test('a profile that cannot come up yet (no cable, no modem) is saved and waits; it is a warning, not a failure', async () => {
    const b = backend({
      run: async (args) => {
        if (args[1] === 'up') throw new Error('nmcli connection up: Error: no suitable device found');
        b.ran.push(args);
      },
    });
    const { lines, logger: log } = logger();
    await createNetwork(b, log).apply(STATIC, 0);
    expect(b.ran.map((a) => a[1])).toEqual(['add', 'modify']);
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
  });

  test('without NetworkManager nothing is run, and the log says why', async () => {
    const b = backend({ unavailable: async () => 'nmcli is not installed (NetworkManager)' });
    const { lines, logger: log } = logger();
    const network = createNetwork(b, log);
    await network.apply(STATIC, 0);
    expect(b.ran).toEqual([]);
    expect(lines).toEqual([
      {
        level: 'error',
        fields: { reason: 'nmcli is not installed (NetworkManager)' },
        msg: 'the network settings cannot be applied: NetworkManager (nmcli) is not available on this controller',
      },
    ]);
    expect(network.lastApplied()).toEqual({ at: 0, commands: [], error: 'nmcli is not installed (NetworkManager)' });
  });
});

describe('settings writes', () => {
  test("on a controller without NetworkManager every network key is refused, with the reason in the request's language; other settings are not", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-network-'));
    const database = await openDatabase(`file:${join(dir, 'c.db')}`);
    try {
      const check = networkCheck({ unavailable: async () => 'nmcli is not installed (NetworkManager)' });
      const settings = await createSettings(database, { now: () => 0, computed: () => computedValues(() => 0), check });
      const installer = { role: 'installer' as const, username: 'installer' };
      await expect(
        settings.set(installer, [
          { key: 'LanMode', value: 1 },
          { key: 'MaxCurrent', value: 10 },
        ]),
      ).rejects.toMatchObject({
        kind: 'invalid',
        message: 'No setting was changed: "LanMode" cannot be applied: this controller has no NetworkManager (nmcli) (params[0])',
        details: {
          params: [
            { key: 'LanMode', success: false, cause: 'cannot be applied: this controller has no NetworkManager (nmcli)' },
            { key: 'MaxCurrent', success: false },
          ],
        },
      });
      await settings.set(installer, [{ key: 'Language', value: 1 }]);
      await expect(settings.set(installer, [{ key: 'GsmEnabled', value: 1 }])).rejects.toMatchObject({
        details: {
          params: [{ key: 'GsmEnabled', success: false, cause: 'kann nicht angewendet werden: Dieser Controller hat keinen NetworkManager (nmcli)' }],
        },
      });
      expect((await settings.set(installer, [{ key: 'MaxCurrent', value: 10 }])).params).toEqual([{ key: 'MaxCurrent', success: true }]);
      expect(settings.get('LanMode')).toBe(0);
    } finally {
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  const simulatedManager =
    'HARDWARE=sim: an inconsistent static configuration is refused beside its field; a good one is applied by the simulated manager at the next start, ' +
    'which shows the commands';
  test(simulatedManager, async () => {
    const h = await startHarness();
    try {
      const session = await h.login();
      const set = (params: Array<{ key: string; value: unknown }>) => h.http('PATCH', '/v1/settings', { session, body: { params } });
      const refused = await set([
        { key: 'LanMode', value: 1 },
        { key: 'LanIpAddress', value: '192.168.10.20' },
        { key: 'LanGateway', value: '192.168.11.1' },
      ]);
      expect(refused).toMatchObject({ status: 400, json: FAILED });
      expect(refused.json.params).toEqual([
        { key: 'LanMode', success: false },
        { key: 'LanIpAddress', success: false, cause: 'puts the gateway outside the subnet of the static address' },
        { key: 'LanGateway', success: false, cause: 'puts the gateway outside the subnet of the static address' },
      ]);
      const badMask = await set([{ key: 'LanNetmask', value: '255.0.255.0' }]);
      expect(badMask.json.params[0].cause).toBe('must be a netmask from /8 to /30 such as 255.255.255.0');
      const badApn = await set([{ key: 'GsmApn', value: '-foo bar' }]);
      expect(badApn.json.params[0].cause).toBe('must be empty or an APN of letters, digits, "-" and dots such as internet.provider.com');

      // At the start, the defaults (DHCP) were handed to the simulated manager.
      expect((await h.http('GET', '/sim')).json.network.commands).toEqual([
        `nmcli connection add type ethernet ifname eth0 con-name ${LAN_PROFILE} connection.autoconnect yes connection.autoconnect-priority 100`,
        `nmcli connection modify ${LAN_PROFILE} ipv4.method auto ipv4.addresses '' ipv4.gateway '' ipv4.dns ''`,
        `nmcli connection up ${LAN_PROFILE}`,
      ]);
      const saved = await set([
        { key: 'LanMode', value: 1 },
        { key: 'LanIpAddress', value: '192.168.10.20' },
        { key: 'LanGateway', value: '192.168.10.1' },
        { key: 'GsmEnabled', value: 1 },
        { key: 'GsmApn', value: 'internet.provider.com' },
      ]);
      expect(saved.json.reboot_required).toBe(true);
      await h.stop({ keepData: true });
      const again = await startHarness({ dataDir: h.dataDir });
      try {
        const { network } = (await again.http('GET', '/sim')).json;
        expect(network.commands).toEqual([
          `nmcli connection add type ethernet ifname eth0 con-name ${LAN_PROFILE} connection.autoconnect yes connection.autoconnect-priority 100`,
          `nmcli connection modify ${LAN_PROFILE} ipv4.method manual ipv4.addresses 192.168.10.20/24 ipv4.gateway 192.168.10.1 ipv4.dns 192.168.10.1`,
          `nmcli connection up ${LAN_PROFILE}`,
          `nmcli connection add type gsm ifname '*' con-name ${GSM_PROFILE} gsm.apn internet.provider.com connection.autoconnect yes ipv4.route-metric 50`,
          `nmcli connection up ${GSM_PROFILE}`,
        ]);
        expect(again.logs.join('')).toContain('network settings applied (simulated: nothing was changed)');
      } finally {
        await again.stop();
      }
    } finally {
      await h.stop();
    }
  });
});
