/**
 * Hardware backends. `sim` (the default) simulates every device so the firmware runs on any PC; `rpi` drives the
 * real devices of a Raspberry Pi class controller. Device drivers live in one folder each beside this file, a real
 * and a simulated implementation behind one interface.
 *
 * The devices fall in two sets, created where they are used: the charge point's (pilot, contactor, cable lock,
 * meter, temperature, LEDs, buzzer) in the charge-point core's thread, the RFID/NFC reader on the main thread beside
 * the API it serves over NFC. Each device chooses its implementation on its own: with `sim`, a meter port or a
 * reader port given explicitly runs the real SDM630 or PN532 driver there, the rest stays simulated.
 */
import type { ChargePointHardware, DriverLog, ReaderHardware, RfidMode, Timers } from './types.js';
import type { RpiPins } from './pins.js';
import { createSimulatedReader, DEFAULT_NFC_PORT, type Pn532PortOptions, type SimulatedPn532 } from './pn532/index.js';
import { createSimulatedHardware, type SimulatedPlant } from './sim/plant.js';
import { checkDistinctPins, DEFAULT_RPI_PINS } from './pins.js';

export const HARDWARE_BACKENDS = ['sim', 'rpi'] as const;
export type HardwareBackend = (typeof HARDWARE_BACKENDS)[number];

export { DEFAULT_RPI_PINS, type RpiPins } from './pins.js';
export { ALTERNATE_MS_RANGE, SIM_FAULTS, type SimFault, type SimState, type SimulatedPlant } from './sim/plant.js';
export { DEFAULT_NFC_PORT, type Pn532PortOptions, type SimulatedPn532 } from './pn532/index.js';
export { RFID_MODES, type RfidMode } from './types.js';

export interface MeterPortOptions {
  /** Serial device of the RS-485 adapter. */
  path: string;
  baudRate: number;
  /** Modbus address of the meter, 1..247. */
  address: number;
}

export const DEFAULT_METER_PORT: MeterPortOptions = { path: '/dev/ttyUSB0', baudRate: 9600, address: 1 };

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

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
): Promise<{ hardware: ChargePointHardware; plant?: SimulatedPlant }> {
  const phases = options.phases ?? 3;
  if (backend === 'sim') {
    const sim = createSimulatedHardware({
      now: options.now,
      timers: options.timers ?? realTimers,
      phases,
      ...(options.voltageV ? { voltageV: options.voltageV } : {}),
    });
    if (!options.meter) return sim;
    // A real meter on a PC (METER_PORT with HARDWARE=sim): it measures whatever it is wired to.
    const { openSdm630Meter } = await import('./meter/sdm630.js');
    const meter = await openSdm630Meter({ ...options.meter, phases });
    const closeSim = sim.hardware.close.bind(sim.hardware);
    return {
      plant: sim.plant,
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

export interface ReaderHardwareOptions {
  /** Timers of the PN532 reader (its turns, ACK and response timeouts): the controller's clock; real ones by default. */
  timers?: Timers;
  /** Where the driver reports what it recovers from. */
  log?: DriverLog | undefined;
  /** The PN532 on this serial port; rpi: DEFAULT_NFC_PORT when unset; sim: the simulated PN532 when unset. */
  port?: Pn532PortOptions | undefined;
  /** The initial RFID Mode (default `rfid`). */
  rfidMode?: RfidMode;
  /** sim: the simulated PN532's bytes take their wire time at this baud rate on the real-time clock (the benchmark). */
  simWire?: { baudRate: number };
}

/**
 * The RFID/NFC reader of a backend: the PN532 driver on a serial port, or (`sim` without a port) on the byte-level
 * simulated chip, which is returned too (cards and a phone to put in its field).
 */
export async function createReaderHardware(
  backend: HardwareBackend,
  options: ReaderHardwareOptions = {},
): Promise<{ hardware: ReaderHardware; sim?: SimulatedPn532 }> {
  if (backend !== 'sim' && backend !== 'rpi') throw new Error(`unknown hardware backend ${JSON.stringify(backend)}: one of ${HARDWARE_BACKENDS.join(', ')}`);
  const context = { timers: options.timers ?? realTimers, log: options.log, ...(options.rfidMode ? { mode: options.rfidMode } : {}) };
  if (backend === 'sim' && !options.port) {
    const simulated = await createSimulatedReader({ ...context, ...(options.simWire ? { wire: options.simWire } : {}) });
    return { hardware: { rfid: simulated.reader, nfc: simulated.reader, close: simulated.close }, sim: simulated.sim };
  }
  const { openPn532Reader } = await import('./pn532/index.js');
  const reader = await openPn532Reader(options.port ?? DEFAULT_NFC_PORT, context);
  return { hardware: { rfid: reader, nfc: reader, close: () => reader.closePort() } };
}
