import { currentForDuty } from '../../drivers/control-pilot/pwm.js';
import { pilotFault, stateMeta } from '../../machines/charge-cycle.js';
import type { ChargeCycleActor } from '../../machines/core.js';
import type { HmiState } from './hmi.js';
import type { Message } from './system-state.js';
import { MESSAGES, type MessageCause } from './messages.js';
import type { Metering } from './metering.js';
import type { Outputs } from './outputs.js';
import type { PhaseState } from './phase-switching.js';
import type { CoreState, ReportedEvent } from './protocol.js';
import { TEMPERATURE_WARNING_C, type Supervision } from './supervision.js';

export interface StateViewDeps {
  cycle: () => ChargeCycleActor;
  metering: Pick<Metering, 'lastReading' | 'meterAnswering' | 'active'>;
  supervision: Pick<Supervision, 'temperatureC' | 'temperatureAnswering' | 'overtemperature'>;
  outputs: Outputs['outputs'];
  /** What the LEDs show now. */
  hmi: () => HmiState;
  /** The phases (1-/3-phase switching). */
  phases: () => PhaseState;
  /** The phase switch actor's state (the inspector's). */
  phaseSwitch: () => CoreState['phaseSwitch'];
}

/**
 * The charge point's state as the main thread shows it (spec 2.13, 2.14, the HMI, the outputs, the actor for the
 * inspector), read from the charge cycle, the metering, the supervision and the outputs; it changes nothing.
 */
export function createStateView(deps: StateViewDeps) {
  const { cycle, metering, supervision } = deps;

  function messageCauses(): MessageCause[] {
    const causes: MessageCause[] = [];
    const ctx = cycle().getSnapshot().context;
    const cp = pilotFault(ctx);
    if (cp) causes.push(cp);
    for (const f of ctx.faults) causes.push(f);
    const temperatureC = supervision.temperatureC();
    if (!supervision.overtemperature() && temperatureC !== null && temperatureC >= TEMPERATURE_WARNING_C) causes.push('high-temperature');
    if (!supervision.temperatureAnswering()) causes.push('temperature-sensor');
    if (!metering.meterAnswering()) causes.push('meter');
    return causes;
  }

  /** The state the main thread shows (spec 2.13, 2.14, the HMI, the outputs, the actor for the inspector). */
  function state(): CoreState {
    const snapshot = cycle().getSnapshot();
    const meta = stateMeta(snapshot);
    const { pilot } = snapshot.context;
    const system: CoreState['system'] = {
      ...meta,
      connectionState:
        pilot === 'a'
          ? 'no_vehicle_connected'
          : pilotFault(snapshot.context) !== null && pilot !== 'd'
            ? 'vehicle_connector_error'
            : snapshot.hasTag('contactor')
              ? 'vehicle_charging_type2'
              : 'vehicle_connected_type2',
      type2State: pilot === 'f' ? 'e' : pilot,
    };
    const temperatureC = supervision.temperatureC();
    if (temperatureC !== null) system.ambientTemp = Math.round(temperatureC * 10) / 10;
    const lastReading = metering.lastReading();
    const meter: CoreState['meter'] =
      metering.meterAnswering() && lastReading
        ? {
            energyWh: Math.max(0, Math.round(lastReading.energyWh)),
            powerW: Math.round(lastReading.powerW),
            currentsA: lastReading.currentsA.map((a) => Math.round(a * 100) / 100),
            ...(lastReading.voltagesV ? { voltagesV: lastReading.voltagesV.map((x) => Math.round(x * 10) / 10) } : {}),
          }
        : null;
    let transaction: CoreState['transaction'] = null;
    const tx = metering.active();
    if (tx) {
      transaction = {
        transactionId: tx.id,
        startedAt: tx.startedAt,
        consumption: tx.meterStartWh !== null && tx.meterLastWh !== null ? Math.max(0, tx.meterLastWh - tx.meterStartWh) : 0,
        power: meter ? meter.powerW : 0,
        maxPower: tx.maxPowerW,
        OCPPMeterCurrent: { L1: -1 },
      };
      // an undefined tagId is none wherever the state goes (valibot optional, JSON drops it, the readers use ??); the killed false variant ignored with
      // it
      // Stryker disable next-line ConditionalExpression: see above
      if (tx.tagId !== undefined) transaction.tagId = tx.tagId;
      // Stryker disable next-line ConditionalExpression: the same for userId
      if (tx.userId !== undefined) transaction.userId = tx.userId;
      // every meter reads one current per phase, 1 or 3 (drivers/types.ts, the sim, the SDM630), never none; the killed false and <= variants ignored
      // with them
      // Stryker disable next-line ConditionalExpression,EqualityOperator: see above
      if (meter && meter.currentsA.length > 0) {
        const [l1, l2, l3] = meter.currentsA;
        transaction.OCPPMeterCurrent = { L1: l1! };
        // a meter reads 1 or 3 currents, so both or neither are there; L2 and L3 as undefined are absent wherever the state goes (valibot optional,
        // JSON, the dashboard's ??); the killed false variant ignored with them
        // Stryker disable next-line ConditionalExpression,LogicalOperator: see above
        if (l2 !== undefined && l3 !== undefined) Object.assign(transaction.OCPPMeterCurrent, { L2: l2, L3: l3 });
      }
    }
    const { pwmDuty, ...commanded } = deps.outputs();
    return {
      system,
      transaction,
      messages: messageCauses().map((c) => ({ ...MESSAGES[c] })),
      meter,
      hmi: deps.hmi(),
      outputs: { ...commanded, pwmA: currentForDuty(pwmDuty) },
      phases: deps.phases(),
      phaseSwitch: deps.phaseSwitch(),
      chargeCycle: { status: snapshot.status, value: snapshot.value, context: snapshot.context },
    };
  }

  return { state };
}

/**
 * The messages (faults and warnings) raised and cleared between one state sent and the next, as events: compares
 * each state's messages with the previous one's by error code. A message raised and cleared between two states (one
 * turn of the event loop) was never shown and is not reported.
 */
export function createMessageWatch() {
  let shown = new Map<string, Message>();
  return (messages: readonly Message[]): ReportedEvent[] => {
    const now = new Map(messages.map((m) => [m.errorCode, m]));
    const changes: ReportedEvent[] = [];
    for (const [code, m] of now) if (!shown.has(code)) changes.push({ kind: 'fault_raised', code, severity: m.severity });
    for (const [code, m] of shown) if (!now.has(code)) changes.push({ kind: 'fault_cleared', code, severity: m.severity });
    shown = now;
    return changes;
  };
}
