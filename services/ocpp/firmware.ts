import type { UpdateInstaller } from '../field-service/updates.js';
import { MAX_UPDATE_FILE_BYTES } from '../field-service/update-file.js';
import { safeUrl } from '../events.js';
import type { IncomingCalls, OcppContext } from './context.js';
import { requestOf, transferLocation } from './transfer.js';
import { CallError } from './transport.js';

/** Retries after the first download attempt when UpdateFirmware gives none. */
export const DEFAULT_DOWNLOAD_RETRIES = 1;
/** Seconds between attempts when UpdateFirmware gives no retryInterval. */
export const DEFAULT_DOWNLOAD_RETRY_INTERVAL_S = 60;
/** Longest time one download attempt may take (real time): an update file of a Pi is tens of MB. */
export const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

type FirmwareStatus = 'Downloading' | 'Downloaded' | 'DownloadFailed' | 'Installing' | 'Installed' | 'InstallationFailed';

/**
 * UpdateFirmware (OCPP 1.6 Firmware Management; docs/ocpp.md): at `retrieveDate` (on the controller's clock) the
 * update file is downloaded with HTTP(S) GET (user and password in the URL become basic authentication), tried
 * 1 + `retries` times `retryInterval` s apart, then installed by the same installer as `npm run update`
 * (services/field-service/updates.ts), reported by FirmwareStatusNotification Downloading, Downloaded or
 * DownloadFailed, Installing, Installed or InstallationFailed (with the reason in the log). Installed means the
 * update is in its slot for trial; the controller switches to it once no charge runs, and the BootNotification of
 * the next start names the version that runs (the update, or the old one after a rollback). Only http and https
 * locations; a second request while one runs is refused (GenericError).
 */
export function firmwareCalls(ctx: OcppContext, updates: UpdateInstaller): IncomingCalls {
  let busy = false;
  const notify = (status: FirmwareStatus) =>
    ctx
      .call('FirmwareStatusNotification', { status })
      .catch((err: unknown) => ctx.logger.warn({ err, status }, 'OCPP: FirmwareStatusNotification not delivered'));

  async function download(target: URL): Promise<Buffer | string> {
    const { url, headers } = requestOf(target);
    try {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
      if (!res.ok) {
        await res.arrayBuffer().catch(() => undefined);
        return `HTTP ${res.status}`;
      }
      if (Number(res.headers.get('content-length') ?? 0) > MAX_UPDATE_FILE_BYTES) return 'larger than an update file can be';
      const bytes = Buffer.from(await res.arrayBuffer());
      return bytes.length > MAX_UPDATE_FILE_BYTES ? 'larger than an update file can be' : bytes;
    } catch (err) {
      return (err as Error).message;
    }
  }

  async function install(bytes: Buffer): Promise<void> {
    await notify('Installing');
    try {
      const { manifest } = await updates.install(bytes);
      ctx.logger.info({ version: manifest.version }, 'OCPP: update installed; the controller switches to it once no charge runs');
      await notify('Installed');
    } catch (err) {
      ctx.logger.warn({ reason: (err as Error).message }, 'OCPP: update not installed');
      await notify('InstallationFailed');
    } finally {
      busy = false;
    }
  }

  function attempt(target: URL, triesLeft: number, intervalMs: number): void {
    void download(target).then(async (result) => {
      if (ctx.closed()) return;
      if (Buffer.isBuffer(result)) {
        await notify('Downloaded');
        return install(result);
      }
      ctx.logger.warn({ location: safeUrl(target.href), failure: result, triesLeft }, 'OCPP: update download failed');
      if (triesLeft > 0) {
        ctx.after(intervalMs, () => attempt(target, triesLeft - 1, intervalMs));
        return;
      }
      busy = false;
      return notify('DownloadFailed');
    });
  }

  return {
    UpdateFirmware(p) {
      const location = transferLocation(p.location, 'downloads');
      if (busy) throw new CallError('GenericError', 'an update is already being downloaded or installed');
      busy = true;
      const retries = p.retries ?? DEFAULT_DOWNLOAD_RETRIES;
      const intervalMs = (p.retryInterval ?? DEFAULT_DOWNLOAD_RETRY_INTERVAL_S) * 1000;
      const waitMs = Math.max(0, Date.parse(p.retrieveDate) - ctx.now());
      const begin = () =>
        ctx.fire(
          notify('Downloading').then(() => {
            if (!ctx.closed()) attempt(location, retries, intervalMs);
          }),
        );
      if (waitMs > 0) ctx.after(waitMs, begin);
      else ctx.later(begin);
      return {};
    },
  };
}
