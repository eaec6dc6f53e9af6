import type { CoreEvent } from '../services/core-link.js';
import type { InspectRecord } from '../services/core/inspection.js';
import { CORE_SYSTEM_ID, type GridReading } from '../services/core/protocol.js';
import type { ChargingService } from '../services/charging.js';
import type { Diagnostics } from '../services/field-service/diagnostics.js';
import type { ActorSnapshot, ActorSource, Inspector } from '../services/inspector.js';
import type { Logger } from '../services/logger.js';
import type { Metrics } from '../services/metrics.js';

/**
 * What the charge-point core sends, to where it belongs on the main thread: its state and transaction effects to the
 * charging service, its safety reactions to the log, /metrics and the diagnostics, its grid readings to the energy
 * inputs, and its actors' snapshots to the inspector (`coreSource`, listened to only while an /inspect page watches).
 */
export function routeCoreEvents(deps: {
  charging: Pick<ChargingService, 'onState' | 'onTransaction' | 'onReported'>;
  inspector: Pick<Inspector, 'summaryChanged'>;
  diagnostics: Pick<Diagnostics, 'reaction'>;
  metrics: Pick<Metrics, 'reaction' | 'coreLoop'>;
  logger: Logger;
  /** Turns the core's inspection records on and off. */
  inspect(on: boolean): void;
}) {
  const { charging, inspector, diagnostics, metrics, logger } = deps;
  const snapshots = new Map<string, ActorSnapshot>([[CORE_SYSTEM_ID, { status: 'active', value: {}, context: {} }]]);
  let observer: ((record: InspectRecord) => void) | undefined;
  /** The core's readings of the grid meter and the ripple-control contact, for the energy inputs (set up later). */
  let gridReadings: ((reading: GridReading) => void) | undefined;

  const coreSource: ActorSource = {
    snapshot: (systemId) => snapshots.get(systemId),
    inspect(watching) {
      observer = watching;
      deps.inspect(true);
      return () => {
        observer = undefined;
        deps.inspect(false);
      };
    },
  };

  return {
    coreSource,
    /** Where the grid readings go from now on. */
    toEnergyInputs(take: (reading: GridReading) => void): void {
      gridReadings = take;
    },
    handle(event: CoreEvent): void {
      switch (event.type) {
        case 'gridPower':
        case 'rippleContact':
          return gridReadings?.(event);
        case 'state':
          charging.onState(event.state);
          snapshots.set('chargeCycle', event.state.chargeCycle);
          if (event.state.phaseSwitch) snapshots.set('phaseSwitch', { ...event.state.phaseSwitch, context: {} });
          inspector.summaryChanged();
          return;
        case 'transaction':
          return charging.onTransaction(event);
        case 'event':
          return charging.onReported(event);
        case 'reaction': {
          const ms = Math.round(event.seconds * 10_000) / 10;
          if (event.seconds > 0.1) logger.warn({ reaction: event.reaction, ms }, 'safety reaction slower than 100 ms');
          else logger.debug({ reaction: event.reaction, ms }, 'safety reaction');
          diagnostics.reaction(event.reaction, event.seconds);
          return metrics.reaction(event.reaction, event.seconds);
        }
        case 'heartbeat':
          return metrics.coreLoop(event.loop);
        case 'log':
          return logger[event.level](event.fields, event.msg);
        case 'inspection':
          for (const record of event.records) {
            if (record.kind === 'snapshot') snapshots.set(record.systemId, { status: record.status, value: record.value, context: record.context });
            observer?.(record);
          }
          return;
      }
    },
  };
}
