/** GPIO assignment of the Raspberry Pi backend (BCM numbers). */
export interface RpiPins {
  /** Control pilot PWM output (hardware PWM: 12, 13, 18 or 19). */
  cpPwm: number;
  /** Control pilot comparator inputs: above 10.5 V, above 7.5 V, above 4.5 V, above 1.5 V, below -10 V. */
  cpLevel: readonly [number, number, number, number, number];
  contactor: number;
  contactorFeedback?: number | undefined;
  lock: number;
  lockFeedback?: number | undefined;
  /** The phase contactor of 1-/3-phase switching (high = three phases); none: no phase switching. */
  phaseSwitch?: number | undefined;
  /** The ripple-control receiver's potential-free contact (input with pull-up; closed = dimmed); none: not wired. */
  rippleContact?: number | undefined;
  buzzer: number;
  /** Red, green, blue. */
  leds: readonly [number, number, number];
}

export const DEFAULT_RPI_PINS: RpiPins = {
  cpPwm: 18,
  cpLevel: [5, 6, 13, 19, 26],
  contactor: 17,
  lock: 27,
  buzzer: 22,
  leds: [23, 24, 25],
};

/** Every pin of an assignment with what it drives, in a fixed order (optional feedback inputs only when set). */
export function pinUses(pins: RpiPins): { use: string; pin: number }[] {
  return [
    { use: 'control pilot PWM', pin: pins.cpPwm },
    ...pins.cpLevel.map((pin, i) => ({ use: `control pilot comparator ${['>10.5 V', '>7.5 V', '>4.5 V', '>1.5 V', '<-10 V'][i]}`, pin })),
    { use: 'contactor', pin: pins.contactor },
    ...(pins.contactorFeedback === undefined ? [] : [{ use: 'contactor feedback', pin: pins.contactorFeedback }]),
    { use: 'cable lock', pin: pins.lock },
    ...(pins.lockFeedback === undefined ? [] : [{ use: 'cable lock feedback', pin: pins.lockFeedback }]),
    ...(pins.phaseSwitch === undefined ? [] : [{ use: 'phase contactor', pin: pins.phaseSwitch }]),
    ...(pins.rippleContact === undefined ? [] : [{ use: 'ripple-control contact', pin: pins.rippleContact }]),
    { use: 'buzzer', pin: pins.buzzer },
    ...pins.leds.map((pin, i) => ({ use: `LED ${'RGB'[i]}`, pin })),
  ];
}

/** Throws when a pin is assigned twice. */
export function checkDistinctPins(pins: RpiPins): void {
  const seen = new Map<number, string>();
  for (const { use, pin } of pinUses(pins)) {
    const other = seen.get(pin);
    if (other !== undefined) throw new RangeError(`GPIO ${pin} is assigned twice: ${other} and ${use}`);
    seen.set(pin, use);
  }
}
