import { describe, expect, test } from 'vitest';
import { createConnectionState, createNetworkStatus, dnsOf, gatewayOf } from '../services/network-status.js';

describe('network status', () => {
  test('the default gateway from /proc/net/route, the DNS servers from resolv.conf; null where unreadable', () => {
    const routes = [
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT',
      'eth0\t0001A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0',
      'eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
    ].join('\n');
    expect(gatewayOf(routes)).toBe('192.168.1.1');
    expect(gatewayOf(routes.split('\n').slice(0, 2).join('\n'))).toBeNull();
    expect(gatewayOf(null)).toBeNull();
    expect(dnsOf('# x\nnameserver 192.168.1.1\nnameserver  fd00::1\nsearch lan\n')).toEqual(['192.168.1.1', 'fd00::1']);
    expect(dnsOf(null)).toBeNull();
  });

  test('a connection: since when connected, the last error kept after reconnecting', () => {
    let now = 1000;
    const c = createConnectionState(() => now);
    expect(c.read()).toEqual({ connected: false, since: null, lastError: null });
    c.connected();
    now = 2000;
    c.connected();
    expect(c.read()).toEqual({ connected: true, since: 1000, lastError: null });
    c.failed('ECONNREFUSED');
    now = 3000;
    c.connected();
    expect(c.read()).toEqual({ connected: true, since: 3000, lastError: { at: 2000, reason: 'ECONNREFUSED' } });
  });

  test('interfaces without the loopback; link from operstate, unknown where the system does not say', async () => {
    const status = createNetworkStatus({
      backend: { read: createConnectionState(() => 0).read, configured: () => false },
      mqtt: { read: createConnectionState(() => 0).read, configured: () => true },
      interfaces: () => ({
        lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
        eth0: [{ address: '192.168.1.50', netmask: '255.255.255.0', family: 'IPv4', mac: 'dc:a6:32:01:02:03', internal: false, cidr: '192.168.1.50/24' }],
        wlan0: [
          { address: 'fe80::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: 'dc:a6:32:01:02:04', internal: false, cidr: 'fe80::1/64', scopeid: 3 },
        ],
      }),
      read: async (path) => (path === '/sys/class/net/eth0/operstate' ? 'up\n' : null),
    });
    const now = await status.read();
    expect(now.interfaces).toEqual([
      { name: 'eth0', mac: 'dc:a6:32:01:02:03', link: 'up', addresses: [{ family: 'IPv4', address: '192.168.1.50', prefix: 24 }] },
      { name: 'wlan0', mac: 'dc:a6:32:01:02:04', link: null, addresses: [{ family: 'IPv6', address: 'fe80::1', prefix: 64 }] },
    ]);
    expect(now).toMatchObject({ gateway: null, dns: null, backend: { configured: false, connected: false }, mqtt: { configured: true } });
  });
});
