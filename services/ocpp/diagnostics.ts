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

/**
 * GetDiagnostics (OCPP 1.6 Firmware Management): the bundle is made at once (its file name is the answer), then
 * uploaded to `location` with HTTP PUT (a location ending in "/" gets the file name appended; user and password in
 * the URL become basic authentication), reported by DiagnosticsStatusNotification Uploading, then Uploaded or, when
 * every attempt (1 + `retries`, `retryInterval` s apart on the controller's clock) failed, UploadFailed. Only http
 * and https locations: any other (ftp) is refused with PropertyConstraintViolation, as is a second request while an
 * upload runs (GenericError).
 */
export function diagnosticsCalls(ctx: OcppContext, source: DiagnosticsSource): IncomingCalls {
  let uploading = false;

  const notify = (status: 'Uploading' | 'Uploaded' | 'UploadFailed') =>
    ctx
      .call('DiagnosticsStatusNotification', { status })
      .catch((err: unknown) => ctx.logger.warn({ err, status }, 'OCPP: DiagnosticsStatusNotification not delivered'));

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

  function upload(target: URL, bytes: Buffer, triesLeft: number, intervalMs: number): void {
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
        ctx.after(intervalMs, () => upload(target, bytes, triesLeft - 1, intervalMs));
        return;
      }
      uploading = false;
      return notify('UploadFailed');
    });
  }

  return {
    async GetDiagnostics(p) {
      const location = transferLocation(p.location, 'uploads');
      if (uploading) throw new CallError('GenericError', 'an upload of diagnostics is already running');
      const range = {
        ...(p.startTime ? { from: Date.parse(p.startTime) } : {}),
        ...(p.stopTime ? { to: Date.parse(p.stopTime) } : {}),
      };
      const { bytes, fileName } = await source.bundle(range);
      const target = location.pathname.endsWith('/') ? new URL(encodeURIComponent(fileName), location) : location;
      uploading = true;
      const retries = p.retries ?? DEFAULT_UPLOAD_RETRIES;
      const intervalMs = (p.retryInterval ?? DEFAULT_UPLOAD_RETRY_INTERVAL_S) * 1000;
      ctx.later(async () => {
        await notify('Uploading');
        upload(target, bytes, retries, intervalMs);
      });
      return { fileName };
    },
  };
}
