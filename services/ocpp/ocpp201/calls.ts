import type { OCPP20 } from 'typed-ocpp';
import type { IncomingCall } from '../context.js';

/** The CSMS's requests the 2.0.1 charging station answers, by action (ocpp-rpc's strict mode validated each). */
interface IncomingRequests201 {
  CertificateSigned: OCPP20.CertificateSignedRequest;
  ChangeAvailability: OCPP20.ChangeAvailabilityRequest;
  CancelReservation: OCPP20.CancelReservationRequest;
  DeleteCertificate: OCPP20.DeleteCertificateRequest;
  GetInstalledCertificateIds: OCPP20.GetInstalledCertificateIdsRequest;
  InstallCertificate: OCPP20.InstallCertificateRequest;
  SetNetworkProfile: OCPP20.SetNetworkProfileRequest;
  ClearCache: OCPP20.ClearCacheRequest;
  ClearChargingProfile: OCPP20.ClearChargingProfileRequest;
  DataTransfer: OCPP20.DataTransferRequest;
  GetBaseReport: OCPP20.GetBaseReportRequest;
  GetChargingProfiles: OCPP20.GetChargingProfilesRequest;
  GetCompositeSchedule: OCPP20.GetCompositeScheduleRequest;
  GetLocalListVersion: OCPP20.GetLocalListVersionRequest;
  GetLog: OCPP20.GetLogRequest;
  GetReport: OCPP20.GetReportRequest;
  GetTransactionStatus: OCPP20.GetTransactionStatusRequest;
  GetVariables: OCPP20.GetVariablesRequest;
  ReserveNow: OCPP20.ReserveNowRequest;
  RequestStartTransaction: OCPP20.RequestStartTransactionRequest;
  RequestStopTransaction: OCPP20.RequestStopTransactionRequest;
  Reset: OCPP20.ResetRequest;
  SendLocalList: OCPP20.SendLocalListRequest;
  SetChargingProfile: OCPP20.SetChargingProfileRequest;
  SetVariables: OCPP20.SetVariablesRequest;
  TriggerMessage: OCPP20.TriggerMessageRequest;
  UnlockConnector: OCPP20.UnlockConnectorRequest;
  UpdateFirmware: OCPP20.UpdateFirmwareRequest;
}

/** The calls one 2.0.1 feature answers, by action. */
export type IncomingCalls201 = { [Action in keyof IncomingRequests201]?: IncomingCall<IncomingRequests201[Action]> };

/** The one EVSE and its one connector. */
export const EVSE_ID = 1;
export const CONNECTOR_ID = 1;
