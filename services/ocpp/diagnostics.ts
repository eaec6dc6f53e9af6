import { safeUrl } from '../events.js';
import type { DiagnosticsSource, IncomingCalls, OcppContext } from './context.js';
import { requestOf, transferLocation } from './transfer.js';
import { CallError } from './transport.js';

/** Retries after the first upload attempt when GetDiagnostics gives none (OCPP leaves it to the charge point). */
export const DEFAULT_UPLOAD_RETRIES = 1;
/** Seconds between attempts when GetDiagnostics gives no retryInterval. */
export const DEFAULT_UPLOAD_RETRY_INTERVAL_S = 60;
/** Longest time one upload attempt may take (real time). */
export const UPLOAD_TIMEOUT_MS = 60_000;

/** The statuses of an upload (1.6 DiagnosticsStatusNotification; 2.0.1 LogStatusNotification says UploadFailure). */
export type UploadStatus = 'Uploading' | 'Uploaded' | 'UploadFailed';

/** An upload of the bundle: where, which time range, how often to try. */
export interface UploadRequest {
  location: URL;
  range: { from?: number; to?: number };
  retries: number;
  intervalMs: number;
  /** What is uploaded (2.0.1 GetLog SecurityLog: the security log); default the diagnostics bundle. */
  source?: DiagnosticsSource | undefined;
}

/**
 * The diagnostics bundle sent to the central system, for either version (1.6 GetDiagnostics, 2.0.1 GetLog): the
 * bundle is made at once (its file name is the answer), then uploaded to the location with HTTP PUT (a location
 * ending in "/" gets the file name appended; user and password in the URL become basic authentication), each step
 * told by `notify`: Uploading, then Uploaded or, when every attempt (1 + `retries`, `intervalMs` apart on the
 * controller's clock) failed, UploadFailed. One upload at a time.
 */
export function createDiagnosticsUpload(ctx: OcppContext, source: DiagnosticsSource) {
  let uploading = false;

  async function attempt(target: URL, bytes: Buffer): Promise<string | null> {
    const { url, headers } = requestOf(target);
    try {
      const res = await fetch(url, {
        method: 'PUT',
        headers: { ...headers, 'Content-Type': 'application/gzip' },
        body: bytes,
        signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.ok ? null : `HTTP ${res.status}`;
    } catch (err) {
      return (err as Error).message;
    }
  }

  function upload(target: URL, bytes: Buffer, triesLeft: number, intervalMs: number, notify: (status: UploadStatus) => Promise<unknown>): void {
    void attempt(target, bytes).then(async (failure) => {
      if (ctx.closed()) return;
      const where = safeUrl(target.href);
      if (failure === null) {
        ctx.logger.info({ location: where, bytes: bytes.length }, 'OCPP: diagnostics uploaded');
        uploading = false;
        return notify('Uploaded');
      }
      ctx.logger.warn({ location: where, failure, triesLeft }, 'OCPP: diagnostics upload failed');
      if (triesLeft > 0) {
        ctx.after(intervalMs, () => upload(target, bytes, triesLeft - 1, intervalMs, notify));
        return;
      }
      uploading = false;
      return notify('UploadFailed');
    });
  }

  return {
    /** Whether an upload runs. */
    busy: (): boolean => uploading,
    /** Makes the bundle and starts its upload; the bundle's file name. */
    async start(request: UploadRequest, notify: (status: UploadStatus) => Promise<unknown>): Promise<string> {
      const { bytes, fileName } = await (request.source ?? source).bundle(request.range);
      const { location } = request;
      const target = location.pathname.endsWith('/') ? new URL(encodeURIComponent(fileName), location) : location;
      uploading = true;
      ctx.later(async () => {
        await notify('Uploading');
        upload(target, bytes, request.retries, request.intervalMs, notify);
      });
      return fileName;
    },
  };
}

export type DiagnosticsUpload = ReturnType<typeof createDiagnosticsUpload>;

/**
 * GetDiagnostics (OCPP 1.6 Firmware Management) over the shared upload, told by DiagnosticsStatusNotification. Only
 * http and https locations: any other (ftp) is refused with PropertyConstraintViolation, as is a second request
 * while an upload runs (GenericError).
 */
export function diagnosticsCalls(ctx: OcppContext, upload: DiagnosticsUpload): IncomingCalls {
  const notify = (status: UploadStatus) =>
    ctx
      .call('DiagnosticsStatusNotification', { status })
      .catch((err: unknown) => ctx.logger.warn({ err, status }, 'OCPP: DiagnosticsStatusNotification not delivered'));

  return {
    async GetDiagnostics(p) {
      const location = transferLocation(p.location, 'uploads');
      if (upload.busy()) throw new CallError('GenericError', 'an upload of diagnostics is already running');
      const fileName = await upload.start(
        {
          location,
          range: { ...(p.startTime ? { from: Date.parse(p.startTime) } : {}), ...(p.stopTime ? { to: Date.parse(p.stopTime) } : {}) },
          retries: p.retries ?? DEFAULT_UPLOAD_RETRIES,
          intervalMs: (p.retryInterval ?? DEFAULT_UPLOAD_RETRY_INTERVAL_S) * 1000,
        },
        notify,
      );
      return { fileName };
    },
  };
}
