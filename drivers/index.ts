/**
 * Hardware backends. `sim` (the default) simulates every device so the firmware runs on any PC; `rpi` drives the
 * real devices of a Raspberry Pi class controller. Device drivers live in one folder each beside this file, a real
 * and a simulated implementation behind one interface.
 *
 * The devices fall in two sets, created where they are used: the charge point's (charge-point.ts: pilot, contactor,
 * cable lock, meter, temperature, LEDs, buzzer) in the charge-point core's thread, the RFID/NFC reader (reader.ts)
 * on the main thread beside the API it serves over NFC. Each device chooses its implementation on its own: with
 * `sim`, a meter port or a reader port given explicitly runs the real SDM630 or PN532 driver there, the rest stays
 * simulated.
 */
export {
  createChargePointHardware,
  DEFAULT_METER_PORT,
  HARDWARE_BACKENDS,
  RESTARTS_IN_PROCESS,
  type ChargePointHardwareOptions,
  type HardwareBackend,
  type MeterPortOptions,
} from './charge-point-hardware.js';
export { createReaderHardware, DEFAULT_NFC_PORT, type ReaderHardwareOptions } from './reader.js';
export { DEFAULT_RPI_PINS, type RpiPins } from './pins.js';
export { ALTERNATE_MS_RANGE, SIM_FAULTS, type SimFault, type SimState, type SimulatedPlant } from './sim/plant.js';
export type { Pn532PortOptions, SimulatedPn532 } from './pn532/index.js';
export { RFID_MODES, type RfidMode } from './types.js';
