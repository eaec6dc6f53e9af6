/**
 * The charge point's devices (pilot, contactor, cable lock, meter, temperature, LEDs, buzzer) of a hardware backend.
 * They live in the charge-point core's thread (services/core/), which loads this module and not the reader's.
 */
import type { ChargePointHardware, Timers } from './types.js';
import type { RpiPins } from './pins.js';
import { createSimulatedHardware, type SimulatedPlant } from './sim/plant.js';
import { createSimulatedSite, type SimulatedSite } from './sim/site.js';
import type { LinePowers } from './sim/day-profiles.js';
import { checkDistinctPins, DEFAULT_RPI_PINS } from './pins.js';
import { realTimers } from './timers.js';

export const HARDWARE_BACKENDS = ['sim', 'rpi'] as const;
export type HardwareBackend = (typeof HARDWARE_BACKENDS)[number];

/**
 * Whether a backend's devices can be created again in the same process (the controller's restart in its process).
 * `rpi` cannot: pigpio is a native addon that is not context-aware, loaded in the charge-point core's worker thread,
 * and Node refuses to load such an addon into a second worker of the same process (its C library also initialises
 * once per process). There the process ends and its service manager starts it again.
 */
export const RESTARTS_IN_PROCESS: Record<HardwareBackend, boolean> = { sim: true, rpi: false };

export interface MeterPortOptions {
  /** Serial device of the RS-485 adapter. */
  path: string;
  baudRate: number;
  /** Modbus address of the meter, 1..247. */
  address: number;
}

export const DEFAULT_METER_PORT: MeterPortOptions = { path: '/dev/ttyUSB0', baudRate: 9600, address: 1 };

export interface ChargePointHardwareOptions {
  /** The clock in ms (the simulated plant's only time source). */
  now: () => number;
  /** Timers of the self-driven simulated EV: the core's clock; real timers by default. */
  timers?: Timers;
  /** Phases of the supply/meter, 3 (default) or 1: the simulated power and the number of currents read. */
  phases?: 1 | 3;
  /** Phase voltage of the simulation (default 230 V). */
  voltageV?: number;
  /** rpi: GPIO assignment (default DEFAULT_RPI_PINS). */
  pins?: RpiPins;
  /** The SDM630 on this port; rpi: DEFAULT_METER_PORT when unset; sim: the simulated meter when unset. */
  meter?: MeterPortOptions | undefined;
  /** sim: the simulated grid meter's Modbus address now (the setting GridMeterAddress; 2 when unset). */
  gridMeterAddress?: () => number;
  /** rpi: DS18B20 `temperature` file (default: the first 28-* device). */
  temperatureSensorPath?: string | undefined;
}

/**
 * The charge point's devices of a backend. `sim` also returns the simulated plant that drives them. `rpi` loads
 * pigpio and serialport only now (pigpio is optional and works only on a Raspberry Pi) and initialises pigpio: the
 * charge-point core calls it in its own thread, the only place pigpio is ever loaded.
 */
export async function createChargePointHardware(
  backend: HardwareBackend,
  options: ChargePointHardwareOptions,
): Promise<{ hardware: ChargePointHardware; plant?: SimulatedPlant; site?: SimulatedSite }> {
  const phases = options.phases ?? 3;
  if (backend === 'sim') {
    const plant = createSimulatedHardware({
      now: options.now,
      timers: options.timers ?? realTimers,
      phases,
      // The simulated phase contactor where one is configured (GPIO_PHASE_SWITCH), as on the real installation.
      phaseSwitch: options.pins?.phaseSwitch !== undefined,
      ...(options.voltageV ? { voltageV: options.voltageV } : {}),
    });
    // The site around it (house, PV, the grid meter on the bus, the ripple-control contact), the EV's power from the
    // plant; the controller's simulator sets its day and loads (SiteConfiguration).
    const voltageV = options.voltageV ?? 230;
    const site = createSimulatedSite({
      now: options.now,
      evPowerW: () => {
        const { currentsA } = plant.plant.state();
        return [0, 1, 2].map((i) => (currentsA[i] ?? 0) * voltageV) as LinePowers;
      },
      // The twin is at the address the controller's settings give (GridMeterAddress), as the main thread's was.
      gridMeterAddress: options.gridMeterAddress ?? (() => 2),
      voltageV,
    });
    const sim = {
      plant: plant.plant,
      site,
      hardware: { ...plant.hardware, gridMeterBus: site.gridMeter, rippleContact: site.rippleContact },
    };
    if (!options.meter) return sim;
    // A real meter on a PC (METER_PORT with HARDWARE=sim): it measures whatever it is wired to.
    const { openSdm630Meter } = await import('./meter/sdm630.js');
    const meter = await openSdm630Meter({ ...options.meter, phases });
    const closeSim = sim.hardware.close.bind(sim.hardware);
    return {
      plant: sim.plant,
      site,
      hardware: {
        ...sim.hardware,
        meter,
        async close() {
          await closeSim();
          await meter.close();
        },
      },
    };
  }
  if (backend === 'rpi') {
    const pins = options.pins ?? DEFAULT_RPI_PINS;
    checkDistinctPins(pins);
    const [{ loadPigpio }, { createRpiHardware }, { openSdm630Meter }] = await Promise.all([
      import('./gpio/pigpio.js'),
      import('./rpi.js'),
      import('./meter/sdm630.js'),
    ]);
    // pigpio first: on a machine that is not a Raspberry Pi this fails before anything else is opened.
    const pigpio = await loadPigpio();
    const meterPort = options.meter ?? DEFAULT_METER_PORT;
    const meter = await openSdm630Meter({ ...meterPort, phases });
    return { hardware: createRpiHardware(pigpio, { pins, meter, temperatureSensorPath: options.temperatureSensorPath }) };
  }
  throw new Error(`unknown hardware backend ${JSON.stringify(backend)}: one of ${HARDWARE_BACKENDS.join(', ')}`);
}
