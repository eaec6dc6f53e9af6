import { readFile } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';

/**
 * What the controller's network is now (GET /v1/network, docs/network.md), so a remote change is not made blind:
 * the interfaces as the operating system reports them (node:os), their link state, the default gateway and the DNS
 * servers where Linux shows them (/sys/class/net, /proc/net/route, /etc/resolv.conf; null where it does not), and
 * the OCPP and MQTT connections (connected since, last error). Read-only; nothing here is invented: a value the
 * system does not give is null.
 */

/** One connection's state as its service reports it. */
export interface ConnectionState {
  connected: boolean;
  /** Since when it is connected (ms since the epoch), or null. */
  since: number | null;
  /** The last failure's reason and time, or null when there was none. */
  lastError: { at: number; reason: string } | null;
}

/** A connection's state, told by its service (OCPP transport, MQTT client) as it changes. */
export function createConnectionState(now: () => number) {
  const state: ConnectionState = { connected: false, since: null, lastError: null };
  return {
    connected(): void {
      if (!state.connected) state.since = now();
      state.connected = true;
    },
    failed(reason: string): void {
      state.connected = false;
      state.since = null;
      state.lastError = { at: now(), reason };
    },
    read: (): ConnectionState => ({ ...state, lastError: state.lastError && { ...state.lastError } }),
  };
}
export type ConnectionTracker = ReturnType<typeof createConnectionState>;

export interface InterfaceStatus {
  name: string;
  mac: string | null;
  /** up, down, … as /sys/class/net/<name>/operstate says; null where the system does not say. */
  link: string | null;
  addresses: { family: 'IPv4' | 'IPv6'; address: string; prefix: number | null }[];
}

export interface NetworkStatus {
  interfaces: InterfaceStatus[];
  gateway: string | null;
  dns: string[] | null;
  backend: ConnectionState & { configured: boolean };
  mqtt: ConnectionState & { configured: boolean };
}

/** Reads a file, or null where it is not there (not Linux, no permission). */
type Read = (path: string) => Promise<string | null>;
const readText: Read = (path) => readFile(path, 'utf8').catch(() => null);

/** The default route's gateway from /proc/net/route (little-endian hex), or null. */
export function gatewayOf(routes: string | null): string | null {
  for (const line of (routes ?? '').split('\n').slice(1)) {
    const [, destination, gateway, , , , , mask] = line.trim().split(/\s+/);
    if (destination === '00000000' && mask === '00000000' && gateway && gateway !== '00000000') {
      const n = Number.parseInt(gateway, 16);
      return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255].join('.');
    }
  }
  return null;
}

/** The nameservers of a resolv.conf, or null when there is none to read. */
export function dnsOf(resolvConf: string | null): string[] | null {
  if (resolvConf === null) return null;
  return [...resolvConf.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1] as string);
}

export function createNetworkStatus(deps: {
  backend: { read: () => ConnectionState; configured: () => boolean };
  mqtt: { read: () => ConnectionState; configured: () => boolean };
  interfaces?: typeof networkInterfaces;
  read?: Read;
}) {
  const read = deps.read ?? readText;
  const list = deps.interfaces ?? networkInterfaces;
  return {
    async read(): Promise<NetworkStatus> {
      const interfaces = await Promise.all(
        Object.entries(list())
          .filter(([, infos]) => infos && !infos.every((i) => i.internal))
          .map(async ([name, infos = []]): Promise<InterfaceStatus> => {
            const mac = infos.find((i) => i.mac && i.mac !== '00:00:00:00:00:00')?.mac ?? null;
            const link = (await read(`/sys/class/net/${name}/operstate`))?.trim() || null;
            const addresses = infos.map((i) => ({ family: i.family, address: i.address, prefix: prefixOfCidr(i.cidr) }));
            return { name, mac, link, addresses };
          }),
      );
      const [routes, resolv] = await Promise.all([read('/proc/net/route'), read('/etc/resolv.conf')]);
      return {
        interfaces,
        gateway: gatewayOf(routes),
        dns: dnsOf(resolv),
        backend: { ...deps.backend.read(), configured: deps.backend.configured() },
        mqtt: { ...deps.mqtt.read(), configured: deps.mqtt.configured() },
      };
    },
  };
}
export type NetworkStatusService = ReturnType<typeof createNetworkStatus>;

const prefixOfCidr = (cidr: string | null): number | null => (cidr ? Number(cidr.split('/')[1]) : null);
