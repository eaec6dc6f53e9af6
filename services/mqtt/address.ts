import { networkInterfaces } from 'node:os';

/** The first IPv4 address of a network interface other than loopback (the one Home Assistant shows). */
export function ipv4Address(): string | null {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return null;
}
