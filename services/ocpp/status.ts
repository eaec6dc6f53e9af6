import type { CoreState } from '../core/protocol.js';
import { heldOcppState } from '../charging.js';

/** spec 2.13 ocppState → OCPP 1.6 ChargePointStatus. */
const STATUS: Record<string, string> = {
  available: 'Available',
  preparing: 'Preparing',
  charging: 'Charging',
  suspendedev: 'SuspendedEV',
  suspendedevse: 'SuspendedEVSE',
  finishing: 'Finishing',
  reserved: 'Reserved',
  unavailable: 'Unavailable',
  faulted: 'Faulted',
  occupied: 'Preparing',
};

/** The controller's message codes (/v1/messages) → OCPP 1.6 ChargePointErrorCode. */
const ERROR_CODES: Record<string, string> = {
  CP_STATE_E: 'EVCommunicationError',
  CP_STATE_F: 'EVCommunicationError',
  CP_STATE_D_NO_VENTILATION: 'OtherError',
  CONTACTOR_WELDED: 'PowerSwitchFailure',
  CONTACTOR_NOT_CLOSING: 'PowerSwitchFailure',
  OVERTEMPERATURE: 'HighTemperature',
  HIGH_TEMPERATURE: 'HighTemperature',
  TEMPERATURE_SENSOR_FAILURE: 'OtherError',
  METER_NOT_RESPONDING: 'PowerMeterFailure',
};

export interface Status {
  connectorId: 0 | 1;
  status: string;
  errorCode: string;
  vendorErrorCode?: string;
  info?: string;
}

/**
 * StatusNotification of connectors 0 and 1 from the core's state; errorCode from the most severe active message.
 * `unavailable`: an Inoperative scheduled for the end of the transaction takes effect (the core does not know yet).
 * `reserved`: a reservation holds the connector (services/ocpp/reservation.ts).
 */
export function statusesOf(state: CoreState, unavailable = false, reserved = false): [Status, Status] {
  const shown = heldOcppState(state.system.ocppState, reserved);
  const ocpp = unavailable && shown !== 'faulted' ? 'unavailable' : shown;
  const message = state.messages.find((m) => m.severity === 'ERROR') ?? state.messages[0];
  const error = message
    ? { errorCode: ERROR_CODES[message.errorCode] ?? 'OtherError', vendorErrorCode: message.errorCode.slice(0, 50), info: message.message.slice(0, 50) }
    : { errorCode: 'NoError' };
  const whole = ocpp === 'faulted' ? 'Faulted' : ocpp === 'unavailable' ? 'Unavailable' : 'Available';
  return [
    { connectorId: 0, status: whole, ...(whole === 'Available' ? { errorCode: 'NoError' } : error) },
    { connectorId: 1, status: STATUS[ocpp] ?? 'Available', ...error },
  ];
}
