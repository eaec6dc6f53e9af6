import type { OCPP20 } from 'typed-ocpp';
import type { IncomingCall } from '../context.js';

export type { DeviceModelReader } from '../context.js';

/** The CSMS's requests the 2.0.1 charging station answers, by action (ocpp-rpc's strict mode validated each). */
interface IncomingRequests201 {
  ChangeAvailability: OCPP20.ChangeAvailabilityRequest;
  ClearCache: OCPP20.ClearCacheRequest;
  DataTransfer: OCPP20.DataTransferRequest;
  GetLocalListVersion: OCPP20.GetLocalListVersionRequest;
  RequestStartTransaction: OCPP20.RequestStartTransactionRequest;
  RequestStopTransaction: OCPP20.RequestStopTransactionRequest;
  Reset: OCPP20.ResetRequest;
  SendLocalList: OCPP20.SendLocalListRequest;
  TriggerMessage: OCPP20.TriggerMessageRequest;
  UnlockConnector: OCPP20.UnlockConnectorRequest;
}

/** The calls one 2.0.1 feature answers, by action. */
export type IncomingCalls201 = { [Action in keyof IncomingRequests201]?: IncomingCall<IncomingRequests201[Action]> };

/** The one EVSE and its one connector. */
export const EVSE_ID = 1;
export const CONNECTOR_ID = 1;
