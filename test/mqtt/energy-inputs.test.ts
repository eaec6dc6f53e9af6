import { describe, expect, test } from 'vitest';
import { c, connect, o, patch, until, useMqttTestbed } from './support.js';

/** The energy inputs over MQTT against a real broker (aedes; mosquitto in .ci/run): docs/energy.md, Inputs. */

useMqttTestbed();

const inputs = () => c.h.controller.energyInputs.inputs;

describe('energy inputs over MQTT', () => {
  test('grid power from its topic (a number, three lines); the topic follows the setting; a bad payload changes nothing', async () => {
    await connect({ GridPowerSource: 2, GridPowerTopic: 'home/meter/grid' });
    await o.publish('home/meter/grid', '[500, -250.5, 1000]');
    await until('the grid power taken', () => inputs().gridPowerW() !== null);
    expect(inputs().gridPowerW()).toEqual({ value: [500, -250.5, 1000], at: c.h.clock.now() });
    await o.publish('home/meter/grid', '{"powerW": "lots"}');
    await o.publish('home/meter/grid', '-1500');
    await until('the next grid power', () => inputs().gridPowerW()!.value[0] === -500);
    expect(inputs().gridPowerW()!.value).toEqual([-500, -500, -500]);
    // Another topic: the old one is no longer subscribed (what reaches the inputs is recorded).
    const heard: string[] = [];
    const receive = inputs().mqtt.receive;
    inputs().mqtt.receive = (topic, payload) => {
      heard.push(topic);
      return receive(topic, payload);
    };
    await patch({ GridPowerTopic: 'home/meter/grid2' });
    // The subscription is on its way: publish until it is heard.
    await until('the new topic heard', () => {
      void o.publish('home/meter/grid2', '3000');
      return inputs().gridPowerW()!.value[0] === 1000;
    });
    await o.publish('home/meter/grid', '6000');
    await o.publish('home/meter/grid2', '300');
    await until('the last message on the new topic', () => inputs().gridPowerW()!.value[0] === 100);
    expect(heard).not.toContain('home/meter/grid');
  });

  test('the grid-operator limit: each message is the heartbeat, with the time it arrived', async () => {
    await connect({ GridOperatorSource: 1, GridOperatorTopic: 'dso/steuerbox/limit' });
    expect(inputs().gridOperator()).toEqual({ value: null, at: 0 });
    await o.publish('dso/steuerbox/limit', '{"limitW": 4200}', { retain: true });
    await until('the limit taken', () => inputs().gridOperator()!.value === 4200);
    const first = inputs().gridOperator()!.at;
    expect(first).toBe(c.h.clock.now());
    await c.step(60_000);
    await o.publish('dso/steuerbox/limit', '{"limitW": null}');
    await until('the heartbeat', () => inputs().gridOperator()!.at > first);
    expect(inputs().gridOperator()).toEqual({ value: null, at: first + 60_000 });
  });
});
