import * as v from 'valibot';
import { ALTERNATE_MS_RANGE, SIM_FAULTS, type SimState } from '../../services/simulator.js';
import type { ChargingService } from '../../services/charging.js';
import type { SimCommand } from '../../services/core/protocol.js';
import { invalid } from '../../services/errors.js';
import type { Simulator } from '../../services/simulator.js';
import type { AppContext, AppHandler, Operation, Router } from '../types.js';
import { OperationFailed, SimView } from '../responses.js';
import { jsonBody, parseWith } from '../body.js';
import { simSiteRoutes } from './sim-site.js';

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
export function simView(plant: SimState, charging: ChargingService, simulator?: Simulator) {
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
    loadLimitA: charging.limits.get('sim')?.amps ?? null,
    pairing: charging.pairingOn(),
    ...(simulator?.network() ? { network: simulator.network() } : {}),
    ...(simulator?.site ? { site: simulator.site.state() } : {}),
  };
}

/**
 * The simulator's controls (HARDWARE=sim only; on real hardware these paths do not exist). They stand in for the
 * physical world: the vehicle, a tag at the reader, faults, the temperature, and the load-management signal. No
 * session is needed, as nobody needs one to plug in a car; the controller listens on loopback by default in
 * simulation, and the view holds no personal data. Every answer is the simulator's view (GET /sim).
 */
export function simRoutes(router: Router, simulator: Simulator, charging: ChargingService): void {
  /** Runs a plant control in the core and answers the view. */
  const control = async (c: AppContext, command: SimCommand) => c.json(simView(await simulator.control(command), charging, simulator));
  const sim = { public: true, tag: 'Simulator' };
  const view = { 200: { description: "The simulator's view", body: SimView } };
  const refused = { ...view, 400: { description: 'A control that makes no sense now, or a malformed body (the cause says why)', body: OperationFailed } };
  const op = (summary: string, handle: AppHandler, body?: v.GenericSchema): Operation => ({ summary, ...(body ? { body } : {}), responses: refused, handle });

  router.resource(
    '/sim',
    { GET: { summary: 'The simulated plant and what the charge point shows', responses: view, handle: (c) => control(c, { op: 'state' }) } },
    sim,
  );
  const plantControls = {
    plug: 'The vehicle is connected (CP B)',
    unplug: 'The vehicle is disconnected (CP A)',
    charge: 'The EV asks for energy (CP C, or D with ventilation)',
    pause: 'The EV stops asking (CP B)',
  } as const;
  for (const [name, summary] of Object.entries(plantControls) as [keyof typeof plantControls, string][]) {
    router.resource(`/sim/${name}`, { POST: op(summary, (c) => control(c, { op: name })) }, sim);
  }
  const presentTag = async (c: AppContext) => {
    const body = parseWith(TagBody, await jsonBody(c));
    simulator.presentTag(body.id, body.technology);
    return control(c, { op: 'state' });
  };
  router.resource('/sim/tag', { POST: op('A tag is presented to the reader (4, 7 or 10-byte UID in hex)', presentTag, TagBody) }, sim);
  // "tap card": the same as presenting a tag (a card enters the reader's field, is read once and leaves).
  router.resource('/sim/tap', { POST: op('Tap card: the same as /sim/tag', presentTag, TagBody) }, sim);
  // A simulated phone sends one API request over NFC (needs RFID Mode RFID/NFC hybrid) and shows the answer record.
  router.resource(
    '/sim/phone',
    {
      POST: op(
        'A simulated phone sends one request text over NFC (RFID Mode RFID/NFC hybrid); the answer is in nfc',
        async (c) => {
          const { request } = parseWith(PhoneBody, await jsonBody(c));
          let answer: string;
          try {
            answer = await simulator.phoneRequest(request);
          } catch (err) {
            throw invalid(err instanceof Error ? err.message : String(err));
          }
          return c.json({ ...simView(await simulator.control({ op: 'state' }), charging, simulator), nfc: { request, answer } });
        },
        PhoneBody,
      ),
    },
    sim,
  );
  router.resource(
    '/sim/fault',
    {
      POST: op(
        'Inject a fault',
        async (c) => {
          const { fault } = parseWith(FaultBody, await jsonBody(c));
          return control(c, { op: 'fault', fault, active: true });
        },
        FaultBody,
      ),
    },
    sim,
  );
  router.resource(
    '/sim/fault/:fault',
    {
      DELETE: {
        ...op('Clear a fault', (c) => {
          const { fault } = parseWith(FaultBody, { fault: c.req.param('fault') }, 'The path');
          return control(c, { op: 'fault', fault, active: false });
        }),
        params: { fault: FaultBody.entries.fault },
      },
    },
    sim,
  );
  router.resource(
    '/sim/temperature',
    {
      POST: op(
        'What the temperature sensor reads',
        async (c) => {
          const { celsius } = parseWith(TemperatureBody, await jsonBody(c));
          return control(c, { op: 'temperature', celsius });
        },
        TemperatureBody,
      ),
    },
    sim,
  );
  router.resource(
    '/sim/ev',
    {
      POST: op(
        'The EV: its current limit, ventilation, switching between C and B on its own',
        async (c) => {
          const body = parseWith(EvBody, await jsonBody(c));
          const command: SimCommand = { op: 'ev' };
          if (body.maxCurrentA !== undefined) command.maxCurrentA = body.maxCurrentA;
          if (body.ventilation !== undefined) command.ventilation = body.ventilation;
          if (body.alternateMs !== undefined) command.alternateMs = body.alternateMs;
          return control(c, command);
        },
        EvBody,
      ),
    },
    sim,
  );
  router.resource(
    '/sim/load-limit',
    {
      POST: op(
        'The load-management current limit (null: none)',
        async (c) => {
          const { amps } = parseWith(LoadLimitBody, await jsonBody(c));
          charging.limits.set('sim', amps);
          return control(c, { op: 'state' });
        },
        LoadLimitBody,
      ),
    },
    sim,
  );
  if (simulator.site) simSiteRoutes(router, simulator.site, (c) => control(c, { op: 'state' }));
}
