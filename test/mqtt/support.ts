import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { startCharger, type Charger } from '../charging/scenario.js';
import {
  BROKER_PASSWORD,
  observe,
  retained,
  startBroker,
  startProxy,
  TLS_CA_FILE,
  type Observer,
  type Proxy,
  type Received,
  type TestBroker,
} from './broker.js';

/**
 * The set-up of the MQTT tests (mqtt.test.ts, home-assistant.test.ts): a real broker on a real TCP port (aedes in
 * the test process by default, Debian's mosquitto with MQTT_TEST_BROKER=mosquitto, .ci/run), a controller that
 * reaches it through a TCP proxy (its "network": cut and refused at will), and an observer subscribed to everything
 * on the broker directly. Intervals, backoff and the load limit's refresh time run on the manual clock; the tests
 * wait for the messages themselves. The bindings below are live: `c`, `o`, `proxy` are each test's own.
 */

export const BASE = 'charge-controller';
export const TEST_SECRETS = [BROKER_PASSWORD, 'wrong-password-1'];
export let broker: TestBroker;
export let proxy: Proxy;
export let c: Charger;
export let o: Observer;

/** A new observer in place of the test's (after a broker restart). */
export function replaceObserver(next: Observer): void {
  o = next;
}

/**
 * Registers the hooks of a test file: broker, proxy, controller and observer; retained messages cleared after each
 * test; no secret ever published. `harness`: further options of each test's controller (an energy control double).
 */
export function useMqttTestbed(harness: () => NonNullable<Parameters<typeof startCharger>[0]>['harness'] = () => ({})): void {
  /** Every message the observers saw in this file (checked for secrets at the end). */
  const everything: Received[] = [];
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker.stop();
  });
  beforeEach(async () => {
    proxy = await startProxy(broker.port);
    c = await startCharger({ env: { MQTT_CA_FILE: TLS_CA_FILE }, harness: harness() });
    o = await observe(broker.url, ['#']);
  });
  afterEach(async () => {
    everything.push(...o.messages);
    await o.end();
    await c.h.stop();
    await proxy.close();
    // Retained messages of one test must not be seen by the next.
    const kept = await retained(broker.url, '#');
    const cleaner = await observe(broker.url, []);
    for (const topic of kept.keys()) await cleaner.publish(topic, '', { retain: true });
    await cleaner.end();
  });
  afterAll(() => {
    // No secret, and by default no tag id, was ever published (the tag test allowed them only for its own check).
    for (const m of everything) for (const s of TEST_SECRETS) expect(m.payload.includes(s) || m.topic.includes(s), m.topic).toBe(false);
  });
}

export const mqttState = () => c.h.controller.mqtt.state() as { connection: string; meter: string; loadLimit: string };

export async function until(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; MQTT actor: ${JSON.stringify(mqttState())}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export async function patch(params: Record<string, unknown>, expected = 200) {
  const res = await c.api('PATCH', '/v1/settings', { params: Object.entries(params).map(([key, value]) => ({ key, value })) });
  expect(res.status, res.text).toBe(expected);
  await c.step(0);
  return res;
}

/** MQTT on, through the proxy; resolves once connected and the state is out. */
export async function connect(extra: Record<string, unknown> = {}) {
  const from = o.messages.length;
  await patch({ MqttEnabled: 1, MqttUrl: proxy.url, ...extra });
  await until('connected', () => mqttState().connection === 'connected');
  await o.waitFor((m) => m.topic === `${BASE}/state`, { from, what: 'the JSON state' });
}

export const t = (topic: string) => `${BASE}/${topic}`;
export const json = (m: Received) => JSON.parse(m.payload);
export const waitTopic = (topic: string, payload: string, from = 0) =>
  o.waitFor((m) => m.topic === t(topic) && m.payload === payload, { from, what: `${topic} = ${payload}` });

/** Sends a command and resolves with its result. */
export async function command(name: string, payload: string) {
  const from = o.messages.length;
  await o.publish(t(`set/${name}`), payload);
  const result = await o.waitFor((m) => m.topic === t('result') && json(m).command === name, { from, what: `the result of ${name}` });
  await c.step(0);
  return json(result);
}
