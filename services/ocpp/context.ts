import type { Database } from '../../db/client.js';
import type { BackendLinkActor } from '../../machines/main-thread.js';
import type { ChargingService } from '../charging.js';
import type { Clock } from '../core/clock.js';
import type { EventLog } from '../events.js';
import type { UpdateInstaller } from '../field-service/updates.js';
import type { Logger } from '../logger.js';
import type { SettingKey, Settings } from '../settings/index.js';
import type { Transactions } from '../transactions.js';
import type { OCPP16 } from 'typed-ocpp';
import type { TransportOptions } from './transport.js';

/** Where the diagnostics bundle comes from (services/field-service/diagnostics.ts). */
export interface DiagnosticsSource {
  bundle(range: { from?: number; to?: number }): Promise<{ bytes: Buffer; fileName: string }>;
}

export interface BackendDeps {
  database: Database;
  /** The data directory (config.dataDir): the 2.0.1 certificate store and security event queue live there. */
  dataDir: string;
  settings: Settings;
  charging: ChargingService;
  transactions: Transactions;
  clock: Clock;
  /** Wall-clock time. */
  now: () => number;
  logger: Logger;
  /** Restarts the controller (Reset); without it Reset is refused. */
  restart?: (() => void) | undefined;
  /** Every frame both ways (tests). */
  frame?: TransportOptions['frame'];
  /** The event log: backend connection changes, and a Reset as a restart (the audit trail). */
  events?: Pick<EventLog, 'backend' | 'record'>;
  /** Told when the connection to the central system opens and fails or closes (GET /v1/network shows it). */
  connection?: { connected(): void; failed(reason: string): void };
  /** Sets the controller's wall clock to a time the central system gave (UTC ms). */
  setTime?: (ms: number) => void;
  /** The diagnostics bundle: with it, GetDiagnostics uploads it (diagnostics.ts); without it, NotImplemented. */
  diagnostics?: DiagnosticsSource | undefined;
  /** Installs update files: with it, UpdateFirmware downloads and installs one (firmware.ts); without it, NotImplemented. */
  updates?: UpdateInstaller | undefined;
}

/** The central system's requests the charge point answers, by action (ocpp-rpc's strict mode validated each). */
interface IncomingRequests {
  ChangeAvailability: OCPP16.ChangeAvailabilityRequest;
  ChangeConfiguration: OCPP16.ChangeConfigurationRequest;
  CancelReservation: OCPP16.CancelReservationRequest;
  ClearCache: OCPP16.ClearCacheRequest;
  ClearChargingProfile: OCPP16.ClearChargingProfileRequest;
  DataTransfer: OCPP16.DataTransferRequest;
  GetDiagnostics: OCPP16.GetDiagnosticsRequest;
  GetCompositeSchedule: OCPP16.GetCompositeScheduleRequest;
  GetConfiguration: OCPP16.GetConfigurationRequest;
  GetLocalListVersion: OCPP16.GetLocalListVersionRequest;
  RemoteStartTransaction: OCPP16.RemoteStartTransactionRequest;
  RemoteStopTransaction: OCPP16.RemoteStopTransactionRequest;
  ReserveNow: OCPP16.ReserveNowRequest;
  Reset: OCPP16.ResetRequest;
  SendLocalList: OCPP16.SendLocalListRequest;
  SetChargingProfile: OCPP16.SetChargingProfileRequest;
  TriggerMessage: OCPP16.TriggerMessageRequest;
  UnlockConnector: OCPP16.UnlockConnectorRequest;
  UpdateFirmware: OCPP16.UpdateFirmwareRequest;
}
/** A call the central system makes, answered by the returned payload (or a thrown CallError). */
export type IncomingCall<Request> = (payload: Request) => Promise<Record<string, unknown>> | Record<string, unknown>;
/** The calls one feature answers, by action. */
export type IncomingCalls = { [Action in keyof IncomingRequests]?: IncomingCall<IncomingRequests[Action]> };

/**
 * What every OCPP feature of the charge point shares: the dependencies, the link's state, calls to the central
 * system, timers on the actor clock (all cancelled at close) and the bookkeeping of local work.
 */
export function createOcppContext(
  deps: BackendDeps,
  call: (action: string, payload: Record<string, unknown>, timeoutMs?: number) => Promise<Record<string, unknown>>,
) {
  const { settings, clock, logger } = deps;
  let link: BackendLinkActor | undefined;
  let closed = false;
  const timers = new Set<unknown>();
  /** Local work (database writes, schedule changes) that `settled()` waits for; calls to the central system are not. */
  const work = new Set<Promise<unknown>>();

  const ctx = {
    ...deps,
    call,
    setting: <K extends SettingKey>(key: K) => settings.get(key),
    on: (key: SettingKey) => settings.get(key) === 1,
    /** A time as the central system gets it. */
    csmsTime: (ms: number) => new Date(ms).toISOString(),

    attach: (actor: BackendLinkActor) => (link = actor),
    linkState: () => link?.getSnapshot(),
    sendLink: (event: Parameters<BackendLinkActor['send']>[0]) => link?.send(event),
    isAttached: () => link !== undefined,
    isAccepted: () => link?.getSnapshot().matches({ connected: 'accepted' }) ?? false,
    isPending: () => link?.getSnapshot().matches({ connected: 'pending' }) ?? false,
    isBooting: () => link?.getSnapshot().matches({ connected: 'booting' }) ?? false,
    /** The BootNotification in flight: settles once its answer moved the link. */
    bootAnswer: undefined as Promise<void> | undefined,

    closed: () => closed,
    close: () => {
      closed = true;
      for (const t of [...timers]) ctx.cancel(t);
    },

    /** Runs `fn` after `ms` on the actor clock. */
    after(ms: number, fn: () => void): unknown {
      const id = clock.setTimeout(() => {
        timers.delete(id);
        fn();
      }, ms);
      timers.add(id);
      return id;
    },
    cancel(id: unknown): void {
      clock.clearTimeout(id);
      timers.delete(id);
    },

    /** Local work: `settled()` waits for it; failures logged. */
    track(p: Promise<unknown>): void {
      const tracked = p.catch((err: unknown) => logger.error({ err }, 'OCPP: unexpected failure'));
      work.add(tracked);
      void tracked.finally(() => work.delete(tracked));
    },
    /** Work that waits for the network: runs on, failures logged. */
    fire(p: Promise<unknown>): void {
      void p.catch((err: unknown) => logger.error({ err }, 'OCPP: unexpected failure'));
    },
    /** Runs after the current call was answered. */
    later(fn: () => Promise<unknown> | void): void {
      setImmediate(() => ctx.fire(Promise.resolve().then(fn)));
    },
    async settled(): Promise<void> {
      while (work.size > 0) await Promise.allSettled([...work]);
    },
  };
  return ctx;
}

export type OcppContext = ReturnType<typeof createOcppContext>;
