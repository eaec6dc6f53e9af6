import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ocppState } from '../../db/schema.js';
import type { BackendLinkActor } from '../../machines/main-thread.js';
import type { CommandedStopReason } from '../../machines/charge-cycle.js';
import type { ChargingService } from '../charging.js';
import type { Clock } from '../core/clock.js';
import type { CoreState } from '../core/protocol.js';
import type { EventLog } from '../events.js';
import type { Logger } from '../logger.js';
import type { Settings } from '../settings/index.js';
import type { Transactions } from '../transactions.js';
import { createAuthorizationStore, type IdTagInfo } from './authorization.js';
import { CENTRAL_SYSTEM, createConfiguration } from './configuration.js';
import { meterValueOf, type MeterValue, type SampleContext } from './meter-values.js';
import { createOutbox, type QueuedMessage } from './outbox.js';
import {
  compositeLimitA,
  compositeSchedule,
  createProfileStore,
  nextChange,
  profileProblem,
  type ChargingProfile,
  type ProfilePurpose,
  type ScheduleTransaction,
} from './smart-charging.js';
import { statusesOf } from './status.js';
import { CallError, configurationError, createTransport, type TransportOptions } from './transport.js';

export const CHARGE_POINT_VENDOR = 'ChargeController';
export const CHARGE_POINT_MODEL = 'AC-Type2';
/** A tag read waits at most this long for the central system's Authorize answer, then the offline rules apply. */
export const AUTHORIZE_TIMEOUT_MS = 10_000;
/** A Reset waits at most this long for the queue (the StopTransaction) to be sent before the controller restarts. */
export const RESET_DRAIN_MS = 10_000;
/** A clock difference to the central system above this is logged. */
export const CLOCK_TOLERANCE_MS = 2_000;

export interface BackendDeps {
  database: Database;
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
  /** The event log: backend connection changes. */
  events?: Pick<EventLog, 'backend'>;
  /** Sets the controller's wall clock to a time the central system gave (UTC ms). */
  setTime?: (ms: number) => void;
}

/**
 * The OCPP 1.6J charge point (services/ocpp/): on the main thread beside the API, never on the safety path. It
 * provides the backend link actor's effects (machines/backend-link.ts), answers the central system's calls, sends
 * status notifications and meter values from the core's state, decides tags the local whitelist does not know
 * (through services/charging.ts's tag path), queues transaction messages in the database (outbox.ts) and feeds the
 * charging schedule into the charge cycle's load limit. With OcppEnabled off it does nothing but keep the hooks
 * that let an earlier run's queued messages wait.
 */
export async function createBackend(deps: BackendDeps) {
  const { database, settings, charging, transactions, clock, now, logger } = deps;
  const enabled = settings.get('OcppEnabled') === 1;
  const setting = (key: string) => settings.get(key) as number;
  const on = (key: string) => settings.get(key) === 1;
  /** The central system's time minus ours (from BootNotification and Heartbeat). */
  const csmsTime = (ms: number) => new Date(ms).toISOString();

  const outbox = createOutbox(database, now);
  const auth = createAuthorizationStore(database, now);
  const profiles = await createProfileStore(database);
  const configuration = createConfiguration(settings);
  transactions.setHooks({ ...outbox.hooks(() => enabled), committed: () => (link && !closed ? fire(pump()) : undefined) });
  // No transaction runs at start: TxProfiles left from one that ended with the power go.
  await profiles.clear({ chargingProfilePurpose: 'TxProfile' });

  let link: BackendLinkActor | undefined;
  const linkState = () => link?.getSnapshot();
  const isAccepted = () => linkState()?.matches({ connected: 'accepted' }) ?? false;
  const timers = new Set<unknown>();
  const after = (ms: number, fn: () => void) => {
    const id = clock.setTimeout(() => {
      timers.delete(id);
      fn();
    }, ms);
    timers.add(id);
    return id;
  };
  const cancel = (id: unknown) => {
    clock.clearTimeout(id);
    timers.delete(id);
  };
  let closed = false;
  /** Local work (database writes, schedule changes) that `settled()` waits for; calls to the central system are not. */
  const work = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    const tracked = p.catch((err: unknown) => logger.error({ err }, 'OCPP: unexpected failure'));
    work.add(tracked);
    void tracked.finally(() => work.delete(tracked));
  };
  /** Work that waits for the network: runs on, failures logged. */
  const fire = (p: Promise<unknown>) => void p.catch((err: unknown) => logger.error({ err }, 'OCPP: unexpected failure'));

  const transportOptions = (): TransportOptions => ({
    url: String(settings.get('OcppUrl')),
    identity: String(settings.get('OcppChargeBoxId')),
    password: String(settings.get('OcppPassword')) || undefined,
    caFile: String(settings.get('OcppCaFile')) || undefined,
    clock,
    pingIntervalMs: () => setting('OcppWebSocketPingInterval') * 1000,
    logger,
    ...(deps.frame ? { frame: deps.frame } : {}),
  });
  const transport = createTransport(transportOptions(), (action, payload) => handleCall(action, payload), {
    opened: () => {
      logger.info({ url: String(settings.get('OcppUrl')) }, 'OCPP: connected to the central system');
      deps.events?.backend('connected', { url: String(settings.get('OcppUrl')) });
      link?.send({ type: 'SOCKET.OPENED' });
    },
    failed: (reason) => {
      logger.warn({ reason, url: String(settings.get('OcppUrl')) }, 'OCPP: could not connect to the central system');
      deps.events?.backend('disconnected', { url: String(settings.get('OcppUrl')), reason: String(reason) });
      link?.send({ type: 'SOCKET.FAILED' });
    },
    closed: (reason) => {
      logger.warn({ reason }, 'OCPP: the connection to the central system closed');
      deps.events?.backend('disconnected', { reason: String(reason) });
      link?.send({ type: 'SOCKET.CLOSED' });
    },
  });

  const call = (action: string, payload: Record<string, unknown>, timeoutMs?: number) =>
    transport.call(action, payload, timeoutMs === undefined ? {} : { timeoutMs });

  /**
   * The central system keeps the controller's clock (BootNotification and Heartbeat `currentTime`): a difference over
   * CLOCK_TOLERANCE_MS sets the controller's wall clock (stored and shown times, the core's included) to its time.
   */
  function keepTime(currentTime: unknown): void {
    if (typeof currentTime !== 'string') return;
    const central = Date.parse(currentTime);
    if (!Number.isFinite(central)) return;
    const driftMs = central - now();
    if (Math.abs(driftMs) <= CLOCK_TOLERANCE_MS) return;
    logger.warn({ driftMs }, 'OCPP: the controller\'s clock is set to the central system\'s');
    deps.setTime?.(central);
  }

  async function boot(): Promise<void> {
    try {
      const serial = String(settings.get('SerialNumber_custom')).slice(0, 25);
      const answer = await call('BootNotification', {
        chargePointVendor: CHARGE_POINT_VENDOR,
        chargePointModel: CHARGE_POINT_MODEL,
        ...(serial ? { chargePointSerialNumber: serial, chargeBoxSerialNumber: serial } : {}),
        firmwareVersion: String(settings.get('FirmwareVersion_custom')).slice(0, 50),
      });
      keepTime(answer.currentTime);
      const intervalS = Number(answer.interval) || 0;
      logger.info({ status: answer.status, intervalS }, 'OCPP: BootNotification answered');
      if (answer.status === 'Rejected') deps.events?.backend('refused', { reason: 'BootNotification rejected' });
      link?.send({ type: answer.status === 'Accepted' ? 'BOOT.ACCEPTED' : answer.status === 'Pending' ? 'BOOT.PENDING' : 'BOOT.REJECTED', intervalS });
    } catch (err) {
      logger.warn({ error: (err as Error).message }, 'OCPP: BootNotification failed');
      link?.send({ type: 'BOOT.FAILED' });
    }
  }

  async function heartbeat(): Promise<void> {
    try {
      keepTime((await call('Heartbeat', {})).currentTime);
    } catch (err) {
      logger.warn({ error: (err as Error).message }, 'OCPP: Heartbeat failed');
    }
  }

  // ---- status notifications -------------------------------------------------------------------------------------
  const lastSent = new Map<number, string>();
  let statusChain: Promise<void> = Promise.resolve();
  /** Sends the statuses that changed (`force`: both), one sender at a time so they arrive in the order they happened. */
  function sendStatus(force = false): Promise<void> {
    statusChain = statusChain.then(() => sendStatusNow(force));
    return statusChain;
  }
  async function sendStatusNow(force: boolean): Promise<void> {
    const state = charging.coreState();
    if (!state || !isAccepted()) return;
    for (const status of statusesOf(state)) {
      const key = JSON.stringify(status);
      if (!force && lastSent.get(status.connectorId) === key) continue;
      lastSent.set(status.connectorId, key);
      try {
        await call('StatusNotification', { ...status, timestamp: csmsTime(now()) });
      } catch (err) {
        lastSent.delete(status.connectorId);
        logger.warn({ error: (err as Error).message }, 'OCPP: StatusNotification failed');
      }
    }
  }

  // ---- the queue ------------------------------------------------------------------------------------------------
  let pumping: Promise<void> | undefined;
  let pumpTimer: unknown;
  let pumpAgain = false;
  /** Sends the queued messages in order while accepted (one pump at a time; a new message asks for another round). */
  function pump(): Promise<void> {
    if (pumping) {
      pumpAgain = true;
      return pumping;
    }
    pumping = (async () => {
      do {
        pumpAgain = false;
        await pumpOnce();
      } while (pumpAgain && isAccepted());
    })().finally(() => (pumping = undefined));
    return pumping;
  }

  async function pumpOnce(): Promise<void> {
    while (isAccepted() && !closed) {
      const message = await outbox.head();
      if (!message) return;
      if (message.notBefore > now()) {
        cancel(pumpTimer);
        pumpTimer = after(message.notBefore - now(), () => void pump());
        return;
      }
      const payload = JSON.parse(message.payload) as Record<string, unknown>;
      if (message.action !== 'StartTransaction') {
        const id = await outbox.backendIdOf(message.transactionId);
        if (id === undefined) {
          logger.error({ action: message.action, transactionId: message.transactionId }, 'OCPP: dropped a queued message: its transaction never got an id from the central system');
          await outbox.drop(message);
          continue;
        }
        payload.transactionId = Number(id);
      }
      let answer: Record<string, unknown>;
      try {
        answer = await call(message.action, payload);
      } catch (err) {
        if (!isAccepted()) return; // offline: the message waits for the next connection
        await refused(message, (err as Error).message);
        continue;
      }
      await answeredMessage(message, answer);
    }
  }

  async function refused(message: QueuedMessage, error: string): Promise<void> {
    const attempts = message.attempts + 1;
    if (attempts >= setting('OcppTransactionMessageAttempts')) {
      logger.error({ action: message.action, attempts, error }, 'OCPP: gave up a transaction message the central system refused');
      await outbox.drop(message);
      return;
    }
    const waitMs = setting('OcppTransactionMessageRetryInterval') * 1000 * attempts;
    logger.warn({ action: message.action, attempts, error, retryInS: waitMs / 1000 }, 'OCPP: the central system refused a transaction message; it is sent again');
    await outbox.refused(message, now() + waitMs);
  }

  async function answeredMessage(message: QueuedMessage, answer: Record<string, unknown>): Promise<void> {
    if (message.action !== 'StartTransaction') return outbox.answered(message);
    const backendId = String(answer.transactionId);
    await outbox.answered(message, backendId);
    charging.setBackendTransactionId(message.transactionId, backendId);
    const info = answer.idTagInfo as IdTagInfo;
    const idTag = String((JSON.parse(message.payload) as { idTag: string }).idTag);
    if (on('OcppAuthorizationCacheEnabled')) await auth.remember(idTag, info);
    const running = charging.coreState()?.transaction?.transactionId === message.transactionId;
    if (info.status !== 'Accepted' && running && on('OcppStopTransactionOnInvalidId')) {
      logger.warn({ status: info.status }, 'OCPP: the central system did not accept the transaction\'s tag: stopping it');
      charging.stopTransaction('DeAuthorized');
    }
  }

  // ---- meter values ---------------------------------------------------------------------------------------------
  const sample = (context: SampleContext): MeterValue | undefined => {
    const state = charging.coreState();
    return state ? meterValueOf(state, context, csmsTime(now())) : undefined;
  };

  /** Meter values: queued with the running transaction, else sent while online (not kept offline). */
  async function sendMeterValues(context: SampleContext): Promise<void> {
    const value = sample(context);
    if (!value) return;
    const tx = charging.coreState()?.transaction;
    if (tx) {
      await outbox.meterValues(tx.transactionId, [value]);
      fire(pump());
    } else if (isAccepted()) {
      fire(
        call('MeterValues', { connectorId: context === 'Sample.Clock' ? 0 : 1, meterValue: [value] }).catch((err: Error) =>
          logger.warn({ error: err.message }, 'OCPP: MeterValues failed'),
        ),
      );
    }
  }

  let sampleTimer: unknown;
  function armSampling(): void {
    cancel(sampleTimer);
    const ms = setting('OcppMeterValueSampleInterval') * 1000;
    if (ms <= 0 || closed || !charging.coreState()?.transaction) return;
    sampleTimer = after(ms, () => {
      track(sendMeterValues('Sample.Periodic'));
      armSampling();
    });
  }

  let alignedTimer: unknown;
  function armClockAligned(): void {
    cancel(alignedTimer);
    const interval = setting('OcppClockAlignedDataInterval') * 1000;
    if (interval <= 0 || closed) return;
    const at = now();
    const next = (Math.floor(at / interval) + 1) * interval;
    alignedTimer = after(next - at, () => {
      track(sendMeterValues('Sample.Clock'));
      armClockAligned();
    });
  }

  // ---- smart charging -------------------------------------------------------------------------------------------
  let profileTimer: unknown;
  let appliedLimit: number | null | undefined;
  const phases = () => (setting('Phases') === 1 ? 1 : 3);
  const scheduleTransaction = (): ScheduleTransaction | null => {
    const tx = charging.coreState()?.transaction;
    return tx ? { id: tx.transactionId, startedAt: tx.startedAt } : null;
  };
  /** The composite schedule's limit now, into the charge cycle's load limit (so the PWM follows it). */
  function applyProfiles(): void {
    cancel(profileTimer);
    if (closed) return;
    const at = now();
    const tx = scheduleTransaction();
    const amps = compositeLimitA(profiles.all(), at, tx, phases());
    const limit = amps === undefined ? null : Math.max(0, Math.min(80, Math.round(amps * 10) / 10));
    if (limit !== appliedLimit) {
      appliedLimit = limit;
      logger.info({ limitA: limit }, 'OCPP: charging schedule limit');
      charging.setLoadLimit(limit, 'ocpp');
    }
    const next = nextChange(profiles.all(), at, tx);
    if (next !== undefined) profileTimer = after(Math.min(next - at, 86_400_000), applyProfiles);
  }

  // ---- the core's state -----------------------------------------------------------------------------------------
  let runningTx: string | undefined;
  let pendingRemoteProfile: ChargingProfile | undefined;
  function onCoreState(state: CoreState): void {
    if (closed) return;
    const txId = state.transaction?.transactionId;
    if (txId !== runningTx) {
      const ended = runningTx;
      runningTx = txId;
      if (ended) track(profiles.transactionEnded(ended).then(applyProfiles));
      if (txId && pendingRemoteProfile) {
        const profile = pendingRemoteProfile;
        pendingRemoteProfile = undefined;
        track(profiles.set({ connectorId: 1, profile, transactionId: txId }).then(applyProfiles));
      } else applyProfiles();
      armSampling();
      if (!txId) track(applyScheduledAvailability());
    }
    fire(sendStatus());
  }

  // ---- availability ---------------------------------------------------------------------------------------------
  async function scheduledAvailability(): Promise<number | undefined> {
    const [row] = await database.db.select().from(ocppState).where(eq(ocppState.key, 'availability'));
    return row ? Number(row.value) : undefined;
  }
  async function scheduleAvailability(value: number | undefined): Promise<void> {
    await database.write(async (tx) => {
      await tx.delete(ocppState).where(eq(ocppState.key, 'availability'));
      if (value !== undefined) await tx.insert(ocppState).values({ key: 'availability', value: String(value) });
    });
  }
  async function setAvailability(value: number): Promise<void> {
    if (setting('ChargingEnabled') !== value) await settings.set(CENTRAL_SYSTEM, [{ key: 'ChargingEnabled', value }]);
  }
  async function applyScheduledAvailability(): Promise<void> {
    const value = await scheduledAvailability();
    if (value === undefined || charging.coreState()?.transaction) return;
    await scheduleAvailability(undefined);
    logger.info({ chargingEnabled: value }, 'OCPP: the scheduled availability change takes effect');
    await setAvailability(value);
  }

  // ---- authorization (tags the local whitelist does not know) ---------------------------------------------------
  async function authorize(idTag: string): Promise<boolean> {
    if (idTag.length > 20) return false; // not an OCPP idTag
    const local = (on('OCPPWLEnabled') && (await auth.inLocalList(idTag))) || (on('OcppAuthorizationCacheEnabled') && (await auth.inCache(idTag)));
    if (isAccepted()) {
      if (local && on('OcppLocalPreAuthorize')) return true;
      try {
        const answer = await call('Authorize', { idTag }, AUTHORIZE_TIMEOUT_MS);
        const info = answer.idTagInfo as IdTagInfo;
        if (on('OcppAuthorizationCacheEnabled')) await auth.remember(idTag, info);
        return info.status === 'Accepted';
      } catch (err) {
        logger.warn({ error: (err as Error).message }, 'OCPP: Authorize got no answer: the offline rules decide');
      }
    }
    if (local) return on('OcppLocalAuthorizeOffline');
    return on('OcppAllowOfflineTxForUnknownId');
  }

  // ---- the central system's calls -------------------------------------------------------------------------------
  const later = (fn: () => Promise<unknown> | void) => setImmediate(() => fire(Promise.resolve().then(fn)));
  const activeBackendId = async (): Promise<string | undefined> => {
    const tx = charging.coreState()?.transaction;
    return tx ? outbox.backendIdOf(tx.transactionId) : undefined;
  };

  async function handleCall(action: string, p: Record<string, any>): Promise<Record<string, unknown>> {
    const state = linkState();
    if (!state?.matches({ connected: 'accepted' }) && !state?.matches({ connected: 'pending' })) {
      throw new CallError('SecurityError', 'the charge point is not accepted by the central system');
    }
    // OCPP 1.6 4.2: while pending, the central system may configure the charge point but not start or stop charging.
    if (state.matches({ connected: 'pending' }) && (action === 'RemoteStartTransaction' || action === 'RemoteStopTransaction')) {
      return { status: 'Rejected' };
    }
    switch (action) {
      case 'GetConfiguration':
        return configuration.get(p.key);
      case 'ChangeConfiguration': {
        const status = await configuration.change(p.key, p.value);
        logger.info({ key: p.key, status }, 'OCPP: ChangeConfiguration');
        return { status };
      }
      case 'ClearCache':
        await auth.clearCache();
        return { status: 'Accepted' };
      case 'DataTransfer':
        return { status: 'UnknownVendorId' };
      case 'GetLocalListVersion':
        return { listVersion: on('OCPPWLEnabled') ? await auth.listVersion() : -1 };
      case 'SendLocalList':
        return { status: await auth.sendLocalList(p as never) };
      case 'RemoteStartTransaction':
        return { status: remoteStart(p.idTag, p.connectorId, p.chargingProfile) };
      case 'RemoteStopTransaction': {
        const ok = (await activeBackendId()) === String(p.transactionId);
        if (ok) charging.stopTransaction('Remote');
        return { status: ok ? 'Accepted' : 'Rejected' };
      }
      case 'Reset':
        return { status: reset(p.type === 'Hard' ? 'HardReset' : 'SoftReset') };
      case 'UnlockConnector':
        if (p.connectorId !== 1) return { status: 'NotSupported' };
        if (charging.coreState()?.transaction) charging.stopTransaction('UnlockCommand');
        return { status: 'Unlocked' };
      case 'ChangeAvailability':
        return { status: await changeAvailability(p.connectorId, p.type === 'Operative' ? 1 : 0) };
      case 'TriggerMessage':
        return { status: trigger(p.requestedMessage, p.connectorId) };
      case 'SetChargingProfile':
        return { status: await setProfile(p.connectorId, p.csChargingProfiles) };
      case 'ClearChargingProfile': {
        const removed = await profiles.clear({ id: p.id, connectorId: p.connectorId, chargingProfilePurpose: p.chargingProfilePurpose, stackLevel: p.stackLevel });
        applyProfiles();
        return { status: removed ? 'Accepted' : 'Unknown' };
      }
      case 'GetCompositeSchedule': {
        if (p.connectorId !== 0 && p.connectorId !== 1) return { status: 'Rejected' };
        const start = now();
        const schedule = compositeSchedule(profiles.all(), start, p.duration, p.chargingRateUnit ?? 'A', scheduleTransaction(), phases(), setting('MaxCurrent'));
        return { status: 'Accepted', connectorId: p.connectorId, scheduleStart: csmsTime(start), chargingSchedule: { ...schedule, startSchedule: csmsTime(start) } };
      }
      default:
        throw new CallError('NotImplemented', `${action} is not supported by this charge point`);
    }
  }

  function remoteStart(idTag: string, connectorId: number | undefined, profile: ChargingProfile | undefined): string {
    const state = charging.coreState();
    if (!state || (connectorId !== undefined && connectorId !== 1) || state.transaction) return 'Rejected';
    const { ocppState: ocpp, authState } = state.system;
    if (!['available', 'preparing', 'finishing'].includes(ocpp) || authState === 'authorized_for_charging') return 'Rejected';
    if (profile && (profile.chargingProfilePurpose !== 'TxProfile' || profileProblem(1, profile, true))) return 'Rejected';
    pendingRemoteProfile = profile;
    logger.info({}, 'OCPP: remote start');
    charging.authorizeRemotely(idTag);
    return 'Accepted';
  }

  function reset(reason: Extract<CommandedStopReason, 'HardReset' | 'SoftReset'>): string {
    if (!deps.restart) {
      logger.warn({}, 'OCPP: Reset refused: this controller cannot restart itself here');
      return 'Rejected';
    }
    const restart = deps.restart;
    logger.info({ reason }, 'OCPP: reset: the transaction stops, the controller restarts');
    later(async () => {
      if (charging.coreState()?.transaction) charging.stopTransaction(reason);
      await charging.settled();
      await drain(RESET_DRAIN_MS);
      restart();
    });
    return 'Accepted';
  }

  /** Waits until the queue is sent (or `ms` passed on the actor clock). */
  async function drain(ms: number): Promise<void> {
    let timedOut = false;
    const timer = after(ms, () => (timedOut = true));
    while (!timedOut && isAccepted() && (await outbox.size()) > 0) {
      await pump();
      if ((await outbox.size()) > 0) await new Promise((r) => setTimeout(r, 50));
    }
    cancel(timer);
  }

  async function changeAvailability(connectorId: number, value: number): Promise<string> {
    if (connectorId !== 0 && connectorId !== 1) return 'Rejected';
    if (value === 0 && charging.coreState()?.transaction) {
      await scheduleAvailability(0);
      logger.info({}, 'OCPP: ChangeAvailability Inoperative scheduled for the end of the transaction');
      return 'Scheduled';
    }
    await scheduleAvailability(undefined);
    await setAvailability(value);
    return 'Accepted';
  }

  function trigger(message: string, connectorId: number | undefined): string {
    if (connectorId !== undefined && connectorId !== 0 && connectorId !== 1) return 'Rejected';
    switch (message) {
      case 'BootNotification':
        later(() => (linkState()?.matches({ connected: 'pending' }) ? link?.send({ type: 'BOOT.TRIGGERED' }) : boot()));
        return 'Accepted';
      case 'Heartbeat':
        later(heartbeat);
        return 'Accepted';
      case 'StatusNotification':
        later(() => sendStatus(true));
        return 'Accepted';
      case 'MeterValues':
        later(() => sendMeterValues('Trigger'));
        return 'Accepted';
      default:
        return 'NotImplemented';
    }
  }

  async function setProfile(connectorId: number, profile: ChargingProfile): Promise<string> {
    const tx = charging.coreState()?.transaction;
    const problem = profileProblem(connectorId, profile, tx !== undefined && tx !== null);
    if (problem) {
      logger.warn({ problem }, 'OCPP: SetChargingProfile rejected');
      return 'Rejected';
    }
    let transactionId: string | undefined;
    if (profile.chargingProfilePurpose === 'TxProfile') {
      if (profile.transactionId !== undefined && String(profile.transactionId) !== (await activeBackendId())) return 'Rejected';
      transactionId = tx!.transactionId;
    }
    if (!(await profiles.set({ connectorId, profile, ...(transactionId ? { transactionId } : {}) }))) return 'Rejected';
    applyProfiles();
    return 'Accepted';
  }

  // ---- the link actor's effects ---------------------------------------------------------------------------------
  const linkActions = {
    openSocket: () => transport.open(),
    closeSocket: () => transport.close(),
    sendBootNotification: () => fire(boot()),
    sendHeartbeat: () => fire(heartbeat()),
    online: () => {
      lastSent.clear();
      fire(sendStatus(true).then(() => pump()));
    },
    offline: () => {
      cancel(pumpTimer);
    },
  };

  return {
    enabled,
    linkActions,

    /** Starts with the main thread's actors: connects (OcppEnabled on) with a valid configuration. */
    attach(actor: BackendLinkActor): void {
      link = actor;
      if (!enabled) return;
      const problem = configurationError(transportOptions());
      if (problem) {
        logger.error({ problem }, `OCPP is enabled but cannot connect: ${problem}`);
        return;
      }
      if (settings.get('OcppPassword') && String(settings.get('OcppUrl')).startsWith('ws:')) {
        logger.warn({}, 'OCPP: OcppPassword is sent over ws:// without TLS, readable on the network: use wss:// (security profile 2)');
      }
      charging.setAuthorizer(authorize);
      charging.watch(() => {
        const state = charging.coreState();
        if (state) onCoreState(state);
      });
      settings.onChange((changed) => {
        if (changed.has('OcppHeartbeatInterval')) link?.send({ type: 'HEARTBEAT.INTERVAL', seconds: setting('OcppHeartbeatInterval') });
        if (changed.has('OcppMeterValueSampleInterval')) armSampling();
        if (changed.has('OcppClockAlignedDataInterval')) armClockAligned();
        if (changed.has('MaxCurrent') || changed.has('Phases')) applyProfiles();
      });
      applyProfiles();
      armClockAligned();
      track(applyScheduledAvailability()); // a change scheduled before a restart: no transaction runs now
      link.send({ type: 'START' });
    },

    /** Whether the link is online (BootNotification accepted). */
    online: isAccepted,
    /** The backend link actor's state value. */
    state: () => linkState()?.value,
    /** Messages waiting in the offline queue. */
    queued: () => outbox.size(),

    /** Resolves when the backend's local work has finished (tests, with the manual clock); calls may still be out. */
    async settled(): Promise<void> {
      while (work.size > 0) await Promise.allSettled([...work]);
    },

    async close(): Promise<void> {
      closed = true;
      link?.send({ type: 'STOP' });
      for (const t of [...timers]) cancel(t);
      transport.close();
      await Promise.allSettled([...work]);
    },
  };
}

export type Backend = Awaited<ReturnType<typeof createBackend>>;
export type { ProfilePurpose };
