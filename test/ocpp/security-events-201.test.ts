import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createCertificates } from '../../services/ocpp/ocpp201/certificates.js';
import { SECURITY_EVENT_QUEUE_LIMIT } from '../../services/ocpp/ocpp201/security-events-queue.js';
import { connectionSecurityEvent, createSecurityEvents, type SecurityEventType } from '../../services/ocpp/ocpp201/security-events.js';
import { RPCClient } from 'ocpp-rpc';
import { startCsms } from '../../bin/dev/central-system.js';
import { createIssued, createRoot, expectValid201, issue } from './pki-201.js';

/**
 * SecurityEventNotification (use case A04) through the module with a fake CSMS (`call`): every call and answer
 * checked by both 2.0.1 validators. The queue of unsent events is persistent and in order: a "restart" is a new
 * module on the same data directory.
 */

const NOW = Date.parse('2026-11-28T12:00:00Z');

let dir: string;
let now: number;
let online: boolean;
let sent: Record<string, unknown>[];
/** How the fake CSMS answers the next calls: a result, a CALLERROR, or no connection. */
let outcome: 'answer' | 'callerror' | 'offline';
let logs: string[];

const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(line) });

function events(dataDir = dir) {
  return createSecurityEvents({
    dataDir,
    now: () => now,
    online: () => online,
    logger,
    call: async (action, payload) => {
      expect(action).toBe('SecurityEventNotification');
      if (outcome === 'offline') throw new Error('not connected');
      if (outcome === 'callerror') throw Object.assign(new Error('refused'), { rpcErrorCode: 'FormatViolation' });
      expectValid201(action, payload, {});
      sent.push(payload);
      return {};
    },
  });
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'security-events-201-'));
  now = NOW;
  online = true;
  sent = [];
  outcome = 'answer';
  logs = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('A04: security events', () => {
  test('online: an event is sent at once with its type, timestamp (the clock) and techInfo', async () => {
    const e = events();
    e.record('StartupOfTheDevice');
    now += 5000;
    e.record('SettingSystemTime', 'set by the CSMS from 2026-11-28T11:00:00.000Z');
    await e.pump();
    expect(sent).toEqual([
      { type: 'StartupOfTheDevice', timestamp: '2026-11-28T12:00:00.000Z' },
      { type: 'SettingSystemTime', timestamp: '2026-11-28T12:00:05.000Z', techInfo: 'set by the CSMS from 2026-11-28T11:00:00.000Z' },
    ]);
    expect(e.pending()).toBe(0);
    expect(logs.join('')).toContain('"securityEvent":"SettingSystemTime"');
  });

  test('offline: events are queued in order, survive a restart (0600 file), and are sent in order once online', async () => {
    online = false;
    const before = events();
    const order: SecurityEventType[] = ['ResetOrReboot', 'StartupOfTheDevice', 'InvalidCsmsCertificate', 'FirmwareUpdated'];
    for (const type of order.slice(0, 2)) before.record(type);
    await before.pump();
    expect(sent).toEqual([]);
    expect(statSync(join(dir, 'ocpp-security-events.json')).mode & 0o777).toBe(0o600);

    const after = events();
    expect(after.pending()).toBe(2);
    for (const type of order.slice(2)) after.record(type);
    online = true;
    await after.pump();
    expect(sent.map((p) => p.type)).toEqual(order);
    expect(events().pending()).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'ocpp-security-events.json'), 'utf8'))).toEqual([]);
  });

  test('a call that fails without an answer (connection lost) keeps the event first; a CALLERROR drops it and the next goes', async () => {
    const e = events();
    outcome = 'offline';
    e.record('ResetOrReboot');
    e.record('StartupOfTheDevice');
    await e.pump();
    expect(e.pending()).toBe(2);
    outcome = 'callerror';
    await e.pump();
    expect(e.pending()).toBe(0);
    expect(logs.join('')).toContain('refused a security event');
    outcome = 'answer';
    e.record('SettingSystemTime');
    await e.pump();
    expect(sent.map((p) => p.type)).toEqual(['SettingSystemTime']);
  });

  test('an event recorded while the queue is being sent goes after it, once', async () => {
    const e = events();
    e.record('StartupOfTheDevice');
    e.record('ResetOrReboot');
    const running = e.pump();
    e.record('SettingSystemTime');
    await running;
    await e.pump();
    expect(sent.map((p) => p.type)).toEqual(['StartupOfTheDevice', 'ResetOrReboot', 'SettingSystemTime']);
  });

  test('techInfo is cut to 255 characters; a full queue drops its oldest', async () => {
    online = false;
    const e = events();
    e.record('InvalidMessages', 'x'.repeat(300));
    for (let i = 0; i < SECURITY_EVENT_QUEUE_LIMIT; i++) e.record('StartupOfTheDevice', `boot ${i}`);
    expect(e.pending()).toBe(SECURITY_EVENT_QUEUE_LIMIT);
    expect(logs.join('')).toContain('the oldest events were dropped');
    online = true;
    await e.pump();
    expect(sent[0]).toMatchObject({ techInfo: 'boot 0' });
    expect(sent.at(-1)).toMatchObject({ techInfo: `boot ${SECURITY_EVENT_QUEUE_LIMIT - 1}` });

    const short = events(mkdtempSync(join(dir, 'other-')));
    short.record('InvalidMessages', 'y'.repeat(300));
    await short.pump();
    expect((sent.at(-1)!.techInfo as string).length).toBe(255);
  });

  test('TC_A_14: a refused CertificateSigned sends InvalidChargingStationCertificate through the queue', async () => {
    const e = events();
    const csms = createRoot({ CN: 'CSMS Root' }, NOW);
    const certificates = createCertificates({
      dataDir: dir,
      identity: () => 'CC-0001',
      organization: () => '',
      now: () => now,
      logger,
      securityEvent: e.record,
      call: async () => ({ status: 'Accepted' }),
    });
    certificates.calls.InstallCertificate({ certificateType: 'CSMSRootCertificate', certificate: csms.pem });
    await certificates.signCertificate();
    const other = createRoot({ CN: 'Another CA' }, NOW);
    const stored = JSON.parse(readFileSync(join(dir, 'ocpp-certificates', 'station.json'), 'utf8')) as { pendingKey: string };
    expect(stored.pendingKey).toContain('PRIVATE KEY');
    // A certificate for this station's key by a CA the station does not trust.
    const leaf = issue({
      subject: { CN: 'CC-0001' },
      publicKey: createPublicKey(stored.pendingKey),
      issuer: other,
      notBefore: NOW - 60_000,
      notAfter: NOW + 86_400_000,
    });
    expect(certificates.calls.CertificateSigned({ certificateChain: leaf.pem })).toMatchObject({ status: 'Rejected' });
    await e.pump();
    expect(sent).toEqual([
      {
        type: 'InvalidChargingStationCertificate',
        timestamp: '2026-11-28T12:00:00.000Z',
        techInfo: 'the chain does not end at an installed CSMS root certificate',
      },
    ]);
  });
});

describe('connection failures as security events (ocpp-rpc connecting to the development CSMS)', () => {
  /** A connection attempt as the transport makes it (ocpp-rpc, 2.0.1), trusting `ca`; resolves with the error, or undefined. */
  async function connectError(url: string, o: { ca?: string[]; password?: string } = {}): Promise<unknown> {
    const client = new RPCClient({
      endpoint: url,
      identity: 'CC-0001',
      protocols: ['ocpp2.0.1'],
      strictMode: true,
      reconnect: false,
      ...(o.password ? { password: o.password } : {}),
      wsOpts: { ...(o.ca ? { ca: o.ca } : {}), servername: 'localhost' },
    } as never);
    try {
      await client.connect();
      await client.close({ force: true });
      return undefined;
    } catch (err) {
      return err;
    }
  }

  test('a server certificate of an unknown authority or for another host is InvalidCsmsCertificate; a wrong password FailedToAuthenticateAtCsms', async () => {
    const real = Date.now();
    const installed = createRoot({ CN: 'CSMS Root' }, real);
    const unknown = createRoot({ CN: 'Unknown Root' }, real);
    const tls = (issuer: typeof installed, CN: string) => {
      const server = createIssued(issuer, { CN }, real);
      return { cert: server.pem, key: server.key.export({ type: 'pkcs8', format: 'pem' }) };
    };
    const servers = [
      await startCsms({ protocols: ['ocpp2.0.1'], tls: tls(installed, 'localhost') }),
      await startCsms({ protocols: ['ocpp2.0.1'], tls: tls(unknown, 'localhost') }),
      await startCsms({ protocols: ['ocpp2.0.1'], tls: tls(installed, 'csms.example') }),
      await startCsms({ protocols: ['ocpp2.0.1'], password: 'the-right-password-1234' }),
    ];
    try {
      const [good, otherCa, otherHost, withPassword] = servers.map((c) => c.url);
      expect(await connectError(good!, { ca: [installed.pem] })).toBeUndefined();
      const refusedCa = await connectError(otherCa!, { ca: [installed.pem] });
      expect(connectionSecurityEvent(refusedCa)?.type).toBe('InvalidCsmsCertificate');
      expect(connectionSecurityEvent(await connectError(otherHost!, { ca: [installed.pem] }))?.type).toBe('InvalidCsmsCertificate');
      expect(connectionSecurityEvent(await connectError(withPassword!, { password: 'a-wrong-password-12345' }))).toEqual({
        type: 'FailedToAuthenticateAtCsms',
        techInfo: 'HTTP 401 to the connection request',
      });
      expect(await connectError(withPassword!, { password: 'the-right-password-1234' })).toBeUndefined();
      // An unreachable CSMS is no security event.
      await servers[0]!.close();
      expect(connectionSecurityEvent(await connectError(good!, { ca: [installed.pem] }))).toBeUndefined();

      const e = events();
      const event = connectionSecurityEvent(refusedCa)!;
      e.record(event.type, event.techInfo);
      await e.pump();
      expect(sent).toMatchObject([{ type: 'InvalidCsmsCertificate' }]);
      expect(sent[0]!.techInfo).toMatch(/^[A-Z_]+: /);
    } finally {
      for (const c of servers.slice(1)) await c.close();
    }
  });
});
