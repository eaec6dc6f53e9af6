/**
 * What the API reads of the charge point: the state sets of spec 2.13 and the messages of 2.14 (the charging
 * service implements it from the charge-cycle actor, services/charging.ts).
 */

export const SYSTEM_STATES = ['idle', 'connected', 'wait_for_auth', 'charging', 'charging_pause', 'finished', 'unavailable', 'error'] as const;
export const CONNECTION_STATES = [
  'no_vehicle_connected',
  'vehicle_connected_schuko',
  'vehicle_charging_schuko',
  'vehicle_connected_type2',
  'vehicle_charging_type2',
  'vehicle_connector_error',
] as const;
export const AUTH_STATES = ['not_authorized_for_charging', 'wait_for_auth', 'authorized_for_charging', 'auth_timeout'] as const;
export const OCPP_STATES = [
  'available',
  'occupied',
  'reserved',
  'unavailable',
  'faulted',
  'preparing',
  'charging',
  'suspendedevse',
  'suspendedev',
  'finishing',
] as const;
export const TYPE2_STATES = ['a', 'b', 'c', 'd', 'e'] as const;

/** ActiveTransactionDetails (spec 2.13). */
export interface ActiveTransactionDetails {
  transactionId: string;
  backendTransactionId?: string;
  userId?: string;
  transactionStart: string;
  transactionDuration?: number;
  tagId?: string;
  consumption: number;
  power: number;
  maxPower: number;
  OCPPMeterCurrent?: { L1: number; L2?: number; L3?: number };
}

/** SystemState (spec 2.13). */
export interface SystemState {
  systemState: (typeof SYSTEM_STATES)[number];
  connectionState: (typeof CONNECTION_STATES)[number];
  authState: (typeof AUTH_STATES)[number];
  ocppState: (typeof OCPP_STATES)[number];
  type2State: (typeof TYPE2_STATES)[number];
  ambientTemp?: number;
  transaction?: ActiveTransactionDetails;
}

/** Message (spec 2.14). */
export interface Message {
  severity: 'ERROR' | 'WARNING';
  errorCode: string;
  message: string;
  correctiveActions?: string;
}

export interface ChargePoint {
  state(): SystemState;
  messages(): Message[];
}
