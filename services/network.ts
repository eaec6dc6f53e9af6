import { execFile } from 'node:child_process';
import type { Logger } from './logger.js';
import type { LanProblem } from './network-settings.js';
import type { Settings } from './settings/index.js';

/**
 * The network settings (group Network: LAN static address, GSM) applied through NetworkManager, the network manager
 * of Raspberry Pi OS, with `nmcli` (docs/network.md). The controller keeps two connection profiles of its own,
 * `charge-controller-lan` (on the Ethernet device) and `charge-controller-gsm` (the modem), and makes them what the
 * settings say at every start: they are marked reboot, so a change takes effect with the next start
 * (POST /v1/restart). Values are validated by the catalogue before they are stored, and passed to nmcli as separate
 * arguments (never through a shell). With HARDWARE=sim a simulated manager records the commands it would run and
 * shows them (GET /sim, the log); on a controller without nmcli, network settings are refused when written.
 */

export const LAN_PROFILE = 'charge-controller-lan';
export const GSM_PROFILE = 'charge-controller-gsm';
/** The Ethernet device of the LAN profile. */
export const LAN_DEVICE = 'eth0';
/** The LAN profile wins over NetworkManager's own profiles for the device ("Wired connection 1"). */
const LAN_PRIORITY = '100';
/** Routes over the modem are preferred to the LAN's (NetworkManager's default metric for Ethernet is 100). */
const GSM_ROUTE_METRIC = '50';

export interface NetworkSettings {
  lan: { mode: 'dhcp' } | { mode: 'static'; address: string; netmask: string; gateway: string };
  gsm: { enabled: boolean; apn: string };
}

/** The settings' network values (services/network-settings.ts). */
export function networkSettingsOf(settings: Pick<Settings, 'get'>): NetworkSettings {
  const lan: NetworkSettings['lan'] =
    settings.get('LanMode') === 1
      ? { mode: 'static', address: settings.get('LanIpAddress'), netmask: settings.get('LanNetmask'), gateway: settings.get('LanGateway') }
      : { mode: 'dhcp' };
  return { lan, gsm: { enabled: settings.get('GsmEnabled') === 1, apn: settings.get('GsmApn') } };
}

const toNumber = (ipv4: string) => ipv4.split('.').reduce((n, part) => n * 256 + Number(part), 0);

/** The prefix length of a netmask (255.255.255.0 → 24); undefined when its ones are not contiguous. */
export function prefixOf(netmask: string): number | undefined {
  const bits = toNumber(netmask).toString(2).padStart(32, '0');
  if (!/^1*0*$/.test(bits)) return undefined;
  return bits.includes('0') ? bits.indexOf('0') : 32;
}

/**
 * Everything wrong with a static LAN configuration as a whole (each field on its own is valid): the address's
 * problem and the gateway's, each with the keys it concerns, so a form shows them together.
 */
export function lanProblems(address: string, netmask: string, gateway: string): { problem: LanProblem; keys: string[] }[] {
  const prefix = prefixOf(netmask);
  if (prefix === undefined) return []; // the field's own check refuses it
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const host = toNumber(address);
  const network = (host & mask) >>> 0;
  const broadcast = (network | (~mask >>> 0)) >>> 0;
  const found: { problem: LanProblem; keys: string[] }[] = [];
  if (prefix <= 30 && host === network) found.push({ problem: 'address-is-network', keys: ['LanIpAddress', 'LanNetmask'] });
  else if (prefix <= 30 && host === broadcast) found.push({ problem: 'address-is-broadcast', keys: ['LanIpAddress', 'LanNetmask'] });
  if (gateway === address) found.push({ problem: 'gateway-is-address', keys: ['LanGateway', 'LanIpAddress'] });
  else if ((toNumber(gateway) & mask) >>> 0 !== network) found.push({ problem: 'gateway-outside', keys: ['LanGateway', 'LanNetmask', 'LanIpAddress'] });
  return found;
}

/** The first thing wrong with a static LAN configuration, or null. */
export const lanProblem = (address: string, netmask: string, gateway: string) => lanProblems(address, netmask, gateway)[0] ?? null;

/** A connection profile as NetworkManager holds it (the properties the controller sets), or null: none. */
export interface Profile {
  [property: string]: string;
}

/** The nmcli commands that make the profiles what the settings say, given what they are now. */
export function nmcliPlan(wanted: NetworkSettings, current: { lan: Profile | null; gsm: Profile | null }): string[][] {
  const plan: string[][] = [];
  const lan: Profile =
    wanted.lan.mode === 'static'
      ? {
          'ipv4.method': 'manual',
          'ipv4.addresses': `${wanted.lan.address}/${prefixOf(wanted.lan.netmask)}`,
          'ipv4.gateway': wanted.lan.gateway,
          'ipv4.dns': wanted.lan.gateway,
        }
      : { 'ipv4.method': 'auto', 'ipv4.addresses': '', 'ipv4.gateway': '', 'ipv4.dns': '' };
  const changes = (profile: Profile, now: Profile | null) =>
    Object.entries(profile)
      .filter(([key, value]) => now?.[key] !== value)
      .flat();
  if (!current.lan) {
    plan.push([
      'connection',
      'add',
      'type',
      'ethernet',
      'ifname',
      LAN_DEVICE,
      'con-name',
      LAN_PROFILE,
      'connection.autoconnect',
      'yes',
      'connection.autoconnect-priority',
      LAN_PRIORITY,
    ]);
  }
  const lanChanges = changes(lan, current.lan);
  if (lanChanges.length) {
    plan.push(['connection', 'modify', LAN_PROFILE, ...lanChanges]);
    plan.push(['connection', 'up', LAN_PROFILE]);
  }
  if (wanted.gsm.enabled) {
    const gsm: Profile = { 'gsm.apn': wanted.gsm.apn, 'connection.autoconnect': 'yes', 'ipv4.route-metric': GSM_ROUTE_METRIC };
    const gsmChanges = changes(gsm, current.gsm);
    if (!current.gsm) plan.push(['connection', 'add', 'type', 'gsm', 'ifname', '*', 'con-name', GSM_PROFILE, ...gsmChanges]);
    else if (gsmChanges.length) plan.push(['connection', 'modify', GSM_PROFILE, ...gsmChanges]);
    if (gsmChanges.length) plan.push(['connection', 'up', GSM_PROFILE]);
  } else if (current.gsm && current.gsm['connection.autoconnect'] !== 'no') {
    plan.push(['connection', 'modify', GSM_PROFILE, 'connection.autoconnect', 'no']);
    plan.push(['connection', 'down', GSM_PROFILE]);
  }
  return plan;
}

/** Bringing a profile up fails while its device is absent (no cable, no modem): it comes up when the device does. */
const mayWait = (args: string[]) => args[1] === 'up' || args[1] === 'down';

/** What nmcli (or the simulation) is asked. */
export interface NetworkBackend {
  readonly kind: 'nmcli' | 'simulated';
  /** Null when the network can be configured here, else why not (in English, for the log). */
  unavailable(): Promise<string | null>;
  /** A profile's properties, or null when there is none. */
  profile(name: string, properties: string[]): Promise<Profile | null>;
  run(args: string[]): Promise<void>;
}

type Exec = (file: string, args: string[], cb: (err: (Error & { code?: unknown }) | null, stdout: string, stderr: string) => void) => void;
const nodeExec: Exec = (file, args, cb) => execFile(file, args, { timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => cb(err, stdout, stderr));

/** NetworkManager through `nmcli` (HARDWARE=rpi). */
export function createNmcli(exec: Exec = nodeExec): NetworkBackend {
  const nmcli = (args: string[]) =>
    new Promise<string>((resolve, reject) =>
      exec('nmcli', args, (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        if (err.code === 'ENOENT') return reject(new Error('nmcli is not installed (NetworkManager)'));
        reject(new Error(`nmcli ${args.join(' ')}: ${(stderr || err.message).trim()}`));
      }),
    );
  return {
    kind: 'nmcli',
    async unavailable() {
      try {
        await nmcli(['-t', '-f', 'RUNNING', 'general']);
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    },
    async profile(name, properties) {
      let out: string;
      try {
        out = await nmcli(['-g', properties.join(','), 'connection', 'show', name]);
      } catch (err) {
        if (/no such connection profile/i.test((err as Error).message)) return null;
        throw err;
      }
      const values = out.replace(/\n$/, '').split('\n');
      return Object.fromEntries(properties.map((p, i) => [p, values[i] ?? '']));
    },
    run: async (args) => void (await nmcli(args)),
  };
}

/** The simulated network manager (HARDWARE=sim): no profiles; it records what it would run. */
export function createSimulatedNetwork(): NetworkBackend & { commands: string[][] } {
  const commands: string[][] = [];
  return {
    kind: 'simulated',
    commands,
    unavailable: async () => null,
    profile: async () => null,
    run: async (args) => void commands.push(args),
  };
}

const LAN_PROPERTIES = ['ipv4.method', 'ipv4.addresses', 'ipv4.gateway', 'ipv4.dns'];
const GSM_PROPERTIES = ['gsm.apn', 'connection.autoconnect', 'ipv4.route-metric'];

/** The network service: whether settings can be applied here, and applying them. */
export function createNetwork(backend: NetworkBackend, logger: Logger) {
  let availability: Promise<string | null> | undefined;
  const unavailable = () => (availability ??= backend.unavailable());
  let last: { at: number; commands: string[][]; error?: string } | undefined;

  return {
    kind: backend.kind,
    /** Null when the network settings can be applied on this controller; else why not. Asked once. */
    unavailable,
    /** What was applied last (the simulation shows it). */
    lastApplied: () => last,

    /** Makes NetworkManager's profiles what the settings say; logs what it did, or why it could not. */
    async apply(wanted: NetworkSettings, now: number): Promise<void> {
      const why = await unavailable();
      if (why) {
        logger.error({ reason: why }, 'the network settings cannot be applied: NetworkManager (nmcli) is not available on this controller');
        last = { at: now, commands: [], error: why };
        return;
      }
      const done: string[][] = [];
      try {
        const plan = nmcliPlan(wanted, { lan: await backend.profile(LAN_PROFILE, LAN_PROPERTIES), gsm: await backend.profile(GSM_PROFILE, GSM_PROPERTIES) });
        for (const args of plan) {
          try {
            await backend.run(args);
            done.push(args);
          } catch (err) {
            if (!mayWait(args)) throw err;
            logger.warn({ profile: args[2], reason: (err as Error).message }, `network profile ${args[2]} saved; it is activated when its device is there`);
          }
        }
        last = { at: now, commands: done };
        const simulated = backend.kind === 'simulated' ? ' (simulated: nothing was changed)' : '';
        if (done.length) logger.info({ commands: done.map((c) => `nmcli ${c.join(' ')}`) }, `network settings applied${simulated}`);
        else logger.info({}, 'network settings: NetworkManager already has them');
      } catch (err) {
        last = { at: now, commands: done, error: (err as Error).message };
        logger.error({ reason: (err as Error).message }, 'the network settings could not be applied');
      }
    },
  };
}

export type Network = ReturnType<typeof createNetwork>;
