import type { Contactor } from '../types.js';
import { checkPin, type Pigpio } from '../gpio/pigpio.js';

export interface RpiContactorOptions {
  /** BCM GPIO driving the relay coil (high = closed). */
  pin: number;
  /** BCM GPIO of the auxiliary contact (high = closed, pulled down); none when the contactor has no feedback. */
  feedbackPin?: number | undefined;
}

export type RpiContactor = Contactor & { close(): void };

/** The main contactor on a Raspberry Pi: a relay output, open at start, and an optional auxiliary contact input. */
export function createRpiContactor(pigpio: Pigpio, options: RpiContactorOptions): RpiContactor {
  const { Gpio } = pigpio;
  checkPin(options.pin, 'contactor');
  const coil = new Gpio(options.pin, { mode: Gpio.OUTPUT });
  coil.digitalWrite(0);
  let commanded = false;
  let aux: InstanceType<typeof Gpio> | undefined;
  if (options.feedbackPin !== undefined) {
    checkPin(options.feedbackPin, 'contactor feedback');
    aux = new Gpio(options.feedbackPin, { mode: Gpio.INPUT, pullUpDown: Gpio.PUD_DOWN });
  }
  return {
    set(closed) {
      commanded = closed;
      coil.digitalWrite(closed ? 1 : 0);
    },
    commanded: () => commanded,
    feedback: () => (aux ? aux.digitalRead() === 1 : undefined),
    close() {
      commanded = false;
      coil.digitalWrite(0);
    },
  };
}
