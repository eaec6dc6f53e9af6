import { expect, test } from 'vitest';
import { PHASE_SWITCH_DEFAULTS } from '../../machines/phase-switch.js';
import { KNOWN } from '../charging/scenario.js';
import { PhaseSwitchSpec } from '../model/energy-invariants.js';
import { until, useOcppChargers, type OcppCharger } from './support.js';

/**
 * OCPP 1.6 phases (docs/energy.md, Phase switching; docs/ocpp.md): ConnectorSwitch3to1PhaseSupported follows the
 * installation, and a charging profile's numberPhases reaches the allocator, so the core switches the phases with
 * its sequence; GetCompositeSchedule reports numberPhases. Every frame both ways passes the central system's second
 * validator (useOcppChargers checks it after each test).
 */

const { charger } = useOcppChargers();
const WITH_SWITCH = { GPIO_PHASE_SWITCH: '16' };

const switchSupported = async (c: OcppCharger) =>
  (await c.csms.call('GetConfiguration', { key: ['ConnectorSwitch3to1PhaseSupported'] })).configurationKey as unknown[];

async function charging(env?: Record<string, string>): Promise<OcppCharger> {
  const c = await charger(env ? { harness: { env } } : {});
  await c.online();
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  await until(c, () => c.csms.calls('StartTransaction').length === 1, 'StartTransaction');
  return c;
}

const txProfile = (periods: unknown[]) => ({
  chargingProfileId: 7,
  transactionId: 1,
  stackLevel: 1,
  chargingProfilePurpose: 'TxProfile',
  chargingProfileKind: 'Relative',
  chargingSchedule: { chargingRateUnit: 'A', chargingSchedulePeriod: periods },
});

test('ConnectorSwitch3to1PhaseSupported: false without a phase contactor, true with one, false when PhaseSwitchMode holds the phases', async () => {
  const without = await charger();
  await without.online();
  expect(await switchSupported(without)).toEqual([{ key: 'ConnectorSwitch3to1PhaseSupported', readonly: true, value: 'false' }]);
  expect(await without.csms.call('ChangeConfiguration', { key: 'ConnectorSwitch3to1PhaseSupported', value: 'true' })).toEqual({ status: 'Rejected' });

  const withSwitch = await charger({ harness: { env: WITH_SWITCH } });
  await withSwitch.online();
  expect(await switchSupported(withSwitch)).toEqual([{ key: 'ConnectorSwitch3to1PhaseSupported', readonly: true, value: 'true' }]);
  for (const [mode, supported] of [
    [3, 'false'], // never switch
    [1, 'false'], // always 1 phase
    [0, 'true'], // automatic
  ] as const) {
    const res = await withSwitch.api('PATCH', '/v1/settings', { params: [{ key: 'PhaseSwitchMode', value: mode }] });
    expect(res.status, res.text).toBe(200);
    await withSwitch.step(0);
    expect((await switchSupported(withSwitch))[0]).toMatchObject({ value: supported });
  }
});

test('a TxProfile with numberPhases 1 switches to one phase by the sequence; GetCompositeSchedule reports numberPhases', async () => {
  const c = await charging(WITH_SWITCH);
  const phases = () => c.h.controller.charging.coreState()!.phases;
  expect(phases()).toMatchObject({ actual: 3, switchable: true });
  expect((await c.view()).plant.currentsA).toEqual([16, 16, 16]);

  const spec = new PhaseSwitchSpec({ minIntervalMs: PHASE_SWITCH_DEFAULTS.minIntervalMs, maxPerSession: PHASE_SWITCH_DEFAULTS.maxPerSession });
  spec.contactor(true);
  const set = await c.csms.call('SetChargingProfile', {
    connectorId: 1,
    csChargingProfiles: txProfile([
      { startPeriod: 0, limit: 16, numberPhases: 1 },
      { startPeriod: 3600, limit: 10, numberPhases: 3 },
    ]),
  });
  expect(set).toEqual({ status: 'Accepted' });
  await c.step(0);
  expect(c.h.controller.charging.limits.get('ocpp')).toEqual({ amps: 16, numberPhases: 1 });
  expect(phases()).toMatchObject({ switching: true });

  // The sequence as the plant sees it, checked by the oracle: PWM off, main contactor open, phase contactor, settle.
  let { plant } = await c.view();
  for (let t = 0; t < PHASE_SWITCH_DEFAULTS.settleMs + 3_000; t += 100) {
    await c.step(100);
    const next = (await c.view()).plant;
    if (next.phaseContactor.moves !== plant.phaseContactor.moves) {
      spec.contactor(next.phaseContactor.movesUnderLoad !== plant.phaseContactor.movesUnderLoad);
      expect(spec.phaseChange(c.h.clock.now(), next.phaseContactor.movesOffered === plant.phaseContactor.movesOffered)).toEqual([]);
    }
    spec.contactor(next.contactorClosed);
    plant = next;
  }
  await c.step(6_000); // the ramp from 6 A after the switch
  expect(phases()).toMatchObject({ actual: 1, switching: false, switches: 1 });
  expect((await c.view()).plant).toMatchObject({ contactorClosed: true, currentsA: [16, 0, 0], activePhases: 1 });
  expect((await c.state()).energy).toMatchObject({ phases: 1 });

  const composite = await c.csms.call('GetCompositeSchedule', { connectorId: 1, duration: 7200, chargingRateUnit: 'A' });
  expect(composite.status).toBe('Accepted');
  const periods = composite.chargingSchedule.chargingSchedulePeriod;
  expect(periods.map((p: any) => [p.limit, p.numberPhases])).toEqual([
    [16, 1],
    [10, 3],
  ]);
  // In W a period counts on its own phase count.
  const watts = await c.csms.call('GetCompositeSchedule', { connectorId: 1, duration: 7200, chargingRateUnit: 'W' });
  expect(watts.chargingSchedule.chargingSchedulePeriod.map((p: any) => [p.limit, p.numberPhases])).toEqual([
    [16 * 230, 1],
    [10 * 230 * 3, 3],
  ]);

  // Without numberPhases the composite names none and the allocator chooses again.
  expect(await c.csms.call('SetChargingProfile', { connectorId: 1, csChargingProfiles: txProfile([{ startPeriod: 0, limit: 12 }]) })).toEqual({
    status: 'Accepted',
  });
  await c.step(0);
  expect(c.h.controller.charging.limits.get('ocpp')).toEqual({ amps: 12 });
  const plain = await c.csms.call('GetCompositeSchedule', { connectorId: 1, duration: 60, chargingRateUnit: 'A' });
  expect(plain.chargingSchedule.chargingSchedulePeriod).toEqual([{ startPeriod: 0, limit: 12 }]);
});
