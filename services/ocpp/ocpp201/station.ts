import type { AuthorizationStore } from '../authorization.js';
import { createAuthorization } from '../authorize.js';
import type { Availability } from '../availability.js';
import { boot } from '../boot.js';
import type { OcppContext } from '../context.js';
import { heartbeat } from '../heartbeat.js';
import { incomingCallHandler } from '../incoming-calls.js';
import type { Outbox } from '../outbox.js';
import { createQueueSender } from '../queue.js';
import type { SampleContext } from '../meter-values.js';
import { ocpp201Question } from './authorize.js';
import { createBootReason } from './boot.js';
import type { DeviceModelReader } from './calls.js';
import { localListCalls201 } from './local-list.js';
import { createRemoteControl201 } from './remote-control.js';
import { createStatusNotifications201 } from './status-notification.js';
import { createTransactionEvents } from './transaction-events.js';
import { ocpp201Queue } from './transaction-queue.js';
import { triggerCalls201 } from './trigger.js';

/** What a 2.0.1 CSMS may not do while the station's boot is Pending (B02.FR.05: no transactions started or stopped). */
const NOT_WHILE_PENDING: ReadonlySet<string> = new Set(['RequestStartTransaction', 'RequestStopTransaction']);

/**
 * The OCPP 2.0.1 charging station: the protocol adapter beside the 1.6 charge point (backend.ts speaks through one
 * or the other, as the CSMS picked), over the shared transport, offline queue, authorization store, availability,
 * central time and link actor. One EVSE (id 1) with one connector (id 1).
 */
export function createStation201(
  ctx: OcppContext,
  shared: { outbox: Outbox; auth: AuthorizationStore; availability: Availability; deviceModel?: DeviceModelReader | undefined },
  metering: () => { send(context: SampleContext): Promise<void> },
) {
  const { outbox, auth, availability } = shared;
  const queue = createQueueSender(ctx, outbox, ocpp201Queue(ctx, outbox, auth));
  const events = createTransactionEvents(ctx, outbox, () => ctx.fire(queue.pump()), shared.deviceModel);
  const status = createStatusNotifications201(ctx, availability);
  const boots = createBootReason(ctx);
  const authorization = createAuthorization(ctx, auth, ocpp201Question(ctx));
  const remote = createRemoteControl201(ctx, { queue, availability, events, boots });
  const sendBoot = async () => {
    const payload = await boots.payload();
    await boot(ctx, () => payload);
  };

  const calls = incomingCallHandler(
    ctx,
    {
      ...localListCalls201(ctx, auth),
      ...remote.calls,
      ...triggerCalls201(ctx, {
        boot: sendBoot,
        bootTriggered: boots.trigger,
        heartbeat: () => heartbeat(ctx),
        status: () => status.send(true),
        meterValues: (context) => metering().send(context),
        transactionEvent: events.trigger,
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
    /** Accepted: every status again, then the queue. */
    online(): void {
      status.forget();
      ctx.fire(status.send(true).then(() => queue.pump()));
    },
    /** The core's state changed (`idle`: no transaction runs any more). */
    coreStateChanged(idle: boolean): void {
      events.coreStateChanged();
      if (idle) remote.idle();
      ctx.fire(status.send());
    },
  };
}

export type Station201 = ReturnType<typeof createStation201>;
