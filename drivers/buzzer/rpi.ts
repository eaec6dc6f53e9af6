import type { Buzzer } from '../types.js';
import { checkPin, type Pigpio } from '../gpio/pigpio.js';
import { checkBeep, DEFAULT_BEEP_MS } from './beep.js';

export interface RpiBuzzerOptions {
  /** BCM GPIO driving an active buzzer (high = sound). */
  pin: number;
}

export type RpiBuzzer = Buzzer & { close(): void };

/**
 * An active buzzer on a GPIO output. Beeps are timed with timers (hardware timing, not the controller's clock); a new
 * `beep` replaces the sequence still running.
 */
export function createRpiBuzzer(pigpio: Pigpio, options: RpiBuzzerOptions): RpiBuzzer {
  const { Gpio } = pigpio;
  checkPin(options.pin, 'buzzer');
  const out = new Gpio(options.pin, { mode: Gpio.OUTPUT });
  out.digitalWrite(0);
  let timer: NodeJS.Timeout | undefined;

  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    out.digitalWrite(0);
  };

  return {
    beep(count, ms = DEFAULT_BEEP_MS) {
      checkBeep(count, ms);
      stop();
      // Edges: on at 0, off at ms, on at 2 ms, ... off at (2 count - 1) ms.
      let edge = 0;
      const step = () => {
        out.digitalWrite(edge % 2 === 0 ? 1 : 0);
        edge += 1;
        timer = edge < 2 * count ? setTimeout(step, ms) : undefined;
      };
      step();
    },
    close: stop,
  };
}
