import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { serveAedes } from '../../bin/dev/aedes-broker.js';

/**
 * Real MQTT brokers for the tests, on a real TCP port on 127.0.0.1: `aedes` in this process (the default, npm only),
 * or Debian's `mosquitto` (MQTT_TEST_BROKER=mosquitto; .ci/run installs it and runs the MQTT tests again with it).
 * Both accept the user `charger` with the password `broker-secret-1` and refuse other credentials, and also anonymous
 * clients (the test subscribers).
 */

export const BROKER_USER = 'charger';
export const BROKER_PASSWORD = 'broker-secret-1';

export type BrokerKind = 'aedes' | 'mosquitto';

/** Test-only TLS material (test/fixtures/mqtt-tls): the CA file the controller gets as MQTT_CA_FILE. */
const TLS_DIR = join(import.meta.dirname, '..', 'fixtures', 'mqtt-tls');
export const TLS_CA_FILE = join(TLS_DIR, 'ca.pem');
const TLS_CERT_FILE = join(TLS_DIR, 'server.pem');
const TLS_KEY_FILE = join(TLS_DIR, 'server-key.pem');

export const BROKER_KIND: BrokerKind = process.env.MQTT_TEST_BROKER === 'mosquitto' ? 'mosquitto' : 'aedes';

export interface TestBroker {
  kind: BrokerKind;
  port: number;
  url: string;
  /** mqtts:// on another port (the test CA's certificate for 127.0.0.1). */
  tlsUrl: string;
  /** Stops the broker (every connection drops, nothing retained survives) and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something accepts TCP connections on `port` (a broker process starting). */
async function accepting(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts connections on port ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function startAedes(port: number, tlsPort: number) {
  const broker = await serveAedes([{ port }, { port: tlsPort, tls: { cert: readFileSync(TLS_CERT_FILE), key: readFileSync(TLS_KEY_FILE) } }], {
    authenticate: (_client, username, password, done) => {
      if (username === undefined) return done(null, true);
      const ok = username === BROKER_USER && password?.toString() === BROKER_PASSWORD;
      if (ok) return done(null, true);
      const err = Object.assign(new Error('Bad username or password'), { returnCode: 4 });
      return done(err as never, null);
    },
  });
  return () => broker.stop();
}

async function startMosquitto(port: number, tlsPort: number, dir: string) {
  const passwords = join(dir, 'passwords');
  await writeFile(passwords, '');
  const made = spawnSync('mosquitto_passwd', ['-b', passwords, BROKER_USER, BROKER_PASSWORD]);
  if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr.toString()}`);
  const conf = join(dir, 'mosquitto.conf');
  // Anonymous clients are the test's observers; a client that sends a user name must have the right password.
  // Started as root, mosquitto would switch to its own user, who cannot read this test's private directory.
  await writeFile(
    conf,
    [
      `user ${userInfo().username}`,
      'per_listener_settings false',
      'allow_anonymous true',
      `password_file ${passwords}`,
      'persistence false',
      'log_dest stderr',
      `listener ${port} 127.0.0.1`,
      `listener ${tlsPort} 127.0.0.1`,
      `certfile ${TLS_CERT_FILE}`,
      `keyfile ${TLS_KEY_FILE}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('mosquitto', ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await accepting(port);
    await accepting(tlsPort);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`mosquitto did not start: ${(err as Error).message}\n${log}`);
  }
  return async () => {
    child.kill('SIGTERM');
    await exited;
  };
}

/** Starts the broker the environment selects on a free port. */
export async function startBroker(kind: BrokerKind = BROKER_KIND): Promise<TestBroker> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-broker-'));
  let port = 0;
  let tlsPort = 0;
  const start = () => (kind === 'mosquitto' ? startMosquitto(port, tlsPort, dir) : startAedes(port, tlsPort));
  let stop: () => Promise<void>;
  // A port found free can be taken by another test file's process before the broker listens on it (EADDRINUSE,
  // seen in CI): the first start takes two other free ports then.
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    tlsPort = await freePort();
    try {
      stop = await start();
      break;
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
  return {
    kind,
    port,
    url: `mqtt://127.0.0.1:${port}`,
    tlsUrl: `mqtts://127.0.0.1:${tlsPort}`,
    async restart() {
      await stop();
      stop = await start();
    },
    async stop() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP proxy in front of the broker, the controller's network: `cut()` breaks every connection (the broker sees the
 * client vanish without a DISCONNECT, so it publishes the Last Will), `refuse(true)` makes new connections fail.
 */
export interface Proxy {
  port: number;
  url: string;
  cut(): void;
  refuse(on: boolean): void;
  /** New connections are accepted and then hang: nothing reaches the broker (an attempt stays pending). */
  hold(on: boolean): void;
  /** The held connections go through to the broker now (what they sent meanwhile included). */
  release(): void;
  /** How many connections are held now. */
  held(): number;
  /**
   * A network partition: nothing passes either way and neither side learns of a close by the other (each finds out
   * by its own keepalive); new connections hang. Off: what both sides still hold open flows again.
   */
  partition(on: boolean): void;
  connections(): number;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<Proxy> {
  const pairs = new Set<[Socket, Socket]>();
  let refusing = false;
  let holding = false;
  let partitioned = false;
  const held = new Set<Socket>();
  const pass = (inbound: Socket) => {
    const outbound = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    const end = () => {
      if (partitioned) return; // the other side learns nothing; healing ends what is left
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', end).on('close', end);
    outbound.on('error', end).on('close', end);
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  };
  const server = createServer((inbound) => {
    if (refusing) {
      inbound.destroy();
      return;
    }
    if (holding || partitioned) {
      held.add(inbound);
      inbound.on('error', () => {}).on('close', () => held.delete(inbound));
      return;
    }
    pass(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const cut = () => {
    for (const socket of held) socket.destroy();
    held.clear();
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    cut,
    refuse(on) {
      refusing = on;
    },
    hold(on) {
      holding = on;
    },
    release() {
      for (const socket of held) pass(socket);
      held.clear();
    },
    held: () => held.size,
    partition(on) {
      if (on === partitioned) return;
      partitioned = on;
      for (const pair of [...pairs]) {
        const [a, b] = pair;
        if (on) {
          a.unpipe(b);
          b.unpipe(a);
          a.pause();
          b.pause();
        } else if (a.destroyed || b.destroyed) {
          pairs.delete(pair);
          a.destroy();
          b.destroy();
        } else {
          a.pipe(b);
          b.pipe(a);
        }
      }
      if (!on && !holding) {
        for (const socket of held) pass(socket);
        held.clear();
      }
    },
    connections: () => pairs.size,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
}

/** A test client that records every message on `topics` (retained ones included) and waits for messages. */
export interface Observer {
  client: MqttClient;
  messages: Received[];
  /** The latest payload on `topic`, or undefined. */
  last(topic: string): string | undefined;
  /** Resolves with the first message (from `from` on) that matches; fails after `timeoutMs` of real time. */
  waitFor(match: (m: Received) => boolean, opts?: { from?: number; timeoutMs?: number; what?: string }): Promise<Received>;
  publish(topic: string, payload: string, opts?: { retain?: boolean }): Promise<void>;
  end(): Promise<void>;
}

export async function observe(url: string, topics: string[], options: IClientOptions = {}): Promise<Observer> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, ...options });
  const messages: Received[] = [];
  const waiters = new Set<() => void>();
  client.on('message', (topic, payload, packet) => {
    messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain, qos: packet.qos });
    for (const w of waiters) w();
  });
  // QoS 2: every message arrives with the QoS it was published with.
  if (topics.length > 0) await client.subscribeAsync(topics, { qos: 2 });
  return {
    client,
    messages,
    last: (topic) => messages.filter((m) => m.topic === topic).at(-1)?.payload,
    waitFor(match, { from = 0, timeoutMs = 5_000, what = 'a matching message' } = {}) {
      const found = () => messages.slice(from).find(match);
      const now = found();
      if (now) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = found();
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}; received: ${JSON.stringify(messages.slice(from).map((m) => [m.topic, m.payload.slice(0, 80)]))}`));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async publish(topic, payload, { retain = false } = {}) {
      await client.publishAsync(topic, payload, { qos: 1, retain });
    },
    async end() {
      await client.endAsync();
    },
  };
}

/**
 * The retained messages on `filter` now, as a new subscriber gets them (a message forwarded live carries no retain
 * flag in MQTT 3.1.1, so retention is checked this way): topic → payload.
 */
export async function retained(url: string, filter: string): Promise<Map<string, string>> {
  const marker = `test/marker/${Math.random().toString(36).slice(2)}`;
  const o = await observe(url, [filter, marker]);
  // The broker sends the retained messages on subscribing, before the marker published after it.
  await o.publish(marker, 'end');
  await o.waitFor((m) => m.topic === marker);
  await o.end();
  return new Map(o.messages.filter((m) => m.retain && m.topic !== marker).map((m) => [m.topic, m.payload]));
}
