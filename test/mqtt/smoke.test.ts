import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCharger, type Charger } from '../charging/scenario.js';
import { observe, startBroker, startProxy, type TestBroker } from './broker.js';

let broker: TestBroker;
let c: Charger;
beforeAll(async () => {
  broker = await startBroker();
  c = await startCharger();
});
afterAll(async () => {
  await c.h.stop();
  await broker.stop();
});

test('smoke', async () => {
  const proxy = await startProxy(broker.port);
  const o = await observe(broker.url, ['#']);
  const res = await c.api('PATCH', '/v1/settings', { params: [{ key: 'MqttEnabled', value: 1 }, { key: 'MqttUrl', value: proxy.url }] });
  expect(res.status).toBe(200);
  await o.waitFor((m) => m.topic === 'charge-controller/status' && m.payload === 'online');
  await o.waitFor((m) => m.topic === 'charge-controller/state');
  console.log(o.messages.map((m) => `${m.topic} ${m.payload.slice(0, 100)}`).join('\n'));
  await o.end();
  await proxy.close();
});
