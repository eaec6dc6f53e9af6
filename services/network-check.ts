import { lanProblem, type Network } from './network.js';
import { NETWORK_REASONS } from './network-settings.js';
import type { SettingsCheck } from './settings/index.js';

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
    const found = lanProblem(String(next.get('LanIpAddress')), String(next.get('LanNetmask')), String(next.get('LanGateway')));
    if (!found) return [];
    const named = found.keys.filter((k) => requested.has(k));
    return (named.length ? named : keys.slice(0, 1)).map((key) => ({ key, reason: (lang) => NETWORK_REASONS[found.problem][lang] }));
  };
}
