import { describe, expect, test } from 'vitest';
import type { GridInputsConfig } from '../../services/core/protocol.js';
import { allocate, ENERGY_DEFAULTS, type AllocatorInput } from '../../services/energy/allocator.js';
import { createEnergyInputs, GRID_METER_INTERVAL_MS, NEVER_HEARD, type EnergyInputsDeps } from '../../services/energy/inputs.js';
import { ManualClock } from '../clock.js';

const START = Date.UTC(2026, 5, 1, 8);

/** Settings as the inputs read them, changed with `set` (listeners called as the settings service does). */
function fakeSettings(values: Record<string, unknown>) {
  const listeners: (() => void)[] = [];
  const all: Record<string, unknown> = {
    GridPowerSource: 0,
    GridMeterAddress: 2,
    GridPowerTopic: '',
    GridOperatorSource: 0,
    GridOperatorTopic: '',
    GridOperatorDimmedLimit: 4200,
    Phases: 3,
    ...values,
  };
  return {
    get: ((key: string) => all[key]) as EnergyInputsDeps['settings']['get'],
    onChange: (l: () => void) => void listeners.push(l),
    set(key: string, value: unknown) {
      all[key] = value;
      for (const l of listeners) l();
    },
  };
}

function setUp(values: Record<string, unknown>, extra: Partial<EnergyInputsDeps> = {}) {
  const clock = new ManualClock(START);
  const settings = fakeSettings(values);
  const warnings: string[] = [];
  const inputs = createEnergyInputs({
    settings: settings as unknown as EnergyInputsDeps['settings'],
    now: () => clock.now(),
    logger: { info: () => {}, warn: (_f: object, msg: string) => void warnings.push(msg) } as unknown as EnergyInputsDeps['logger'],
    ...extra,
  });
  return { clock, settings, inputs, warnings };
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** The allocator's grid-operator limit (A per phase, three phases) for what the inputs deliver at `now`. */
function operatorAmps(gridOperator: AllocatorInput['gridOperator'], now: number): number | null {
  const input: AllocatorInput = {
    now,
    phases: { actual: 3, wired: 3, switchable: false, forced: null },
    hardware: { ratedA: 32, cableA: null },
    maxCurrentA: 32,
    supplyA: [32, 32, 32],
    ocpp: null,
    mqttA: null,
    gridOperator,
    site: null,
    solar: { mode: 'fast', surplusW: null, run: true },
    schedule: null,
    previous: null,
  };
  return allocate(input).limits.find((l) => l.source === 'gridOperator')?.amps ?? null;
}

describe('grid-operator limit and its heartbeat', () => {
  test('MQTT: each message is the heartbeat; without one for the max age the allocator applies the failsafe', async () => {
    const { clock, inputs } = setUp({ GridOperatorSource: 1, GridOperatorTopic: 'dso/limit' });
    // Nothing heard since the start: the failsafe at once (a restart must not lift a dimming it cannot see).
    expect(inputs.gridOperator()).toEqual({ value: null, at: NEVER_HEARD });
    const failsafeA = ENERGY_DEFAULTS.gridOperatorFailsafeW / 690; // W at 230 V on three phases
    expect(operatorAmps(inputs.gridOperator(), clock.now())).toBeCloseTo(failsafeA, 6);

    expect(inputs.mqtt.receive('dso/limit', json({ limitW: null }))).toBe(true);
    expect(inputs.gridOperator()).toEqual({ value: null, at: START });
    expect(operatorAmps(inputs.gridOperator(), clock.now())).toBeNull();

    await clock.advance(ENERGY_DEFAULTS.gridOperatorMaxAgeMs - 1000);
    inputs.mqtt.receive('dso/limit', json(11_000)); // a number is W; the heartbeat again
    await clock.advance(ENERGY_DEFAULTS.gridOperatorMaxAgeMs);
    expect(inputs.gridOperator()?.value).toBe(11_000);
    expect(operatorAmps(inputs.gridOperator(), clock.now())).toBeCloseTo(15.9, 1);
    await clock.advance(1);
    expect(operatorAmps(inputs.gridOperator(), clock.now())).toBeCloseTo(failsafeA, 6);

    // A limit in A per phase is W at 230 V on the wired phases; a bad message changes nothing and is no heartbeat.
    inputs.mqtt.receive('dso/limit', json({ limitA: 10 }));
    const taken = inputs.gridOperator();
    expect(taken).toEqual({ value: 6900, at: clock.now() });
    await clock.advance(1000);
    inputs.mqtt.receive('dso/limit', Buffer.from('{"limitW": -5}'));
    inputs.mqtt.receive('dso/limit', Buffer.from('not json'));
    expect(inputs.gridOperator()).toEqual(taken);
    expect(inputs.mqtt.receive('other/topic', json(1))).toBe(false);
  });

  test('HTTP: the same rules; a push to an input the settings do not take over HTTP is refused', async () => {
    const { clock, inputs, settings } = setUp({ GridOperatorSource: 1 });
    expect(() => inputs.pushGridOperator({ limitW: 5000 })).toThrow(/not pushed over HTTP/);
    settings.set('GridOperatorSource', 2);
    expect(inputs.pushGridOperator({ limitW: 5000 })).toBe(5000);
    await clock.advance(10);
    expect(() => inputs.pushGridOperator({ limitW: 5000, extra: 1 })).toThrow(/not taken/);
    expect(inputs.gridOperator()).toEqual({ value: 5000, at: START });
    // Another source forgets what this one said.
    settings.set('GridOperatorSource', 1);
    expect(inputs.gridOperator()).toEqual({ value: null, at: NEVER_HEARD });
    settings.set('GridOperatorSource', 0);
    expect(inputs.gridOperator()).toBeNull();
  });

  test('ripple-control contact: always fresh; closed = the dimmed limit (a setting), open = unlimited', async () => {
    const configs: GridInputsConfig[] = [];
    const { clock, inputs, settings } = setUp({ GridOperatorSource: 3 }, { core: { configure: (c) => void configs.push(c) } });
    expect(configs).toEqual([{ meterAddress: null, rippleContact: true }]);
    // Until the core reports the contact: the failsafe.
    expect(inputs.gridOperator()).toEqual({ value: null, at: NEVER_HEARD });
    inputs.fromCore({ type: 'rippleContact', closed: true });
    await clock.advance(ENERGY_DEFAULTS.gridOperatorMaxAgeMs * 2);
    const now = inputs.gridOperator()!.at;
    expect(now).toBe(clock.now());
    expect(inputs.gridOperator()).toEqual({ value: 4200, at: now });
    settings.set('GridOperatorDimmedLimit', 6000);
    expect(inputs.gridOperator()?.value).toBe(6000);
    inputs.fromCore({ type: 'rippleContact', closed: false });
    expect(inputs.gridOperator()?.value).toBeNull();
    // Another source forgets the contact; the core is told to stop reading it.
    settings.set('GridOperatorSource', 0);
    expect(configs.at(-1)).toEqual({ meterAddress: null, rippleContact: false });
    settings.set('GridOperatorSource', 3);
    expect(inputs.gridOperator()).toEqual({ value: null, at: NEVER_HEARD });
    // Without a core to read it: the failsafe, logged.
    const without = setUp({ GridOperatorSource: 3 });
    expect(without.inputs.gridOperator()).toEqual({ value: null, at: NEVER_HEARD });
    expect(without.warnings.join()).toMatch(/failsafe/);
  });
});

describe('grid power', () => {
  test('the core reads the grid meter at the address the settings give; a silent meter leaves the last reading to age', async () => {
    const configs: GridInputsConfig[] = [];
    const { clock, inputs, warnings, settings } = setUp({ GridPowerSource: 1 }, { core: { configure: (c) => void configs.push(c) } });
    expect(configs).toEqual([{ meterAddress: 2, rippleContact: false }]);
    settings.set('GridMeterAddress', 7);
    expect(configs.at(-1)).toEqual({ meterAddress: 7, rippleContact: false });
    inputs.fromCore({ type: 'gridPower', powerW: [100, 200, -300] });
    expect(inputs.gridPowerW()).toEqual({ value: [100, 200, -300], at: START });
    await clock.advance(GRID_METER_INTERVAL_MS);
    inputs.fromCore({ type: 'gridPower', powerW: [1, 2, 3] });
    expect(inputs.gridPowerW()).toEqual({ value: [1, 2, 3], at: START + GRID_METER_INTERVAL_MS });
    // Silent: the core says so once; the reading stays and ages, so the allocator's staleness rules apply.
    inputs.fromCore({ type: 'gridPower', powerW: null, error: 'no answer' });
    await clock.advance(ENERGY_DEFAULTS.surplusMaxAgeMs + 1);
    expect(inputs.gridPowerW()?.at).toBe(START + GRID_METER_INTERVAL_MS);
    expect(warnings).toEqual(['the grid meter does not answer']);
    // Off: no grid power, the core stops reading, a late reading is not taken.
    settings.set('GridPowerSource', 0);
    expect(configs.at(-1)).toEqual({ meterAddress: null, rippleContact: false });
    inputs.fromCore({ type: 'gridPower', powerW: [5, 5, 5] });
    expect(inputs.gridPowerW()).toBeNull();
    settings.set('GridPowerSource', 1);
    expect(inputs.gridPowerW()).toBeNull(); // a change of source forgets what the old one said
  });

  test('MQTT and HTTP formats: a total (spread over the lines), three lines, {"powerW": …}; bad ones change nothing', () => {
    const { inputs, settings } = setUp({ GridPowerSource: 2, GridPowerTopic: 'home/grid' });
    inputs.mqtt.receive('home/grid', Buffer.from('-3000'));
    expect(inputs.gridPowerW()?.value).toEqual([-1000, -1000, -1000]);
    inputs.mqtt.receive('home/grid', Buffer.from('[100, -200.5, 300]'));
    expect(inputs.gridPowerW()?.value).toEqual([100, -200.5, 300]);
    for (const bad of ['[1, 2]', '"12"', '{"powerW": 1, "x": 2}', '[1e9, 0, 0]', 'NaN', '']) inputs.mqtt.receive('home/grid', Buffer.from(bad));
    expect(inputs.gridPowerW()?.value).toEqual([100, -200.5, 300]);
    expect(() => inputs.pushGridPower({ powerW: 1 })).toThrow(/not pushed over HTTP/);
    settings.set('GridPowerSource', 3);
    expect(inputs.gridPowerW()).toBeNull();
    expect(inputs.pushGridPower({ powerW: 900 })).toEqual([300, 300, 300]);
    expect(() => inputs.pushGridPower({ powerW: [1, 2, 'x'] })).toThrow(/not taken/);
    expect(inputs.gridPowerW()?.value).toEqual([300, 300, 300]);
  });

  test('the MQTT topics follow the settings', () => {
    const { inputs, settings } = setUp({ GridPowerSource: 2, GridPowerTopic: 'home/grid', GridOperatorSource: 1, GridOperatorTopic: 'dso/limit' });
    let changes = 0;
    inputs.mqtt.onTopicsChanged(() => changes++);
    expect(inputs.mqtt.topics()).toEqual(['home/grid', 'dso/limit']);
    settings.set('GridPowerTopic', 'meter/grid');
    expect(inputs.mqtt.topics()).toEqual(['meter/grid', 'dso/limit']);
    settings.set('GridOperatorSource', 2);
    expect(inputs.mqtt.topics()).toEqual(['meter/grid']);
    settings.set('MaxCurrent', 10);
    expect(changes).toBe(2);
  });
});
