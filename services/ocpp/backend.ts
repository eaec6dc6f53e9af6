import { readFileSync } from 'node:fs';
import type { BackendLinkActor } from '../../machines/main-thread.js';
import { phaseSwitchModeOf } from '../apply-settings.js';
import type { CoreState } from '../core/protocol.js';
import { phaseStateOf } from '../energy/phase-state.js';
import { createAuthorizationStore } from './authorization.js';
import { createAuthorization, ocpp16Question } from './authorize.js';
import { createAvailability } from './availability.js';
import { boot } from './boot.js';
import { createChargingSchedule, createScheduleApplier } from './charging-schedule.js';
import type { ScheduleTransaction } from './smart-charging.js';
import { configurationCalls, createConfiguration } from './configuration.js';
import { createOcppContext, type BackendDeps } from './context.js';
import { createDiagnosticsUpload, diagnosticsCalls } from './diagnostics.js';
import { createFirmwareUpdate, firmwareCalls } from './firmware.js';
import { heartbeat } from './heartbeat.js';
import { DATA_TRANSFER_CALLS, incomingCallHandler } from './incoming-calls.js';
import { createMetering, ocpp16MeterValues } from './metering.js';
import { ocpp201Question } from './ocpp201/authorize.js';
import { createOutbox } from './outbox.js';
import { createQueueSender, ocpp16Queue } from './queue.js';
import { createRemoteControl } from './remote-control.js';
import { createReservations } from './reservation.js';
import { createProfileStore, type ProfilePurpose } from './smart-charging.js';
import { createStatusNotifications } from './status-notification.js';
import { loadStoredKeys } from './stored-keys.js';
import { createVersionState, offeredProtocols } from './versions.js';
import { configurationError, createTransport, type Endpoint } from './transport.js';
import { triggerCalls } from './trigger.js';

export type { BackendDeps } from './context.js';

/**
 * The OCPP 1.6J charge point (services/ocpp/): on the main thread beside the API, never on the safety path. It
 * provides the backend link actor's effects (machines/backend-link.ts), answers the central system's calls, sends
 * status notifications and meter values from the core's state, decides tags the local whitelist does not know
 * (through services/charging.ts's tag path), queues transaction messages in the database (outbox.ts) and feeds the
 * charging schedule into the charge cycle's load limit. With OcppEnabled off it does nothing but keep the hooks
 * that let an earlier run's queued messages wait. This file only assembles the features (one file each).
 * With OcppVersions offering 2.0.1, the 2.0.1 charging station (ocpp201/station.ts) is assembled too, over the same
 * transport, queue, authorization store and link actor; the version the central system picked speaks.
 */
export async function createBackend(deps: BackendDeps) {
  const { database, settings, charging, transactions, clock, now, logger } = deps;
  const enabled = settings.get('OcppEnabled') === 1;
  /** The CSMS's time set the controller's clock (2.0.1: a security event). */
  let timeSet: (() => void) | undefined;
  const setTime = deps.setTime && ((ms: number) => (deps.setTime!(ms), timeSet?.()));
  const ctx = createOcppContext({ ...deps, setTime }, (action, payload, timeoutMs) =>
    transport.call(action, payload, timeoutMs === undefined ? {} : { timeoutMs }),
  );

  const outbox = createOutbox(database, now);
  const auth = createAuthorizationStore(database, now);
  const profiles = await createProfileStore(database);
  const keys = await loadStoredKeys(database);
  const versions = await createVersionState(database, offeredProtocols(settings.get('OcppVersions')));
  // A phase contactor the core reports (GPIO_PHASE_SWITCH) that PhaseSwitchMode leaves to the allocator (automatic).
  const configuration = createConfiguration(
    settings,
    keys,
    () => {
      const phases = phaseStateOf(settings.get('Phases'), charging.coreState()?.phases, phaseSwitchModeOf(settings));
      return phases.switchable && phases.forced === null;
    },
    deps.updates !== undefined && deps.diagnostics !== undefined,
  );
  const queue = createQueueSender(ctx, outbox, ocpp16Queue(ctx, outbox, auth));
  const availability = await createAvailability(ctx);
  const status = createStatusNotifications(ctx, availability);
  const ocpp16Sink = ocpp16MeterValues(ctx, outbox, queue);
  const metering = createMetering(ctx, keys, () => station()?.meterValues ?? ocpp16Sink);
  // One applier of the charging profiles for both versions: only one sets the `ocpp` limit. Under 2.0.1 a TxProfile
  // names the 2.0.1 transaction, which may start before or end after the charge cycle's (TxStartPoint, TxStopPoint).
  let transaction201: (() => ScheduleTransaction | null | undefined) | undefined;
  const applier = createScheduleApplier(ctx, profiles, () => transaction201?.());
  // One reservation, one update and one upload at a time whichever version speaks (the version's messages differ).
  const reservations = enabled
    ? await createReservations(ctx, auth, availability, () => (versions.speaking() === 'ocpp2.0.1' ? ocpp201Question(ctx) : ocpp16Question(ctx)))
    : undefined;
  const transfers = {
    firmware: deps.updates ? createFirmwareUpdate(ctx, deps.updates) : undefined,
    upload: deps.diagnostics ? createDiagnosticsUpload(ctx, deps.diagnostics) : undefined,
  };
  /** The installer's connection, from the settings (OcppCaFile read at each attempt: a replaced file is used). */
  const installer = (): Endpoint => {
    const caFile = settings.get('OcppCaFile');
    return {
      url: settings.get('OcppUrl'),
      password: settings.get('OcppPassword') || undefined,
      ca: caFile ? [readFileSync(caFile, 'utf8')] : undefined,
      protocols: versions.offered,
    };
  };
  // The 2.0.1 adapter exists when OcppVersions offers 2.0.1; it speaks while the CSMS picked 2.0.1 (the last connection's).
  // Loaded only then: its modules (the device model, certificates and their ASN.1 library) hold about 2 MB of heap
  // that a controller speaking 1.6 or no OCPP would carry for nothing (docs/performance.md).
  const station201 = versions.offered.includes('ocpp2.0.1')
    ? await (
        await import('./ocpp201/station.js')
      ).createStation201(
        ctx,
        {
          ...{ outbox, auth, availability, storedKeys: keys, profiles, schedule: applier, reservations, transfers },
          dataDir: deps.dataDir,
          installer,
          speaking: () => versions.speaking() === 'ocpp2.0.1',
        },
        () => metering,
      )
    : undefined;
  timeSet = station201 && (() => station201.securityEvent('SettingSystemTime', "the CSMS's time set the controller's clock"));
  const station = () => (versions.speaking() === 'ocpp2.0.1' ? station201 : undefined);
  transaction201 = () => station()?.transaction();
  /** The offline queue's sender of the version spoken. */
  const activeQueue = () => station()?.queue ?? queue;
  const schedule = createChargingSchedule(ctx, profiles, outbox, applier);
  const authorization = createAuthorization(ctx, auth);
  const remote = createRemoteControl(ctx, schedule, queue, reservations);

  const hooks16 = outbox.hooks(
    () => enabled,
    () => keys.measurands('StopTxnSampledData'),
    async (tx) => reservations?.use(tx),
  );
  const hooks201 = station201?.hooks(
    () => enabled,
    async (tx) => reservations?.use(tx),
  );
  transactions.setHooks({
    // A transaction starts in the version spoken; its end is queued by the version that queued its start.
    started: (tx, record) => (station() && hooks201 ? hooks201 : hooks16).started(tx, record),
    stopped: async (tx, end) => {
      await hooks16.stopped(tx, end);
      await hooks201?.stopped(tx, end);
    },
    committed: () => (ctx.isAttached() && !ctx.closed() ? ctx.fire(activeQueue().pump()) : undefined),
  });
  // No transaction runs at start: TxProfiles left from one that ended with the power go.
  await profiles.clear({ chargingProfilePurpose: 'TxProfile' });

  const handleCall = incomingCallHandler(ctx, {
    ...configurationCalls(configuration, logger),
    ...authorization.calls,
    ...DATA_TRANSFER_CALLS,
    ...remote.calls,
    ...reservations?.calls,
    ...availability.calls,
    ...triggerCalls(ctx, {
      boot: () => boot(ctx),
      heartbeat: () => heartbeat(ctx),
      status: (connectorId) => status.send(true, connectorId),
      meterValues: metering.send,
    }),
    ...schedule.calls,
    ...(transfers.upload ? diagnosticsCalls(ctx, transfers.upload) : {}),
    ...(transfers.firmware ? firmwareCalls(ctx, transfers.firmware) : {}),
  });

  // With 2.0.1 offered, its network profiles choose each attempt's endpoint (slot 0 is the installer's).
  const connection = station201?.connection;
  const versionCalls = { 'ocpp1.6': handleCall, ...(station201 ? { 'ocpp2.0.1': station201.calls } : {}) };
  const transportOptions = {
    endpoint: connection?.endpoint ?? installer,
    identity: settings.get('OcppChargeBoxId'),
    clock,
    pingIntervalMs: () => ctx.setting('OcppWebSocketPingInterval') * 1000,
    logger,
    ...(deps.frame ? { frame: deps.frame } : {}),
  };
  const transport = createTransport(transportOptions, versionCalls, {
    opened: () => {
      connection?.opened();
      const protocol = transport.protocol() ?? 'ocpp1.6';
      ctx.track(versions.negotiated(protocol));
      charging.setOccupiedModel(protocol === 'ocpp2.0.1');
      const url = transport.url() ?? settings.get('OcppUrl');
      logger.info({ url }, 'OCPP: connected to the central system');
      deps.events?.backend('connected', { url });
      deps.connection?.connected();
      ctx.sendLink({ type: 'SOCKET.OPENED' });
    },
    failed: (reason, cause) => {
      connection?.failed(cause);
      logger.warn({ reason, url: settings.get('OcppUrl') }, 'OCPP: could not connect to the central system');
      deps.events?.backend('disconnected', { url: settings.get('OcppUrl'), reason: String(reason) });
      deps.connection?.failed(String(reason));
      ctx.sendLink({ type: 'SOCKET.FAILED' });
    },
    closed: (reason) => {
      connection?.closed();
      logger.warn({ reason }, 'OCPP: the connection to the central system closed');
      deps.events?.backend('disconnected', { reason: String(reason) });
      deps.connection?.failed(String(reason));
      ctx.sendLink({ type: 'SOCKET.CLOSED' });
    },
  });

  /** The core's state changed: a transaction started or ended, statuses to send. */
  let runningTx: string | undefined;
  function onCoreState(state: CoreState): void {
    if (ctx.closed()) return;
    const txId = state.transaction?.transactionId;
    if (txId !== runningTx) {
      const ended = runningTx;
      runningTx = txId;
      // Under 2.0.1 TxProfiles follow the 2.0.1 transaction (ocpp201/transaction-events.ts).
      if (!station()) schedule.transactionChanged(ended, txId);
      metering.armSampling();
      if (!txId) ctx.track(availability.applyScheduled());
    }
    const s201 = station();
    if (s201) s201.coreStateChanged(!txId);
    else ctx.fire(status.send());
  }

  /** The link actor's effects. */
  const linkActions = {
    openSocket: () => transport.open(),
    closeSocket: () => transport.close(),
    sendBootNotification: () => {
      const s201 = station();
      if (s201) s201.boot();
      else ctx.fire(boot(ctx));
    },
    sendHeartbeat: () => ctx.fire(heartbeat(ctx)),
    online: () => {
      const s201 = station();
      if (s201) return s201.online();
      status.forget();
      ctx.fire(status.send(true).then(() => queue.pump()));
    },
    offline: () => {
      queue.pause();
      station201?.queue.pause();
    },
  };

  return {
    enabled,
    linkActions,

    /** Starts with the main thread's actors: connects (OcppEnabled on) with a valid configuration. */
    attach(actor: BackendLinkActor): void {
      ctx.attach(actor);
      if (!enabled) return;
      const problem = configurationError({ url: settings.get('OcppUrl'), caFile: settings.get('OcppCaFile') || undefined });
      if (problem) {
        logger.error({ problem }, `OCPP is enabled but cannot connect: ${problem}`);
        return;
      }
      if (settings.get('OcppPassword') && settings.get('OcppUrl').startsWith('ws:')) {
        logger.warn({}, 'OCPP: OcppPassword is sent over ws:// without TLS, readable on the network: use wss:// (security profile 2)');
      }
      charging.setAuthorizer((idTag) => (station() ?? authorization).authorize(idTag));
      charging.setOccupiedModel(versions.speaking() === 'ocpp2.0.1');
      charging.watch(() => {
        const state = charging.coreState();
        if (state) onCoreState(state);
      });
      settings.onChange((changed) => {
        if (changed.has('OcppHeartbeatInterval')) ctx.sendLink({ type: 'HEARTBEAT.INTERVAL', seconds: ctx.setting('OcppHeartbeatInterval') });
        if (changed.has('OcppMeterValueSampleInterval')) metering.armSampling();
        if (changed.has('OcppClockAlignedDataInterval')) metering.armClockAligned();
        if (changed.has('MaxCurrent') || changed.has('Phases')) schedule.apply();
      });
      schedule.apply();
      metering.armClockAligned();
      ctx.track(availability.applyScheduled()); // a change scheduled before a restart: no transaction runs now
      actor.send({ type: 'START' });
    },

    /** Whether the link is online (BootNotification accepted). */
    online: ctx.isAccepted,
    /** The backend link actor's state value. */
    state: () => ctx.linkState()?.value,
    /** Messages waiting in the offline queue. */
    queued: () => outbox.size(),

    /** Resolves when the backend's local work has finished (tests, with the manual clock); calls may still be out. */
    settled: ctx.settled,

    async close(): Promise<void> {
      ctx.close();
      reservations?.close();
      ctx.sendLink({ type: 'STOP' });
      transport.close();
      await ctx.settled();
    },
  };
}

export type Backend = Awaited<ReturnType<typeof createBackend>>;
export type { ProfilePurpose };
