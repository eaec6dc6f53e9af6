import type { OcppContext } from './context.js';
import { meterValueOf, type MeterValue, type SampleContext } from './meter-values.js';
import type { Outbox } from './outbox.js';
import type { QueueSender } from './queue.js';
import type { StoredKeys } from './stored-keys.js';

/** Where sampled values go: the version spoken decides the messages (1.6 below, 2.0.1 in ocpp201/). */
export interface MeterValueSink {
  /** A running transaction's value (queued with it). */
  transaction(transactionId: string, value: MeterValue, context: SampleContext): Promise<void>;
  /** A value outside a transaction (sent while online, not kept offline). */
  idle(value: MeterValue, context: SampleContext): void;
}

/** OCPP 1.6: MeterValues, queued with the transaction (outbox.ts) or sent on connector 0/1. */
export function ocpp16MeterValues(ctx: OcppContext, outbox: Outbox, queue: QueueSender): MeterValueSink {
  return {
    async transaction(transactionId, value) {
      await outbox.meterValues(transactionId, [value]);
      ctx.fire(queue.pump());
    },
    idle(value, context) {
      if (!ctx.isAccepted()) return;
      ctx.fire(
        ctx
          .call('MeterValues', { connectorId: context === 'Sample.Clock' ? 0 : 1, meterValue: [value] })
          .catch((err: Error) => ctx.logger.warn({ error: err.message }, 'OCPP: MeterValues failed')),
      );
    },
  };
}

/**
 * Meter values: sampled every MeterValueSampleInterval during a transaction, aligned to ClockAlignedDataInterval,
 * and on TriggerMessage, of the measurands MeterValuesSampledData (MeterValuesAlignedData for clock-aligned ones)
 * lists. A transaction's values are queued with it; others are sent while online (not kept offline).
 */
export function createMetering(ctx: OcppContext, keys: StoredKeys, sink: () => MeterValueSink) {
  const { charging } = ctx;

  const sample = (context: SampleContext): MeterValue | undefined => {
    const state = charging.coreState();
    if (!state) return undefined;
    const measurands = keys.measurands(context === 'Sample.Clock' ? 'MeterValuesAlignedData' : 'MeterValuesSampledData');
    return meterValueOf(state, context, ctx.csmsTime(ctx.now()), measurands, ctx.setting('Phases') === 1 ? 1 : 3);
  };

  async function send(context: SampleContext): Promise<void> {
    const value = sample(context);
    if (!value) return;
    const tx = charging.coreState()?.transaction;
    if (tx) await sink().transaction(tx.transactionId, value, context);
    else sink().idle(value, context);
  }

  let sampleTimer: unknown;
  /** (Re)arms the sampling of the running transaction (none without one). */
  function armSampling(): void {
    ctx.cancel(sampleTimer);
    // 2.0.1's SampledDataCtrlr.TxUpdatedInterval is the same setting (the device model maps it).
    const ms = ctx.setting('OcppMeterValueSampleInterval') * 1000;
    if (ms <= 0 || ctx.closed() || !charging.coreState()?.transaction) return;
    sampleTimer = ctx.after(ms, () => {
      ctx.track(send('Sample.Periodic'));
      armSampling();
    });
  }

  let alignedTimer: unknown;
  /** (Re)arms the clock-aligned values: at every multiple of the interval after midnight UTC. */
  function armClockAligned(): void {
    ctx.cancel(alignedTimer);
    const interval = ctx.setting('OcppClockAlignedDataInterval') * 1000;
    if (interval <= 0 || ctx.closed()) return;
    const at = ctx.now();
    const next = (Math.floor(at / interval) + 1) * interval;
    alignedTimer = ctx.after(next - at, () => {
      ctx.track(send('Sample.Clock'));
      armClockAligned();
    });
  }

  return { send, armSampling, armClockAligned };
}

export type Metering = ReturnType<typeof createMetering>;
