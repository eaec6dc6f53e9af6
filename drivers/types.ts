import type { ModbusLink } from './meter/grid-meter.js';

/**
 * The device interfaces the firmware drives. Every device has a real implementation (HARDWARE=rpi) and a simulated
 * twin (HARDWARE=sim) behind the same interface. Drivers move signals and bytes; they hold no charging rules (when to
 * close the contactor, which tag may charge, ...): those live in `machines/` and `services/`.
 */

/** Control pilot level as measured on the PWM high level (IEC 61851-1): A 12 V, B 9 V, C 6 V, D 3 V, E 0 V, F -12 V. */
export type PilotLevel = 'a' | 'b' | 'c' | 'd' | 'e' | 'f';

export type Unsubscribe = () => void;

/** A digital input (a relay contact, e.g. a ripple-control receiver's): closed or open. */
export interface ContactInput {
  closed(): boolean;
  onChange(listener: (closed: boolean) => void): Unsubscribe;
}

export interface ControlPilot {
  /** The level read now (raw, not debounced). */
  level(): PilotLevel;
  /**
   * Called on every raw level change, with the time the reading changed when the device knows it (the simulated
   * plant's own timestamp), in the controller clock's milliseconds; without it the change is taken as happening now.
   */
  onLevel(listener: (level: PilotLevel, at?: number) => void): Unsubscribe;
  /** 1 kHz PWM duty cycle in percent (0 < duty < 100); `null` = no PWM, constant +12 V (state x1). */
  setDuty(percent: number | null): void;
  duty(): number | null;
}

/** The main relay. `feedback()` is the auxiliary contact (true = closed), `undefined` when the hardware has none. */
export interface Contactor {
  set(closed: boolean): void;
  commanded(): boolean;
  feedback(): boolean | undefined;
}

export interface CableLock {
  set(locked: boolean): void;
  commanded(): boolean;
  /** The lock's feedback switch, `undefined` when the hardware has none. */
  locked(): boolean | undefined;
}

export interface MeterReading {
  /** Import energy register in Wh (monotonic, may carry decimals). */
  energyWh: number;
  /** Total active power in W. */
  powerW: number;
  /** Current per phase in A: one value on a single-phase meter, three on a three-phase one. */
  currentsA: number[];
  /** Voltage per phase to neutral in V, as many as `currentsA`; absent where the meter does not give it. */
  voltagesV?: number[];
}

export interface EnergyMeter {
  /** Rejects when the meter does not answer (timeout, CRC error, disconnected). */
  read(): Promise<MeterReading>;
}

export type TagTechnology = 'RFID' | 'NFC';

export interface RfidReader {
  /** Called once per tag presentation with its UID as upper-case hex. */
  onTag(listener: (uid: string, technology: TagTechnology) => void): Unsubscribe;
}

/** The `RFID Mode` setting (spec 1): `rfid` = RFID only (default), `hybrid` = RFID/NFC hybrid. */
export const RFID_MODES = ['rfid', 'hybrid'] as const;
export type RfidMode = (typeof RFID_MODES)[number];

/**
 * The reader's NFC face: it emulates a Type 4 Tag for phones (target mode) in `hybrid` mode. The NFC link actor
 * answers every APDU with `respond`; once a phone has activated the tag the reader stays in target mode until
 * `resumeChecking()`.
 */
export interface NfcTarget {
  setMode(mode: RfidMode): void;
  mode(): RfidMode;
  /** A phone activated the emulated tag. */
  onActivated(listener: () => void): Unsubscribe;
  /** The phone's next command APDU; answer it with `respond`. */
  onApdu(listener: (apdu: Uint8Array) => void): Unsubscribe;
  /** The phone released the tag or left; the reader listens for it again. */
  onReleased(listener: () => void): Unsubscribe;
  /** The reader left target mode by itself (mode set to `rfid`, chip failure). */
  onChecking(listener: () => void): Unsubscribe;
  respond(apdu: Uint8Array): void;
  /** Leave target mode: back to RFID (and, in hybrid mode, NFC) checking. */
  resumeChecking(): void;
}

/** Timers and the current time in ms: the controller's clock (a manual one in tests). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  now(): number;
}

/** Where drivers report what they recover from (pino's Logger fits). */
export interface DriverLog {
  warn(fields: object, message: string): void;
}

export interface Buzzer {
  /** `count` beeps of `ms` each, with pauses of the same length. */
  beep(count: number, ms?: number): void;
}

/** What the status LEDs show: a colour and a blinking mode. */
export interface LedPattern {
  color: 'off' | 'green' | 'blue' | 'yellow' | 'red' | 'white';
  mode: 'steady' | 'slow-blink' | 'fast-blink' | 'pulse';
}

export interface Leds {
  show(pattern: LedPattern): void;
  current(): LedPattern;
}

export interface TemperatureSensor {
  /** Degrees Celsius; rejects when the sensor does not answer. */
  read(): Promise<number>;
}

/**
 * The devices of the charge-point core (services/core/): the control pilot, contactor and cable lock it commands,
 * the sensors it supervises (meter, temperature) and the HMI that shows its state. They live in the core's thread.
 */
export interface ChargePointHardware {
  pilot: ControlPilot;
  contactor: Contactor;
  /**
   * The second contactor of 1-/3-phase switching (GPIO_PHASE_SWITCH): closed connects L2 and L3 (three phases), open
   * leaves L1 (one phase); absent when the installation has none. Only ever moved with the main contactor open.
   */
  phaseContactor?: Contactor;
  cableLock: CableLock;
  meter: EnergyMeter;
  /**
   * The charging meter's RS-485 bus, for the grid meter (an SDM630 at its own address): one exchange at a time, behind
   * the charging meter's requests; absent where the backend has none.
   */
  gridMeterBus?: ModbusLink;
  /** The ripple-control receiver's contact (GPIO_RIPPLE_CONTACT); absent where none is wired. */
  rippleContact?: ContactInput;
  buzzer: Buzzer;
  leds: Leds;
  temperature: TemperatureSensor;
  /** Releases ports and pins (outputs to their safe state: PWM off, contactor open). */
  close(): Promise<void>;
}

/** The RFID/NFC reader (the PN532), on the main thread beside the API it serves over NFC. */
export interface ReaderHardware {
  rfid: RfidReader;
  /** The reader's NFC face; absent when the reader has none. */
  nfc?: NfcTarget;
  close(): Promise<void>;
}
