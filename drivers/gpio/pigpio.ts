/**
 * The part of the `pigpio` npm package (https://github.com/fivdi/pigpio) the real drivers use. Every real GPIO driver
 * takes this module as a parameter, so tests pass a fake `Gpio` class and the package is loaded only by the `rpi`
 * backend (`loadPigpio`): it is an optional dependency that builds native code and works only on a Raspberry Pi.
 */

export interface GpioOptions {
  mode?: number;
  pullUpDown?: number;
  alert?: boolean;
}

/** One BCM GPIO, as `pigpio.Gpio`. */
export interface GpioPin {
  digitalRead(): number;
  digitalWrite(level: number): unknown;
  /** Hardware PWM: `frequency` in Hz, `dutyCycle` 0 (off) .. 1 000 000 (fully on). */
  hardwarePwmWrite(frequency: number, dutyCycle: number): unknown;
  /** Software PWM, `dutyCycle` 0 .. 255 (default range). */
  pwmWrite(dutyCycle: number): unknown;
  /** Level changes shorter than `steady` µs are not reported as alerts. */
  glitchFilter(steady: number): unknown;
  disableAlert(): unknown;
  on(event: 'alert', listener: (level: number, tick: number) => void): unknown;
  removeAllListeners(event?: 'alert'): unknown;
}

export interface GpioClass {
  new (gpio: number, options?: GpioOptions): GpioPin;
  readonly INPUT: number;
  readonly OUTPUT: number;
  readonly PUD_OFF: number;
  readonly PUD_DOWN: number;
  readonly PUD_UP: number;
}

export interface Pigpio {
  Gpio: GpioClass;
  initialize?(): void;
  terminate?(): void;
  configureInterfaces?(interfaceMask: number): void;
  DISABLE_FIFO_IF?: number;
  DISABLE_SOCK_IF?: number;
}

/** BCM GPIO numbers a driver may use (the 40-pin header's GPIO 0..27). */
export const MAX_GPIO = 27;

export function checkPin(pin: number, what: string): void {
  if (!Number.isInteger(pin) || pin < 0 || pin > MAX_GPIO) {
    throw new RangeError(`${what}: GPIO ${pin} is not a BCM GPIO number from 0 to ${MAX_GPIO}`);
  }
}

/**
 * Initialises pigpio with its command interfaces off: the socket (TCP port 8888) and the FIFOs (/dev/pigpio,
 * writable by every local user, through which anyone on the machine could switch the contactor). The controller
 * drives GPIO only through its own process.
 */
export function initializePigpio(pigpio: Pigpio): void {
  pigpio.configureInterfaces?.((pigpio.DISABLE_FIFO_IF ?? 1) | (pigpio.DISABLE_SOCK_IF ?? 2));
  pigpio.initialize?.();
}

/**
 * Loads and initialises pigpio (initializePigpio). Call it before installing signal handlers (pigpio replaces
 * earlier ones). Needs /dev/mem on a Raspberry Pi (not the Pi 5) with the pigpio C library: root, or the
 * capabilities the systemd unit grants (docs/raspberry-pi.md).
 */
export async function loadPigpio(): Promise<Pigpio> {
  const specifier = 'pigpio'; // a variable: the optional package need not be installed to type-check or build
  let pigpio: Pigpio;
  try {
    const mod = (await import(specifier)) as { default?: Pigpio } & Pigpio;
    pigpio = mod.default ?? mod;
  } catch (err) {
    throw new Error(`HARDWARE=rpi needs the optional package pigpio (npm install pigpio on the Raspberry Pi): ${(err as Error).message}`, { cause: err });
  }
  try {
    initializePigpio(pigpio);
  } catch (err) {
    throw new Error(`pigpio could not be initialised (HARDWARE=rpi runs as root on a Raspberry Pi with the pigpio C library): ${(err as Error).message}`, {
      cause: err,
    });
  }
  return pigpio;
}
