/**
 * Hardware backends. `sim` (the default) simulates every device so the firmware runs on any PC; `rpi` drives the
 * real devices of a Raspberry Pi class controller. Device drivers live in one folder each beside this file, a real
 * and a simulated implementation behind one interface.
 */
export const HARDWARE_BACKENDS = ['sim', 'rpi'] as const;
export type HardwareBackend = (typeof HARDWARE_BACKENDS)[number];
