/**
 * Hardware backends. `sim` (the default) simulates every device so the firmware runs on any PC; `rpi` drives the
 * real devices of a Raspberry Pi class controller. Device drivers live in one folder each beside this file, a real
 * and a simulated implementation behind one interface.
 */
import type { DriverLog, Hardware, RfidMode, Timers } from './types.js';
import type { RpiPins } from './pins.js';
import { createSimulatedReader, DEFAULT_NFC_PORT, type Pn532PortOptions } from './pn532/index.js';
import type { SimulatedPhone } from './pn532/sim.js';
import { createSimulatedHardware, type SimulatedPlant } from './sim/plant.js';
import { checkDistinctPins, DEFAULT_RPI_PINS } from './pins.js';

export const HARDWARE_BACKENDS = ['sim', 'rpi'] as const;
export type HardwareBackend = (typeof HARDWARE_BACKENDS)[number];

export { DEFAULT_RPI_PINS, type RpiPins } from './pins.js';
export { SIM_FAULTS, type SimFault, type SimState, type SimulatedPlant } from './sim/plant.js';
export { DEFAULT_NFC_PORT, type Pn532PortOptions } from './pn532/index.js';
export { RFID_MODES, type RfidMode } from './types.js';

export interface MeterPortOptions {
  /** Serial device of the RS-485 adapter. */
  path: string;
  baudRate: number;
  /** Modbus address of the meter, 1..247. */
  address: number;
}

export interface HardwareOptions {
  /** The clock in ms (the simulated plant's only time source). */
  now: () => number;
  /** Phases of the supply/meter, 3 (default) or 1: the simulated power and the number of currents read. */
  phases?: 1 | 3;
  /** Phase voltage of the simulation (default 230 V). */
  voltageV?: number;
  /** rpi: GPIO assignment (default DEFAULT_RPI_PINS). */
  pins?: RpiPins;
  /** rpi: the SDM630 (default /dev/ttyUSB0, 9600 baud, address 1). */
  meter?: MeterPortOptions;
  /** rpi: DS18B20 `temperature` file (default: the first 28-* device). */
  temperatureSensorPath?: string | undefined;
  /** Timers of the PN532 reader (its turns, ACK and response timeouts): the controller's clock; real timers by default. */
  timers?: Timers;
  /** Where drivers report what they recover from. */
  log?: DriverLog | undefined;
  /** rpi: the PN532's serial port (default /dev/ttyS0, 115200 baud). */
  nfc?: Pn532PortOptions;
  /** The initial RFID Mode (default `rfid`). */
  rfidMode?: RfidMode;
  /** sim: the simulated PN532's bytes take their wire time at this baud rate on the real-time clock (the benchmark). */
  simWire?: { baudRate: number };
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
  now: () => Date.now(),
};

export const DEFAULT_METER_PORT: MeterPortOptions = { path: '/dev/ttyUSB0', baudRate: 9600, address: 1 };

/**
 * The devices of a backend. `sim` also returns the simulated plant that drives them. `rpi` loads pigpio and
 * serialport only now (pigpio is optional and works only on a Raspberry Pi) and initialises pigpio: call it before
 * installing signal handlers.
 */
export async function createHardware(backend: HardwareBackend, options: HardwareOptions): Promise<{ hardware: Hardware; plant?: SimulatedPlant }> {
  const readerContext = { timers: options.timers ?? realTimers, log: options.log, ...(options.rfidMode ? { mode: options.rfidMode } : {}) };
  if (backend === 'sim') {
    // The RFID/NFC reader is the PN532 driver on a byte-level simulated chip: a presented tag is tapped on its field.
    const nfc = await createSimulatedReader({ ...readerContext, ...(options.simWire ? { wire: options.simWire } : {}) });
    const { hardware, plant } = createSimulatedHardware({
      now: options.now,
      ...(options.phases ? { phases: options.phases } : {}),
      ...(options.voltageV ? { voltageV: options.voltageV } : {}),
      tap: (uid, technology) => nfc.sim.tap(uid, technology),
    });
    let phone: SimulatedPhone | undefined;
    plant.nfcPhone = () => {
      if (!phone || phone.gone) phone = nfc.sim.phone();
      return phone;
    };
    plant.nfcStats = () => nfc.sim.stats;
    plant.phoneRequest = async (text) => {
      if (nfc.reader.mode() !== 'hybrid') throw new Error('RFID Mode is RFID only, so the reader does not look for phones: set it to RFID/NFC hybrid first');
      // A tap: the phone comes, writes the request, reads the answer and leaves.
      const tapping = plant.nfcPhone!();
      try {
        return await tapping.request(text);
      } finally {
        tapping.leave();
      }
    };
    const closePlant = hardware.close.bind(hardware);
    return {
      hardware: {
        ...hardware,
        rfid: nfc.reader,
        nfc: nfc.reader,
        async close() {
          await nfc.close();
          await closePlant();
        },
      },
      plant,
    };
  }
  if (backend === 'rpi') {
    const pins = options.pins ?? DEFAULT_RPI_PINS;
    const [{ loadPigpio }, { createRpiHardware }, { openSdm630Meter }] = await Promise.all([
      import('./gpio/pigpio.js'),
      import('./rpi.js'),
      import('./meter/sdm630.js'),
    ]);
    checkDistinctPins(pins);
    const meterPort = options.meter ?? DEFAULT_METER_PORT;
    const meter = await openSdm630Meter({ path: meterPort.path, baudRate: meterPort.baudRate, address: meterPort.address, phases: options.phases ?? 3 });
    const pigpio = await loadPigpio();
    const { openPn532Reader } = await import('./pn532/index.js');
    const reader = await openPn532Reader(options.nfc ?? DEFAULT_NFC_PORT, readerContext);
    return { hardware: createRpiHardware(pigpio, { pins, meter, temperatureSensorPath: options.temperatureSensorPath, reader }) };
  }
  throw new Error(`unknown hardware backend ${JSON.stringify(backend)}: one of ${HARDWARE_BACKENDS.join(', ')}`);
}
