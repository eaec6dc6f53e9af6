import { verify as verifySignature } from 'node:crypto';
import { safeUrl } from '../../events.js';
import type { DiagnosticsSource, OcppContext } from '../context.js';
import { DEFAULT_UPLOAD_RETRIES, DEFAULT_UPLOAD_RETRY_INTERVAL_S, type DiagnosticsUpload, type UploadStatus } from '../diagnostics.js';
import { DEFAULT_DOWNLOAD_RETRIES, DEFAULT_DOWNLOAD_RETRY_INTERVAL_S, type FirmwareStatus, type FirmwareUpdate } from '../firmware.js';
import { transferLocation } from '../transfer.js';
import type { IncomingCalls201 } from './calls.js';
import type { Certificates } from './certificates.js';
import type { SecurityEventType } from './security-events.js';

/** The update mechanism and diagnostics bundle the 1.6 charge point uses too (one of each: one transfer at a time). */
export interface Transfers {
  firmware?: FirmwareUpdate | undefined;
  upload?: DiagnosticsUpload | undefined;
}

/** An http(s) location, else undefined (2.0.1 answers Rejected where 1.6 raised PropertyConstraintViolation). */
function locationOf(raw: string, does: 'downloads' | 'uploads'): URL | undefined {
  try {
    return transferLocation(raw, does);
  } catch {
    return undefined;
  }
}

/**
 * L01 UpdateFirmware and N01 GetLog over the shared transfers (firmware.ts, diagnostics.ts): only the messages
 * differ from 1.6 (requestId in each status notification, Rejected for a bad location or a transfer already running,
 * installDateTime honoured with InstallScheduled, LogStatusNotification's UploadFailure). The update file's own
 * signature is checked by the installer against the trusted keys; the request's signature and signingCertificate
 * are not checked (docs/ocpp.md). GetLog sends the diagnostics bundle for DiagnosticsLog, the security log (security-log.ts) for SecurityLog.
 * Without an installer or a bundle source the action stays NotImplemented, as in 1.6.
 */
export function transferCalls201(
  ctx: OcppContext,
  transfers: Transfers,
  secure: { signer: Certificates['firmwareSigner']; securityEvent(type: SecurityEventType, techInfo: string): void; securityLog: DiagnosticsSource },
) {
  const { firmware, upload } = transfers;
  const calls: IncomingCalls201 = {};
  /** The last status sent of the update and of the upload under way (TriggerMessage sends it again). */
  let firmwareStatus: { status: string; requestId: number } | undefined;
  let logStatus: { status: string; requestId: number } | undefined;
  if (firmware) {
    calls.UpdateFirmware = (p) => {
      const location = locationOf(p.firmware.location, 'downloads');
      if (!location || firmware.busy()) return { status: 'Rejected' };
      // L01: a signed update names its signing certificate and the signature of the file; both, or neither (L02).
      const { signingCertificate, signature } = p.firmware;
      if ((signingCertificate === undefined) !== (signature === undefined)) return { status: 'Rejected' };
      let verify: ((bytes: Buffer) => boolean) | undefined;
      if (signingCertificate !== undefined && signature !== undefined) {
        const signer = secure.signer(signingCertificate);
        if (!signer.ok) return { status: 'InvalidCertificate', statusInfo: { reasonCode: signer.reasonCode, additionalInfo: signer.why.slice(0, 512) } };
        verify = (bytes) => {
          const ok = verifySignature('sha256', bytes, signer.key, Buffer.from(signature, 'base64'));
          if (!ok) secure.securityEvent('InvalidFirmwareSignature', `the signature of ${safeUrl(location.href)} does not verify`);
          return ok;
        };
      }
      const notify = (status: FirmwareStatus) =>
        ctx
          .call('FirmwareStatusNotification', (firmwareStatus = { status, requestId: p.requestId }))
          .catch((err: unknown) => ctx.logger.warn({ err, status }, 'OCPP: FirmwareStatusNotification not delivered'));
      firmware.start(
        {
          location,
          retrieveAt: Date.parse(p.firmware.retrieveDateTime),
          ...(p.firmware.installDateTime ? { installAt: Date.parse(p.firmware.installDateTime) } : {}),
          retries: p.retries ?? DEFAULT_DOWNLOAD_RETRIES,
          intervalMs: (p.retryInterval ?? DEFAULT_DOWNLOAD_RETRY_INTERVAL_S) * 1000,
          verify,
        },
        notify,
      );
      return { status: 'Accepted' };
    };
  }
  if (upload) {
    calls.GetLog = async (p) => {
      const location = locationOf(p.log.remoteLocation, 'uploads');
      if (!location || upload.busy()) return { status: 'Rejected' };
      const notify = (status: UploadStatus) =>
        ctx
          .call('LogStatusNotification', (logStatus = { status: status === 'UploadFailed' ? 'UploadFailure' : status, requestId: p.requestId }))
          .catch((err: unknown) => ctx.logger.warn({ err, status }, 'OCPP: LogStatusNotification not delivered'));
      const filename = await upload.start(
        {
          location,
          range: {
            ...(p.log.oldestTimestamp ? { from: Date.parse(p.log.oldestTimestamp) } : {}),
            ...(p.log.latestTimestamp ? { to: Date.parse(p.log.latestTimestamp) } : {}),
          },
          retries: p.retries ?? DEFAULT_UPLOAD_RETRIES,
          intervalMs: (p.retryInterval ?? DEFAULT_UPLOAD_RETRY_INTERVAL_S) * 1000,
          ...(p.logType === 'SecurityLog' ? { source: secure.securityLog } : {}),
        },
        notify,
      );
      return { status: 'Accepted', filename };
    };
  }
  /** F06: the status of the transfer under way with its requestId, `Idle` when none runs; undefined: not supported. */
  const triggered = (busy: (() => boolean) | undefined, last: () => { status: string; requestId: number } | undefined) =>
    busy && (() => (busy() && last() ? { ...last()! } : { status: 'Idle' }));
  return {
    calls,
    firmwareStatus: triggered(firmware && (() => firmware.busy()), () => firmwareStatus),
    logStatus: triggered(upload && (() => upload.busy()), () => logStatus),
  };
}
