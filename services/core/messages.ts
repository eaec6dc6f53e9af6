import type { Message } from './system-state.js';

/**
 * Every error and warning `/v1/messages` can list (spec 2.14: "the complete list of codes: not shown"). The
 * errorCode of a cause never changes; ERROR prevents charging, WARNING informs.
 */
export const MESSAGES = {
  'pilot-short': {
    severity: 'ERROR',
    errorCode: 'CP_STATE_E',
    message: 'Control pilot error (state E): the CP line is shorted to protective earth or the vehicle side has no power',
    correctiveActions: 'Unplug the vehicle, check the charging cable and the vehicle inlet for damage, then plug in again.',
  },
  'pilot-negative': {
    severity: 'ERROR',
    errorCode: 'CP_STATE_F',
    message: 'Control pilot error: the CP line stays at -12 V (diode fault or EVSE pilot circuit fault)',
    correctiveActions: 'Unplug the vehicle and plug in again; if the error stays with no vehicle connected, call service.',
  },
  ventilation: {
    severity: 'ERROR',
    errorCode: 'CP_STATE_D_NO_VENTILATION',
    message: 'The vehicle requests charging with ventilation (state D), which this installation does not provide',
    correctiveActions: 'Charge this vehicle at a ventilated charge point.',
  },
  'contactor-welded': {
    severity: 'ERROR',
    errorCode: 'CONTACTOR_WELDED',
    message: 'The contactor reports closed although it was commanded open (welded contacts)',
    correctiveActions: 'Switch off the supply of the charge point at the circuit breaker and call service.',
  },
  'contactor-not-closing': {
    severity: 'ERROR',
    errorCode: 'CONTACTOR_NOT_CLOSING',
    message: 'The contactor did not close when commanded',
    correctiveActions: 'Unplug the vehicle to retry; if it happens again, call service to check the contactor and its supply.',
  },
  overtemperature: {
    severity: 'ERROR',
    errorCode: 'OVERTEMPERATURE',
    message: 'The temperature inside the charge point is too high (80 °C or more): charging is stopped',
    correctiveActions: 'Charging resumes by itself below 75 °C. Shade the charge point and keep its vents free.',
  },
  'high-temperature': {
    severity: 'WARNING',
    errorCode: 'HIGH_TEMPERATURE',
    message: 'The temperature inside the charge point is high (60 °C or more)',
    correctiveActions: 'Shade the charge point and keep its vents free; charging stops at 80 °C.',
  },
  'temperature-sensor': {
    severity: 'WARNING',
    errorCode: 'TEMPERATURE_SENSOR_FAILURE',
    message: 'The temperature sensor does not answer: overtemperature protection is not available',
    correctiveActions: 'Call service to check the temperature sensor and its wiring.',
  },
  meter: {
    severity: 'WARNING',
    errorCode: 'METER_NOT_RESPONDING',
    message: 'The energy meter does not answer: consumption and power are not updated',
    correctiveActions: 'Check the meter wiring (RS485) and its power supply; the transaction keeps the last reading.',
  },
} as const satisfies Record<string, Message>;

export type MessageCause = keyof typeof MESSAGES;
