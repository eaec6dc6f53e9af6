import { checkPin, type Pigpio } from './pigpio.js';

export interface SwitchedOutputOptions {
  /** BCM GPIO driving the device (high = on). */
  pin: number;
  /** BCM GPIO of the device's feedback contact (high = on, pulled down); none when the device has none. */
  feedbackPin?: number | undefined;
}

/** A digital output that starts off, with an optional feedback input: the shape of the relay and the lock actuator. */
export function createSwitchedOutput(pigpio: Pigpio, options: SwitchedOutputOptions, what: string) {
  const { Gpio } = pigpio;
  checkPin(options.pin, what);
  const output = new Gpio(options.pin, { mode: Gpio.OUTPUT });
  output.digitalWrite(0);
  let commanded = false;
  let feedback: InstanceType<typeof Gpio> | undefined;
  if (options.feedbackPin !== undefined) {
    checkPin(options.feedbackPin, `${what} feedback`);
    feedback = new Gpio(options.feedbackPin, { mode: Gpio.INPUT, pullUpDown: Gpio.PUD_DOWN });
  }
  return {
    set(on: boolean): void {
      commanded = on;
      output.digitalWrite(on ? 1 : 0);
    },
    commanded: () => commanded,
    feedback: (): boolean | undefined => (feedback ? feedback.digitalRead() === 1 : undefined),
  };
}
