import { lanProblems, type Network } from './network.js';
import { NETWORK_REASONS } from './network-settings.js';
import type { SettingsCheck } from './settings/index.js';
import type { LanguageKey } from './i18n.js';

const NETWORK_KEYS = ['LanMode', 'LanIpAddress', 'LanNetmask', 'LanGateway', 'GsmEnabled', 'GsmApn'];
const LAN_KEYS = ['LanMode', 'LanIpAddress', 'LanNetmask', 'LanGateway'];

/**
 * The settings write's check of the network group (services/settings/index.ts `check`): a controller without
 * NetworkManager refuses every network key (nothing could apply it), and a static LAN configuration must hold
 * together (the address a host of its subnet, the gateway another host of it).
 */
export function networkCheck(network: Pick<Network, 'unavailable'>): SettingsCheck {
  return async (next, requested) => {
    const keys = NETWORK_KEYS.filter((k) => requested.has(k));
    if (keys.length === 0) return [];
    if (await network.unavailable()) return keys.map((key) => ({ key, reason: (lang) => NETWORK_REASONS.noNetworkManager[lang] }));
    if (!LAN_KEYS.some((k) => requested.has(k))) return [];
    const [address, netmask, gateway] = ['LanIpAddress', 'LanNetmask', 'LanGateway'].map((k) => next.get(k));
    // A value refused on its own (absent here) cannot be judged with the others: its own cause is shown instead.
    if (address === undefined || netmask === undefined || gateway === undefined) return [];
    // Each key gets the first problem that names it: the address's and the gateway's are reported together.
    const causes = new Map<string, (lang: LanguageKey) => string>();
    for (const found of lanProblems(String(address), String(netmask), String(gateway))) {
      const named = found.keys.filter((k) => requested.has(k));
      for (const key of named.length ? named : keys.slice(0, 1)) if (!causes.has(key)) causes.set(key, (lang) => NETWORK_REASONS[found.problem][lang]);
    }
    return [...causes].map(([key, reason]) => ({ key, reason }));
  };
}
