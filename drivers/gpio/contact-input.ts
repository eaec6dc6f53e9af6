import { Listeners } from '../listeners.js';
import type { ContactInput } from '../types.js';
import { checkPin, type Pigpio } from './pigpio.js';

/** Changes shorter than this are contact bounce, not a switch of the receiver's relay (µs). */
export const CONTACT_STEADY_US = 10_000;

/**
 * A potential-free relay contact (a ripple-control receiver's) between the GPIO and ground, read with the pull-up:
 * low = closed. Bounce is filtered by pigpio's glitch filter.
 */
export function createContactInput(pigpio: Pigpio, pin: number, what: string): ContactInput & { close(): void } {
  const { Gpio } = pigpio;
  checkPin(pin, what);
  const gpio = new Gpio(pin, { mode: Gpio.INPUT, pullUpDown: Gpio.PUD_UP, alert: true });
  gpio.glitchFilter(CONTACT_STEADY_US);
  const listeners = new Listeners<[boolean]>();
  gpio.on('alert', (level) => listeners.emit(level === 0));
  return {
    closed: () => gpio.digitalRead() === 0,
    onChange: (listener) => listeners.add(listener),
    close() {
      gpio.disableAlert();
      gpio.removeAllListeners('alert');
    },
  };
}
