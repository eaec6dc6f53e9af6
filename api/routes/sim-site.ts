import * as v from 'valibot';
import { invalid } from '../../services/errors.js';
import { DAY_PROFILES, MAX_HOUSE_STEP_W, PEAK_RANGE, SPEED_RANGE, type SimulatedSite } from '../../services/simulator.js';
import { jsonBody, parseWith } from '../body.js';
import { OperationFailed, SimView } from '../responses.js';
import type { AppContext, Router } from '../types.js';

const range = (min: number, max: number, what: string) =>
  v.pipe(v.number(), v.minValue(min, `${what} must be ${min} to ${max}`), v.maxValue(max, `${what} must be ${min} to ${max}`));
const DayBody = v.strictObject({
  profile: v.optional(v.picklist(['off', ...DAY_PROFILES], `profile must be off, ${DAY_PROFILES.join(' or ')}`)),
  speed: v.optional(range(SPEED_RANGE[0], SPEED_RANGE[1], 'speed')),
  startHour: v.optional(v.pipe(v.number(), v.minValue(0, 'startHour must be from 0 to below 24'), v.maxValue(23.999, 'startHour must be from 0 to below 24'))),
  peakW: v.optional(range(PEAK_RANGE[0], PEAK_RANGE[1], 'peakW')),
  seed: v.optional(v.pipe(v.number(), v.integer('seed must be a whole number'), v.minValue(0), v.maxValue(0xffffffff))),
});
const watts = range(0, MAX_HOUSE_STEP_W, 'each line of stepW');
const HouseBody = v.strictObject({
  stepW: v.union([watts, v.pipe(v.array(watts), v.length(3))], `stepW must be W (spread over the lines) or [L1, L2, L3], 0 to ${MAX_HOUSE_STEP_W} each`),
});
const RippleBody = v.strictObject({ closed: v.boolean('closed must be true or false') });

/**
 * The simulated site's controls (HARDWARE=sim, docs/energy.md Simulation): the day (sunny or cloudy, time-compressed),
 * a step of the house load, the ripple-control receiver's contact. Every answer is the simulator's view.
 */
export function simSiteRoutes(router: Router, site: SimulatedSite, view: (c: AppContext) => Promise<Response>): void {
  const sim = { public: true, tag: 'Simulator' };
  const responses = {
    200: { description: "The simulator's view", body: SimView },
    400: { description: 'A malformed body (the cause says why); nothing changed', body: OperationFailed },
  };
  const apply = (change: () => void) => {
    try {
      change();
    } catch (err) {
      throw invalid((err as Error).message);
    }
  };
  router.resource(
    '/sim/day',
    {
      POST: {
        summary: 'The simulated day: profile (off, sunny, cloudy), speed (simulated s per s), startHour, peakW, seed',
        body: DayBody,
        responses,
        handle: async (c) => {
          const body = parseWith(DayBody, await jsonBody(c));
          apply(() => site.setDay(body));
          return view(c);
        },
      },
    },
    sim,
  );
  router.resource(
    '/sim/house',
    {
      POST: {
        summary: 'A step of the house load: extra W per line ([L1, L2, L3]) or in all (spread equally); 0 ends it',
        body: HouseBody,
        responses,
        handle: async (c) => {
          const { stepW } = parseWith(HouseBody, await jsonBody(c));
          apply(() => site.setHouseStep(typeof stepW === 'number' ? [stepW / 3, stepW / 3, stepW / 3] : [stepW[0]!, stepW[1]!, stepW[2]!]));
          return view(c);
        },
      },
    },
    sim,
  );
  router.resource(
    '/sim/ripple',
    {
      POST: {
        summary: "The ripple-control receiver's contact (closed: the grid operator dims)",
        body: RippleBody,
        responses,
        handle: async (c) => {
          const { closed } = parseWith(RippleBody, await jsonBody(c));
          apply(() => site.setRippleContact(closed));
          return view(c);
        },
      },
    },
    sim,
  );
}
