import { createSdm630GridMeter } from '../../drivers/meter/grid-meter.js';
import { createSimulatedSite, type SimulatedSite } from '../../drivers/sim/site.js';
import type { LinePowers } from '../../drivers/sim/day-profiles.js';
import type { Timers } from '../../drivers/types.js';
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
 * The energy inputs of the controller. Simulated (HARDWARE=sim): the grid meter is the simulated site's SDM630 twin
 * (grid = house + EV − PV; the EV from the simulated charging meter) and the ripple-control contact its twin. On real
 * hardware the grid meter and the contact belong to the charge-point core's bus and GPIO, which do not offer them to
 * this thread yet (docs/energy.md, What is left): those two inputs then stay empty and say so in the log.
 */
export function setUpEnergyInputs(
  o: Omit<EnergyInputsDeps, 'gridMeter' | 'rippleContact' | 'timers'> & { simulated: boolean; clock: Timers; coreMeter: () => CoreState['meter'] | undefined },
): EnergyInputsSetup {
  const address = () => o.settings.get('GridMeterAddress');
  const site = o.simulated ? createSimulatedSite({ now: () => o.clock.now(), evPowerW: () => evPowerOf(o.coreMeter()), gridMeterAddress: address }) : undefined;
  const inputs = createEnergyInputs({
    settings: o.settings,
    timers: o.clock,
    now: o.now,
    logger: o.logger,
    gridMeter: site && createSdm630GridMeter(site.gridMeter, address),
    rippleContact: site?.rippleContact,
  });
  return { inputs, site };
}
