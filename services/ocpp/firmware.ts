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

/** The statuses of an update, named alike in 1.6's and 2.0.1's FirmwareStatusNotification. */
export type FirmwareStatus =
  | 'Downloading'
  | 'Downloaded'
  | 'DownloadFailed'
  | 'SignatureVerified'
  | 'InvalidSignature'
  | 'InstallScheduled'
  | 'Installing'
  | 'Installed'
  | 'InstallationFailed';

/** An update to fetch: where, when (controller's clock, ms) and how often to try. */
export interface FirmwareRequest {
  location: URL;
  retrieveAt: number;
  /** 2.0.1's installDateTime: a downloaded update waits for it (InstallScheduled); none in 1.6, installed at once. */
  installAt?: number;
  retries: number;
  intervalMs: number;
  /** 2.0.1's secure update (L01): whether the downloaded file's signature verifies (SignatureVerified, else InvalidSignature and no install). */
  verify?: ((bytes: Buffer) => boolean) | undefined;
}

/**
 * The update of either version (docs/ocpp.md): at `retrieveAt` the update file is downloaded with HTTP(S) GET (user
 * and password in the URL become basic authentication), tried 1 + `retries` times `intervalMs` apart, then installed
 * by the same installer as `npm run update` (services/field-service/updates.ts, which checks the file's signature
 * against the trusted keys), each step told by `notify` (the version's FirmwareStatusNotification). Installed means
 * the update is in its slot for trial; the controller switches to it once no charge runs, and the BootNotification of
 * the next start names the version that runs (the update, or the old one after a rollback). One at a time.
 */
export function createFirmwareUpdate(ctx: OcppContext, updates: UpdateInstaller) {
  let busy = false;

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

  async function install(bytes: Buffer, notify: (status: FirmwareStatus) => Promise<unknown>): Promise<void> {
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

  function attempt(request: FirmwareRequest, triesLeft: number, notify: (status: FirmwareStatus) => Promise<unknown>): void {
    const target = request.location;
    void download(target).then(async (result) => {
      if (ctx.closed()) return;
      if (Buffer.isBuffer(result)) {
        await notify('Downloaded');
        if (request.verify) {
          const verified = request.verify(result);
          await notify(verified ? 'SignatureVerified' : 'InvalidSignature');
          if (!verified) {
            busy = false;
            return;
          }
        }
        const waitMs = (request.installAt ?? 0) - ctx.now();
        if (!(waitMs > 0)) return install(result, notify);
        await notify('InstallScheduled');
        ctx.after(waitMs, () => ctx.track(install(result, notify)));
        return;
      }
      ctx.logger.warn({ location: safeUrl(target.href), failure: result, triesLeft }, 'OCPP: update download failed');
      if (triesLeft > 0) {
        ctx.after(request.intervalMs, () => attempt(request, triesLeft - 1, notify));
        return;
      }
      busy = false;
      return notify('DownloadFailed');
    });
  }

  return {
    /** Whether an update is being downloaded or installed. */
    busy: (): boolean => busy,
    start(request: FirmwareRequest, notify: (status: FirmwareStatus) => Promise<unknown>): void {
      busy = true;
      const waitMs = Math.max(0, request.retrieveAt - ctx.now());
      const begin = () =>
        ctx.fire(
          notify('Downloading').then(() => {
            if (!ctx.closed()) attempt(request, request.retries, notify);
          }),
        );
      if (waitMs > 0) ctx.after(waitMs, begin);
      else ctx.later(begin);
    },
  };
}

export type FirmwareUpdate = ReturnType<typeof createFirmwareUpdate>;

/**
 * UpdateFirmware (OCPP 1.6 Firmware Management) over the shared update (createFirmwareUpdate), told by
 * FirmwareStatusNotification. Only http and https locations; a second request while one runs is refused
 * (GenericError).
 */
export function firmwareCalls(ctx: OcppContext, update: FirmwareUpdate): IncomingCalls {
  const notify = (status: FirmwareStatus) =>
    ctx
      .call('FirmwareStatusNotification', { status })
      .catch((err: unknown) => ctx.logger.warn({ err, status }, 'OCPP: FirmwareStatusNotification not delivered'));

  return {
    UpdateFirmware(p) {
      const location = transferLocation(p.location, 'downloads');
      if (update.busy()) throw new CallError('GenericError', 'an update is already being downloaded or installed');
      update.start(
        {
          location,
          retrieveAt: Date.parse(p.retrieveDate),
          retries: p.retries ?? DEFAULT_DOWNLOAD_RETRIES,
          intervalMs: (p.retryInterval ?? DEFAULT_DOWNLOAD_RETRY_INTERVAL_S) * 1000,
        },
        notify,
      );
      return {};
    },
  };
}
