import type { Hono } from 'hono';
import * as v from 'valibot';
import { SIM_FAULTS, type SimulatedPlant } from '../../drivers/index.js';
import type { ChargingService } from '../../services/charging.js';
import { invalid } from '../../services/errors.js';
import type { AppContext, AppEnv } from '../app.js';
import { jsonBody, parseWith } from '../body.js';

const TagBody = v.strictObject({ id: v.string(), technology: v.optional(v.picklist(['RFID', 'NFC'])) });
const FaultBody = v.strictObject({ fault: v.picklist(SIM_FAULTS, `fault must be one of ${SIM_FAULTS.join(', ')}`) });
const TemperatureBody = v.strictObject({ celsius: v.number() });
const EvBody = v.strictObject({ maxCurrentA: v.optional(v.number()), ventilation: v.optional(v.boolean()) });
const PhoneBody = v.strictObject({ request: v.pipe(v.string(), v.minLength(1, 'request must be the NFC request text')) });
const LoadLimitBody = v.strictObject({
  amps: v.nullable(v.pipe(v.number(), v.minValue(0, 'amps must be 0 or more'), v.maxValue(80, 'amps must be at most 80'))),
});

/**
 * The simulator's controls (HARDWARE=sim only; on real hardware these paths do not exist). They stand in for the
 * physical world: the vehicle, a tag at the reader, faults, the temperature, and the load-management signal. No
 * session is needed, as nobody needs one to plug in a car. Every answer is the simulator's view (GET /sim).
 */
export function simRoutes(app: Hono<AppEnv>, plant: SimulatedPlant, charging: ChargingService): void {
  let loadLimitA: number | null = null;
  const view = (c: AppContext) =>
    c.json({ plant: plant.state(), chargePoint: charging.chargePoint.state(), hmi: charging.hmi(), loadLimitA });
  /** Runs a plant control; a control that makes no sense now (charge() while unplugged) is a 400 with its reason. */
  const control = (c: AppContext, act: () => void) => {
    try {
      act();
    } catch (err) {
      throw invalid(err instanceof Error ? err.message : String(err));
    }
    return view(c);
  };

  app.get('/sim', view);
  app.post('/sim/plug', (c) => control(c, () => plant.plug()));
  app.post('/sim/unplug', (c) => control(c, () => plant.unplug()));
  app.post('/sim/charge', (c) => control(c, () => plant.charge()));
  app.post('/sim/pause', (c) => control(c, () => plant.pause()));
  app.post('/sim/tag', async (c) => {
    const body = parseWith(TagBody, await jsonBody(c));
    return control(c, () => plant.presentTag(body.id, body.technology));
  });
  // "tap card": the same as presenting a tag (a card enters the reader's field, is read once and leaves).
  app.post('/sim/tap', async (c) => {
    const body = parseWith(TagBody, await jsonBody(c));
    return control(c, () => plant.presentTag(body.id, body.technology));
  });
  // A simulated phone sends one API request over NFC (needs RFID Mode RFID/NFC hybrid) and shows the answer record.
  app.post('/sim/phone', async (c) => {
    const { request } = parseWith(PhoneBody, await jsonBody(c));
    if (!plant.phoneRequest) throw invalid('This simulator has no NFC phone');
    let answer: string;
    try {
      answer = await plant.phoneRequest(request);
    } catch (err) {
      throw invalid(err instanceof Error ? err.message : String(err));
    }
    return c.json({ plant: plant.state(), chargePoint: charging.chargePoint.state(), hmi: charging.hmi(), loadLimitA, nfc: { request, answer } });
  });
  app.post('/sim/fault', async (c) => {
    const { fault } = parseWith(FaultBody, await jsonBody(c));
    return control(c, () => plant.inject(fault));
  });
  app.delete('/sim/fault/:fault', (c) => {
    const { fault } = parseWith(FaultBody, { fault: c.req.param('fault') }, 'The path');
    return control(c, () => plant.clear(fault));
  });
  app.post('/sim/temperature', async (c) => {
    const { celsius } = parseWith(TemperatureBody, await jsonBody(c));
    return control(c, () => plant.setTemperature(celsius));
  });
  app.post('/sim/ev', async (c) => {
    const body = parseWith(EvBody, await jsonBody(c));
    return control(c, () => {
      if (body.maxCurrentA !== undefined) plant.setEvMaxCurrent(body.maxCurrentA);
      if (body.ventilation !== undefined) plant.setVentilation(body.ventilation);
    });
  });
  app.post('/sim/load-limit', async (c) => {
    const { amps } = parseWith(LoadLimitBody, await jsonBody(c));
    return control(c, () => {
      loadLimitA = amps;
      charging.setLoadLimit(amps);
    });
  });
}
