import type { AuthorizationStore } from '../authorization.js';
import { createAuthorization } from '../authorize.js';
import type { Availability } from '../availability.js';
import { boot } from '../boot.js';
import type { ScheduleApplier } from '../charging-schedule.js';
import type { OcppContext } from '../context.js';
import { heartbeat } from '../heartbeat.js';
import { incomingCallHandler } from '../incoming-calls.js';
import type { Outbox } from '../outbox.js';
import { createQueueSender } from '../queue.js';
import type { SampleContext } from '../meter-values.js';
import type { Reservations } from '../reservation.js';
import type { ProfileStore } from '../smart-charging.js';
import type { StoredKeys } from '../stored-keys.js';
import type { Endpoint } from '../transport.js';
import { ocpp201Question } from './authorize.js';
import { createBootReason } from './boot.js';
import type { IncomingCalls201 } from './calls.js';
import { createDeviceModel } from './device-model.js';
import { transferCalls201, type Transfers } from './firmware-logs.js';
import type { AvailabilityState } from './device-model-variables.js';
import { localListCalls201 } from './local-list.js';
import { createSmartCharging201 } from './smart-charging.js';
import { createRemoteControl201 } from './remote-control.js';
import { reservationCalls201 } from './reservation.js';
import { createSecurity201 } from './security.js';
import { connectorStatus201, createStatusNotifications201 } from './status-notification.js';
import { createTransactionEvents } from './transaction-events.js';
import { pointsOf } from './transaction-points.js';
import { ocpp201Queue } from './transaction-queue.js';
import { transactionStatusCalls201 } from './transaction-status.js';
import { triggerCalls201 } from './trigger.js';

type SetVariableResult = { component: { name: string }; variable: { name: string }; attributeStatus: string };

/** What a 2.0.1 CSMS may not do while the station's boot is Pending (B02.FR.05: no transactions started or stopped). */
const NOT_WHILE_PENDING: ReadonlySet<string> = new Set(['RequestStartTransaction', 'RequestStopTransaction']);

/**
 * The OCPP 2.0.1 charging station: the protocol adapter beside the 1.6 charge point (backend.ts speaks through one
 * or the other, as the CSMS picked), over the shared transport, offline queue, authorization store, availability,
 * central time, link actor, 1.6 stored keys and the charging profiles with their one schedule applier (so only one
 * of the two versions sets the `ocpp` limit). One EVSE (id 1) with one connector (id 1).
 */
export async function createStation201(
  ctx: OcppContext,
  shared: {
    outbox: Outbox;
    auth: AuthorizationStore;
    availability: Availability;
    storedKeys: StoredKeys;
    profiles: ProfileStore;
    schedule: ScheduleApplier;
    reservations?: Reservations | undefined;
    transfers: Transfers;
    /** The data directory: the certificate store and the security event queue. */
    dataDir: string;
    /** The installer's connection from the settings (network profile slot 0). */
    installer(): Endpoint;
    /** Whether the open connection speaks 2.0.1. */
    speaking(): boolean;
  },
  metering: () => { send(context: SampleContext): Promise<void> },
) {
  const { outbox, auth, availability, charging } = { ...shared, charging: ctx.charging };
  await auth.countEntries();
  const deviceModel = await createDeviceModel({
    settings: ctx.settings,
    storedKeys: shared.storedKeys,
    database: ctx.database,
    station: {
      availability: () => (connectorStatus201(ctx, availability) ?? 'Available') as AvailabilityState,
      power: () => charging.coreState()?.meter?.powerW ?? 0,
      problem: () => (charging.coreState()?.chargeCycle.context.faults.length ?? 0) > 0,
      localListEntries: auth.entries,
      chargingProfiles: () => shared.profiles.all().length,
      securityProfile: () => security.securityProfile(),
      activeNetworkProfile: () => security.activeSlot(),
      certificateEntries: () => security.certificateEntries(),
    },
    call: (action, payload) => ctx.call(action, payload),
    later: ctx.later,
    now: ctx.now,
    logger: ctx.logger,
  });
  const variable = (component: string, name: string) => deviceModel.value(component, name) ?? '';
  const security = await createSecurity201(ctx, {
    dataDir: shared.dataDir,
    installer: shared.installer,
    online: () => shared.speaking() && ctx.isAccepted(),
    variables: {
      organization: () => variable('SecurityCtrlr', 'OrganizationName'),
      priority: () => variable('OCPPCommCtrlr', 'NetworkConfigurationPriority'),
      attempts: () => Number(variable('OCPPCommCtrlr', 'NetworkProfileConnectionAttempts')),
      certSigningWaitMinimumS: () => Number(variable('SecurityCtrlr', 'CertSigningWaitMinimum')),
      certSigningRepeatTimes: () => Number(variable('SecurityCtrlr', 'CertSigningRepeatTimes')),
    },
  });
  const smart = createSmartCharging201({
    profiles: shared.profiles,
    schedule: shared.schedule,
    call: (action, payload) => ctx.call(action, payload as unknown as Record<string, unknown>),
    later: ctx.later,
    now: ctx.now,
    logger: ctx.logger,
  });
  // The queue maps an answered event's transaction to the charge cycle's (events, created next).
  const queue = createQueueSender(
    ctx,
    outbox,
    ocpp201Queue(ctx, outbox, auth, (id) => events.coreOf(id)),
  );
  const events = createTransactionEvents(ctx, outbox, () => ctx.fire(queue.pump()), {
    points: () => ({
      start: pointsOf(deviceModel.value('TxCtrlr', 'TxStartPoint')),
      stop: pointsOf(deviceModel.value('TxCtrlr', 'TxStopPoint')),
    }),
    changed: (ended, started) => {
      ctx.track(smart.transactionChanged(ended, started));
      // A 2.0.1 transaction may end after the charge cycle's (at the unplug): a Reset OnIdle waits for it.
      if (ended && !started) remote.idle();
    },
  });
  const status = createStatusNotifications201(ctx, availability);
  const boots = createBootReason(ctx);
  const authorization = createAuthorization(ctx, auth, ocpp201Question(ctx));
  const remote = createRemoteControl201(ctx, { queue, availability, events, boots, smart, reservations: shared.reservations, security });
  // A 2.0.1 transaction a power loss left open without the charge cycle's ends now (before closeInterrupted).
  await events.recover();
  const sendBoot = async () => {
    const payload = await boots.payload();
    await boot(ctx, () => payload);
  };

  const transfers = transferCalls201(ctx, shared.transfers, {
    signer: security.firmwareSigner,
    securityEvent: security.record,
    securityLog: security.securityLog,
  });
  const calls = incomingCallHandler(
    ctx,
    {
      ...localListCalls201(ctx, auth),
      ...(security.calls as unknown as IncomingCalls201),
      ...(deviceModel.calls as unknown as IncomingCalls201),
      SetVariables: async (p) => {
        const answer = (await deviceModel.calls.SetVariables(p)) as { setVariableResult: SetVariableResult[] };
        // A01/A04: a new basic-auth password is a change of the security parameters (the password itself never told).
        const changed = answer.setVariableResult.some(
          (r) => r.component.name === 'SecurityCtrlr' && r.variable.name === 'BasicAuthPassword' && ['Accepted', 'RebootRequired'].includes(r.attributeStatus),
        );
        if (changed) security.record('ReconfigurationOfSecurityParameters', 'BasicAuthPassword changed');
        return answer;
      },
      ...(smart.calls as unknown as IncomingCalls201),
      ...remote.calls,
      ...transactionStatusCalls201(outbox, (id) => events.transaction()?.id === id),
      ...(shared.reservations ? reservationCalls201(ctx, shared.reservations) : {}),
      ...transfers.calls,
      ...triggerCalls201(ctx, {
        boot: sendBoot,
        bootTriggered: boots.trigger,
        heartbeat: () => heartbeat(ctx),
        status: () => status.send(true),
        meterValues: (context) => metering().send(context),
        transactionEvent: events.trigger,
        signCertificate: security.signCertificate,
        firmwareStatus: transfers.firmwareStatus,
        logStatus: transfers.logStatus,
      }),
    },
    NOT_WHILE_PENDING,
  );

  return {
    calls,
    queue,
    hooks: events.hooks,
    meterValues: events.meterValues,
    authorize: authorization.authorize,
    boot: () => ctx.fire(sendBoot()),
    /** Accepted: every status again, then the queue; the security events. */
    online(): void {
      status.forget();
      ctx.fire(status.send(true).then(() => queue.pump()));
      security.online();
    },
    /** The open 2.0.1 transaction (TxProfiles name it; its start and end move them: `changed` above). */
    transaction: events.transaction,
    /** Records a security event (A04): sent once a 2.0.1 CSMS accepted the boot. */
    securityEvent: security.record,
    /** The network profiles and security events of the connection attempts (both versions connect through them). */
    connection: { endpoint: security.endpoint, opened: security.opened, failed: security.failed, closed: security.closed },
    /** The core's state changed (`idle`: no transaction runs any more). */
    coreStateChanged(idle: boolean): void {
      events.coreStateChanged();
      if (idle) remote.idle();
      ctx.fire(status.send());
    },
  };
}

export type Station201 = ReturnType<typeof createStation201>;
