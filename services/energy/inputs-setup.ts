import { createSimulatedSite, type SimulatedSite } from '../../drivers/sim/site.js';
import type { LinePowers } from '../../drivers/sim/day-profiles.js';
import type { CoreLink } from '../core-link.js';
import type { CoreState } from '../core/protocol.js';
import { createEnergyInputs, type EnergyInputsDeps, type EnergyInputsService } from './inputs.js';

/** The EV's power per line (W) from the charging meter's reading in the core's state (one phase: L1). */
export function evPowerOf(meter: CoreState['meter'] | undefined): LinePowers {
  const watts: LinePowers = [0, 0, 0];
  meter?.currentsA.forEach((amps, i) => (watts[i] = amps * (meter.voltagesV?.[i] ?? 230)));
  return watts;
}

export interface EnergyInputsSetup {
  inputs: EnergyInputsService;
  /** The simulated house, PV system, grid meter and ripple-control contact (simulation only). */
  site?: SimulatedSite | undefined;
}

/**
 * The energy inputs of the controller. The grid meter (an SDM630 on the RS-485 bus) and the ripple-control contact
 * (a GPIO) belong to the charge-point core's hardware: the core reads them (services/core/grid-inputs.ts) and its
 * readings arrive here through `inputs.fromCore`, on real hardware and simulated alike. Simulated (HARDWARE=sim), the
 * core's hardware holds the site's twins (the SDM630 twin on its bus: grid = house + EV − PV, the contact); the
 * simulator's site here is what /sim, `npm run sim` and the benchmark set and show, and the core's twin is given its
 * configuration at every change, so both compute the same house and PV.
 */
export function setUpEnergyInputs(
  o: Omit<EnergyInputsDeps, 'core'> & {
    simulated: boolean;
    clock: { now(): number };
    coreMeter: () => CoreState['meter'] | undefined;
    core: Pick<CoreLink, 'send'>;
  },
): EnergyInputsSetup {
  const address = () => o.settings.get('GridMeterAddress');
  const site = o.simulated ? createSimulatedSite({ now: () => o.clock.now(), evPowerW: () => evPowerOf(o.coreMeter()), gridMeterAddress: address }) : undefined;
  if (site) {
    o.core.send({ type: 'site', site: site.configuration() });
    site.onConfigured((configuration) => o.core.send({ type: 'site', site: configuration }));
  }
  const inputs = createEnergyInputs({
    settings: o.settings,
    now: o.now,
    logger: o.logger,
    core: { configure: (config) => o.core.send({ type: 'gridInputs', config }) },
  });
  return { inputs, site };
}
