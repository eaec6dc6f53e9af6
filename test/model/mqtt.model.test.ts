import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { backoffMs, mqttMachine, type MqttEvent, type MqttSnapshot } from '../../machines/mqtt.js';
import { startCharger, type Charger } from '../charging/scenario.js';
import { energyControlDouble } from '../energy/control-double.js';
import { observe, startBroker, startProxy, type Observer, type Proxy, type TestBroker } from '../mqtt/broker.js';
import { CoverageRecorder, planPaths, writeReport } from './model.js';

/**
 * Model-based tests of the MQTT link: paths generated from machines/mqtt.ts, executed against a controller on
 * simulated hardware and a real broker (aedes, or mosquitto with MQTT_TEST_BROKER=mosquitto) behind a TCP proxy,
 * through the real interfaces: PATCH /v1/settings, the proxy (an attempt accepted, refused or hanging; a connection
 * cut), messages on the broker (a load limit, Home Assistant's status), the simulated temperature sensor (a meter
 * value that changes) and the manual clock (backoff, meter interval, the load limit's refresh time).
 *
 * The outcome of an attempt (CONNECTED, CONNECT_FAILED) comes from the network: the proxy holds every new connection
 * (the attempt stays pending), then lets it through to the broker or breaks it. Time: a timer
 * event is offered only while no other region's timer runs, and a meter change (which takes the one second the
 * temperature sensor needs to be read again) only while no timer but the meter interval's runs and at most once per
 * interval, so advancing the clock never fires a timer the model does not expect. After every step the actor's state
 * and context must equal the model's, and the load limit the charge point applies (/sim) must be the model's.
 */

const TIMEOUT_S = 5;
const INTERVALS_S = [10, 3];
const FALLBACKS_A = [7, 8];
const LIMIT_A = 10;

type Region = { connection: string; meter: string; loadLimit: string };
const regions = (s: MqttSnapshot) => s.value as unknown as Region;
const after = (delay: string, region: string, state: string) => ({ type: `xstate.after.${delay}.mqtt.${region}.${state}` }) as unknown as MqttEvent;

function modelEvents(s: MqttSnapshot): MqttEvent[] {
  const { connection, meter, loadLimit } = regions(s);
  const { context } = s;
  const events: MqttEvent[] = [];
  if (connection === 'connecting')
    return [{ type: 'CONNECTED' }, { type: 'CONNECT_FAILED' }, { type: 'CONFIGURE', connect: true }, { type: 'CONFIGURE', connect: false }];
  events.push({ type: 'CONFIGURE', connect: true });
  if (connection !== 'disabled') events.push({ type: 'CONFIGURE', connect: false });
  events.push({ type: 'DISCOVERY', on: !context.discovery });
  events.push({ type: 'INTERVAL', ms: (context.intervalMs === INTERVALS_S[0]! * 1000 ? INTERVALS_S[1]! : INTERVALS_S[0]!) * 1000 });
  const load = (on: boolean, fallbackA: number): MqttEvent => ({ type: 'LOAD_MANAGEMENT', on, timeoutMs: TIMEOUT_S * 1000, fallbackA });
  if (loadLimit === 'off') events.push(load(true, FALLBACKS_A[0]!));
  else events.push(load(false, context.loadLimit.fallbackA), load(true, context.loadLimit.fallbackA === FALLBACKS_A[0] ? FALLBACKS_A[1]! : FALLBACKS_A[0]!));
  if (connection === 'connected') {
    events.push({ type: 'CONNECTION_LOST' }, { type: 'HA_ONLINE' });
    if (loadLimit !== 'off') events.push({ type: 'LIMIT', amps: LIMIT_A });
    if (loadLimit !== 'fresh' && (meter === 'ready' || !context.meterPending)) events.push({ type: 'METER' });
  }
  if (connection === 'waiting' && meter === 'ready' && loadLimit !== 'fresh') events.push(after('backoff', 'connection', 'waiting'));
  if (meter === 'holding' && connection !== 'waiting' && loadLimit !== 'fresh') events.push(after('interval', 'meter', 'holding'));
  if (loadLimit === 'fresh' && connection !== 'waiting' && meter !== 'holding') events.push(after('limitTimeout', 'loadLimit', 'fresh'));
  return events;
}

const { paths } = planPaths(mqttMachine, {
  events: modelEvents,
  // Failures beyond two change only the length of the wait (which the executor reads from the model).
  serializeState: (s: MqttSnapshot) => JSON.stringify([s.value, { ...s.context, failures: Math.min(s.context.failures, 2) }]),
});
const coverage = new CoverageRecorder();

let broker: TestBroker;
beforeAll(async () => {
  broker = await startBroker();
});
afterAll(async () => {
  await broker.stop();
});

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

interface Real {
  c: Charger;
  proxy: Proxy;
  o: Observer;
  clientId: number;
  temperature: number;
  /** Clock time each region's timer was armed at. */
  armed: Partial<Record<'backoff' | 'interval' | 'limit', number>>;
}

async function patch(c: Charger, params: Record<string, unknown>) {
  const res = await c.api('PATCH', '/v1/settings', { params: Object.entries(params).map(([key, value]) => ({ key, value })) });
  expect(res.status, res.text).toBe(200);
  await c.step(0);
}

async function execute(real: Real, before: MqttSnapshot, event: MqttEvent): Promise<void> {
  const { c, proxy, o } = real;
  const type = event.type as string;
  if (type.startsWith('xstate.after.backoff')) return c.step(real.armed.backoff! + backoffMs(before.context.failures) - c.h.clock.now());
  if (type.startsWith('xstate.after.interval')) return c.step(real.armed.interval! + before.context.intervalMs - c.h.clock.now());
  if (type.startsWith('xstate.after.limitTimeout')) return c.step(real.armed.limit! + before.context.loadLimit.timeoutMs - c.h.clock.now());
  switch (event.type) {
    case 'CONFIGURE':
      if (!event.connect) return patch(c, { MqttUrl: '' });
      if (regions(before).connection === 'disabled') return patch(c, { MqttUrl: proxy.url });
      return patch(c, { MqttClientId: `model-${++real.clientId}` });
    case 'CONNECTED':
    case 'CONNECT_FAILED':
      // The attempt's socket reaches the proxy once the client library has loaded (in steps, at the first
      // connection: services/load-in-steps.ts); its outcome is decided there.
      await until('the attempt to reach the proxy', () => proxy.held() > 0);
      return event.type === 'CONNECTED' ? proxy.release() : proxy.cut();
    case 'CONNECTION_LOST':
      return proxy.cut();
    case 'DISCOVERY':
      return patch(c, { MqttDiscovery: event.on ? 1 : 0 });
    case 'INTERVAL':
      return patch(c, { MqttInterval: event.ms / 1000 });
    case 'LOAD_MANAGEMENT':
      if (event.on !== (regions(before).loadLimit !== 'off')) return patch(c, { MqttLoadManagement: event.on ? 1 : 0, MqttLoadLimitFallback: event.fallbackA });
      return patch(c, { MqttLoadLimitFallback: event.fallbackA });
    case 'METER':
      await c.sim('temperature', { celsius: ++real.temperature });
      return c.step(1_000); // the sensor is read once a second
    case 'HA_ONLINE':
    case 'LIMIT': {
      await o.publish(
        event.type === 'LIMIT' ? 'charge-controller/set/LoadLimit' : 'homeassistant/status',
        event.type === 'LIMIT' ? String(event.amps) : 'online',
      );
      // A command's result: everything the controller received before it has been handled.
      const from = o.messages.length;
      await o.publish('charge-controller/set/Probe', '1');
      await o.waitFor((m) => m.topic === 'charge-controller/result' && JSON.parse(m.payload).command === 'Probe', { from });
      return c.step(0);
    }
  }
}

/** Where each region's timer was armed: on entering its timed state (a re-entry arms it again). */
function noteTimers(real: Real, before: MqttSnapshot, after: MqttSnapshot, event: MqttEvent): void {
  const now = real.c.h.clock.now();
  const [b, a] = [regions(before), regions(after)];
  if (a.connection === 'waiting' && b.connection !== 'waiting') real.armed.backoff = now;
  const reentersHolding = b.meter === 'holding' && (event.type === 'INTERVAL' || (event.type as string).startsWith('xstate.after.interval'));
  if (a.meter === 'holding' && (b.meter !== 'holding' || reentersHolding)) real.armed.interval = now;
  if (a.loadLimit === 'fresh' && (b.loadLimit !== 'fresh' || event.type === 'LIMIT')) real.armed.limit = now;
}

const stepName = (e: MqttEvent) => ((e.type as string).startsWith('xstate.after.') ? `after ${(e.type as string).split('.')[2]}` : JSON.stringify(e));

describe(`MQTT link, ${paths.length} generated paths`, () => {
  it.each(
    paths.map(
      (p) =>
        [
          p.steps
            .slice(1)
            .map((s) => stepName(s.event as MqttEvent))
            .join(' → ') || '(initial)',
          p,
        ] as const,
    ),
  )('%s', async (_name, path) => {
    const proxy = await startProxy(broker.port);
    proxy.hold(true);
    // Energy management's own topics (published when its status changes) are not the MQTT link's model: a still
    // status keeps them out of its meter region (test/mqtt/energy.test.ts covers them).
    const c = await startCharger({ inspect: coverage.inspect, harness: { energy: energyControlDouble() } });
    const o = await observe(broker.url, ['charge-controller/#']);
    try {
      // The model's initial context: discovery off, meter interval 10 s, load management off (its settings ready).
      await patch(c, { MqttEnabled: 1, MqttDiscovery: 0, MqttControl: 1, MqttLoadLimitTimeout: TIMEOUT_S, MqttLoadLimitFallback: FALLBACKS_A[0] });
      const real: Real = { c, proxy, o, clientId: 0, temperature: 30, armed: {} };
      let model = path.steps[0]!.state as MqttSnapshot;
      const steps = path.steps.slice(1);
      for (const [i, step] of steps.entries()) {
        const event = step.event as MqttEvent;
        const [next] = transition(mqttMachine, model, event);
        await execute(real, model, event);
        const at = `step ${i + 1}: ${stepName(event)}`;
        const actor = () => c.h.controller.mqtt.state();
        const context = () => c.h.controller.inspector.view().actors.find((a) => a.systemId === 'mqtt')!.context;
        const expected = { value: next.value, failures: next.context.failures, limitA: next.context.limitA, pending: next.context.meterPending };
        const seen = () => ({ value: actor(), failures: context().failures, limitA: context().loadLimitA, pending: context().meterPending });
        await until(`${at}: ${JSON.stringify(expected)} (real: ${JSON.stringify(seen())})`, () => JSON.stringify(seen()) === JSON.stringify(expected)).catch(
          () => {
            expect({ at, ...seen() }).toEqual({ at, ...expected });
          },
        );
        expect({ at, ...context() }).toMatchObject({
          at,
          discovery: next.context.discovery,
          meterIntervalS: next.context.intervalMs / 1000,
          fallbackA: next.context.loadLimit.fallbackA,
          limitRefreshS: next.context.loadLimit.timeoutMs / 1000,
        });
        // The load limit the charge point applies.
        const limit =
          regions(next).loadLimit === 'fresh' ? next.context.limitA : regions(next).loadLimit === 'fallback' ? next.context.loadLimit.fallbackA : null;
        // The limit MQTT gives the allocator loop (its input `mqtt`; the loop composes it: test/energy/).
        expect({ at, loadLimitA: c.h.controller.charging.limits.get('mqtt')?.amps ?? null }).toEqual({ at, loadLimitA: limit });
        noteTimers(real, model, next, event);
        model = next;
      }
    } finally {
      await o.end();
      await c.h.stop();
      await proxy.close();
    }
  });
});

afterAll(() => {
  const report = coverage.report('mqtt', mqttMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
});
