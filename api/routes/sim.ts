import type { Hono } from 'hono';
import * as v from 'valibot';
import { ALTERNATE_MS_RANGE, SIM_FAULTS, type SimState } from '../../drivers/index.js';
import type { ChargingService } from '../../services/charging.js';
import type { SimCommand } from '../../services/core/protocol.js';
import { invalid } from '../../services/errors.js';
import type { Simulator } from '../../services/simulator.js';
import type { AppContext, AppEnv } from '../app.js';
import { jsonBody, parseWith } from '../body.js';

const TagBody = v.strictObject({ id: v.string(), technology: v.optional(v.picklist(['RFID', 'NFC'])) });
const FaultBody = v.strictObject({ fault: v.picklist(SIM_FAULTS, `fault must be one of ${SIM_FAULTS.join(', ')}`) });
const TemperatureBody = v.strictObject({
  celsius: v.pipe(v.number(), v.minValue(-55, 'celsius must be -55 to 125, the sensor range'), v.maxValue(125, 'celsius must be -55 to 125, the sensor range')),
});
const [ALTERNATE_MIN, ALTERNATE_MAX] = ALTERNATE_MS_RANGE;
const EvBody = v.strictObject({
  maxCurrentA: v.optional(v.pipe(v.number(), v.minValue(0, 'maxCurrentA must be 0 to 80'), v.maxValue(80, 'maxCurrentA must be 0 to 80'))),
  ventilation: v.optional(v.boolean()),
  alternateMs: v.optional(
    v.union(
      [v.literal(0), v.pipe(v.number(), v.integer(), v.minValue(ALTERNATE_MIN), v.maxValue(ALTERNATE_MAX))],
      `alternateMs must be 0 (off) or a whole number of milliseconds from ${ALTERNATE_MIN} to ${ALTERNATE_MAX}`,
    ),
  ),
});
const PhoneBody = v.strictObject({ request: v.pipe(v.string(), v.minLength(1, 'request must be the NFC request text')) });
const LoadLimitBody = v.strictObject({
  amps: v.nullable(v.pipe(v.number(), v.minValue(0, 'amps must be 0 or more'), v.maxValue(80, 'amps must be at most 80'))),
});

/** What the simulator shows of the charge point: its states and metering, never who charges (no tag, no user). */
export function simView(plant: SimState, charging: ChargingService) {
  const { transaction, ...chargePoint } = charging.chargePoint.state();
  const shown: Record<string, unknown> = { ...chargePoint };
  if (transaction) {
    const { tagId: _tag, userId: _user, ...anonymous } = transaction;
    shown.transaction = anonymous;
  }
  return {
    plant,
    chargePoint: shown,
    hmi: charging.hmi(),
    loadLimitA: charging.coreState()?.chargeCycle.context.loadLimitA ?? null,
    pairing: charging.pairingOn(),
  };
}

/**
 * The simulator's controls (HARDWARE=sim only; on real hardware these paths do not exist). They stand in for the
 * physical world: the vehicle, a tag at the reader, faults, the temperature, and the load-management signal. No
 * session is needed, as nobody needs one to plug in a car; the controller listens on loopback by default in
 * simulation, and the view holds no personal data. Every answer is the simulator's view (GET /sim).
 */
export function simRoutes(app: Hono<AppEnv>, simulator: Simulator, charging: ChargingService): void {
  /** Runs a plant control in the core and answers the view. */
  const control = async (c: AppContext, command: SimCommand) => c.json(simView(await simulator.control(command), charging));

  app.get('/sim', (c) => control(c, { op: 'state' }));
  for (const op of ['plug', 'unplug', 'charge', 'pause'] as const) app.post(`/sim/${op}`, (c) => control(c, { op }));
  const presentTag = async (c: AppContext) => {
    const body = parseWith(TagBody, await jsonBody(c));
    simulator.presentTag(body.id, body.technology);
    return control(c, { op: 'state' });
  };
  app.post('/sim/tag', presentTag);
  // "tap card": the same as presenting a tag (a card enters the reader's field, is read once and leaves).
  app.post('/sim/tap', presentTag);
  // A simulated phone sends one API request over NFC (needs RFID Mode RFID/NFC hybrid) and shows the answer record.
  app.post('/sim/phone', async (c) => {
    const { request } = parseWith(PhoneBody, await jsonBody(c));
    let answer: string;
    try {
      answer = await simulator.phoneRequest(request);
    } catch (err) {
      throw invalid(err instanceof Error ? err.message : String(err));
    }
    return c.json({ ...simView(await simulator.control({ op: 'state' }), charging), nfc: { request, answer } });
  });
  app.post('/sim/fault', async (c) => {
    const { fault } = parseWith(FaultBody, await jsonBody(c));
    return control(c, { op: 'fault', fault, active: true });
  });
  app.delete('/sim/fault/:fault', (c) => {
    const { fault } = parseWith(FaultBody, { fault: c.req.param('fault') }, 'The path');
    return control(c, { op: 'fault', fault, active: false });
  });
  app.post('/sim/temperature', async (c) => {
    const { celsius } = parseWith(TemperatureBody, await jsonBody(c));
    return control(c, { op: 'temperature', celsius });
  });
  app.post('/sim/ev', async (c) => {
    const body = parseWith(EvBody, await jsonBody(c));
    const command: SimCommand = { op: 'ev' };
    if (body.maxCurrentA !== undefined) command.maxCurrentA = body.maxCurrentA;
    if (body.ventilation !== undefined) command.ventilation = body.ventilation;
    if (body.alternateMs !== undefined) command.alternateMs = body.alternateMs;
    return control(c, command);
  });
  app.post('/sim/load-limit', async (c) => {
    const { amps } = parseWith(LoadLimitBody, await jsonBody(c));
    charging.setLoadLimit(amps);
    return control(c, { op: 'state' });
  });
}
