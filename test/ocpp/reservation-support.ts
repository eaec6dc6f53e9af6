import { startCsms } from '../../bin/dev/central-system.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import type { OcppCharger, startOcppCharger } from './support.js';

/**
 * The set-up the reservation tests of both versions share (reservation.test.ts, reservation-201.test.ts): a charger
 * online in the version the test speaks, times on its manual clock as the central system writes them, the tags the
 * reservation refused.
 */

/** A time `s` seconds after the start of the test clock, as the central system writes it. */
export const at = (s: number) => new Date(TEST_EPOCH + s * 1000).toISOString();

/** A controller online against a strict central system speaking `version` (`charger`: useOcppChargers'). */
export async function reservationCharger(charger: typeof startOcppCharger, version: '1.6' | '2.0.1'): Promise<OcppCharger> {
  const clock = new ManualClock(TEST_EPOCH);
  const c =
    version === '1.6'
      ? await charger({ clock })
      : await charger({
          csms: await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] }),
          clock,
          settings: { OcppVersions: 'ocpp2.0.1,ocpp1.6' },
        });
  await c.online();
  return c;
}

/** The tags refused since the start, as `tagId:reason` (the event log). */
export async function refusedTags(c: OcppCharger): Promise<string[]> {
  const { json } = await c.api('GET', '/v1/events');
  return json.events.filter((e: any) => e.kind === 'tag_refused').map((e: any) => `${e.tagId}:${e.reason}`);
}
