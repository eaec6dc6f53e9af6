import type { ChargePointHardware, EnergyMeter } from './types.js';
import type { Pigpio } from './gpio/pigpio.js';
import { checkDistinctPins, type RpiPins } from './pins.js';
import { createRpiControlPilot } from './control-pilot/rpi.js';
import { createRpiContactor } from './contactor/rpi.js';
import { createRpiCableLock } from './cable-lock/rpi.js';
import { createRpiBuzzer } from './buzzer/rpi.js';
import { createRpiLeds } from './leds/rpi.js';
import { createDs18b20 } from './temperature/ds18b20.js';
import { createContactInput } from './gpio/contact-input.js';
import type { Sdm630Meter } from './meter/sdm630.js';

export interface RpiHardwareOptions {
  pins: RpiPins;
  /** The SDM630 meter, already created (openSdm630Meter). */
  meter: Sdm630Meter | (EnergyMeter & { close?(): Promise<void> });
  /** DS18B20 `temperature` file; the first 28-* device when unset. */
  temperatureSensorPath?: string | undefined;
}

/**
 * The charge point's devices of a Raspberry Pi controller on an initialised pigpio module. Outputs start in their
 * safe state (contactor open, no PWM: pilot at +12 V, LEDs and buzzer off).
 */
export function createRpiHardware(pigpio: Pigpio, options: RpiHardwareOptions): ChargePointHardware {
  const { pins } = options;
  checkDistinctPins(pins);
  const contactor = createRpiContactor(pigpio, { pin: pins.contactor, feedbackPin: pins.contactorFeedback });
  const phaseContactor = pins.phaseSwitch === undefined ? undefined : createRpiContactor(pigpio, { pin: pins.phaseSwitch }, 'phase contactor');
  const pilot = createRpiControlPilot(pigpio, { pwmPin: pins.cpPwm, levelPins: pins.cpLevel });
  const cableLock = createRpiCableLock(pigpio, { pin: pins.lock, feedbackPin: pins.lockFeedback });
  const buzzer = createRpiBuzzer(pigpio, { pin: pins.buzzer });
  const leds = createRpiLeds(pigpio, { pins: pins.leds });
  const rippleContact = pins.rippleContact === undefined ? undefined : createContactInput(pigpio, pins.rippleContact, 'ripple-control contact');
  const meterBus = 'bus' in options.meter ? options.meter.bus : undefined;
  let closed = false;
  return {
    pilot,
    contactor,
    ...(phaseContactor ? { phaseContactor } : {}),
    cableLock,
    meter: options.meter,
    ...(meterBus ? { gridMeterBus: meterBus } : {}),
    ...(rippleContact ? { rippleContact } : {}),
    buzzer,
    leds,
    temperature: createDs18b20({ path: options.temperatureSensorPath }),
    async close() {
      if (closed) return;
      closed = true;
      contactor.close();
      phaseContactor?.close();
      pilot.close();
      cableLock.close();
      buzzer.close();
      leds.close();
      rippleContact?.close();
      await options.meter.close?.();
      pigpio.terminate?.();
    },
  };
}
