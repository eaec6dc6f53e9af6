import type { GridInputsConfig, GridReading } from '../core/protocol.js';
import { conflict, invalid } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Settings } from '../settings/index.js';
import type { PerLine, Timed } from './allocator.js';
import type { EnergyInputs } from './contracts.js';
import { GRID_OPERATOR_SOURCES, GRID_POWER_SOURCES } from './input-settings.js';
import { parseGridOperatorLimit, parseGridPower, payloadJson } from './input-formats.js';

export { GRID_METER_INTERVAL_MS } from '../core/grid-inputs.js';
/**
 * The time of a grid-operator input that has sent nothing since it was chosen (or since the start): long ago, so
 * the allocator applies the failsafe at once. A controller that restarts must not lift a dimming it cannot see yet.
 */
export const NEVER_HEARD = 0;

/** What the MQTT service subscribes for the energy inputs (services/mqtt/index.ts). */
export interface MqttInputs {
  /** The topics to subscribe now (full topics, no wildcards). */
  topics(): string[];
  /** A message on one of the topics; false when it is none of them. */
  receive(topic: string, payload: Buffer): boolean;
  /** Called when `topics()` changed (a setting). */
  onTopicsChanged(listener: () => void): () => void;
}

export interface EnergyInputsDeps {
  settings: Pick<Settings, 'get' | 'onChange'>;
  /** Wall-clock time (UTC ms) of what is received (`Timed.at`), as the allocator loop's step. */
  now: () => number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /**
   * The charge-point core, which reads the grid meter (RS-485) and the ripple-control contact (GPIO) on its hardware
   * (services/core/grid-inputs.ts): told what to read; its readings come back through `fromCore`. Absent: those two
   * inputs stay empty (the failsafe applies to the contact).
   */
  core?: { configure(config: GridInputsConfig): void } | undefined;
}

export interface EnergyInputsService extends EnergyInputs {
  mqtt: MqttInputs;
  /** POST /v1/energy/grid: throws 409 when grid power is not pushed over HTTP, 400 for a bad body (nothing taken). */
  pushGridPower(body: unknown): PerLine;
  /** POST /v1/energy/grid-operator: the same rules; a push is the heartbeat. */
  pushGridOperator(body: unknown): number | null;
  /** A reading of the core's grid meter or ripple-control contact. */
  fromCore(reading: GridReading): void;
  close(): void;
}

/**
 * The energy inputs (docs/energy.md, Inputs): the grid connection point's power from the grid meter, an MQTT topic
 * or HTTP pushes, and the grid operator's limit from an MQTT topic, HTTP pushes or a ripple-control contact, chosen
 * by the settings (services/energy/input-settings.ts). Each keeps what it last received with its time; the allocator
 * loop reads them once a second and judges their age. A change of source forgets what the old one said.
 */
export function createEnergyInputs(deps: EnergyInputsDeps): EnergyInputsService {
  const { settings, now, logger } = deps;
  let grid: Timed<PerLine> | null = null;
  /** The contact as the core last reported it; null: not (yet) reported, the failsafe applies. */
  let contactClosed: boolean | null = null;
  let operator: Timed<number | null> | null = null;
  let gridSource = settings.get('GridPowerSource');
  let operatorSource = settings.get('GridOperatorSource');
  let topics = '';
  const topicListeners = new Set<() => void>();
  let closed = false;

  const phases = () => (settings.get('Phases') === 1 ? 1 : 3);
  const currentTopics = () => {
    const list: string[] = [];
    if (gridSource === GRID_POWER_SOURCES.mqtt && settings.get('GridPowerTopic')) list.push(settings.get('GridPowerTopic'));
    if (operatorSource === GRID_OPERATOR_SOURCES.mqtt && settings.get('GridOperatorTopic')) list.push(settings.get('GridOperatorTopic'));
    return list;
  };

  // The grid meter and the contact are read by the core; it is told what to read whenever the settings change.
  let meterAnswering = true;
  let coreConfig = '';
  const configureCore = () => {
    const config: GridInputsConfig = {
      meterAddress: gridSource === GRID_POWER_SOURCES.modbus ? settings.get('GridMeterAddress') : null,
      rippleContact: operatorSource === GRID_OPERATOR_SOURCES.gpio,
    };
    const json = JSON.stringify(config);
    if (json === coreConfig) return;
    coreConfig = json;
    if (deps.core) return deps.core.configure(config);
    if (config.meterAddress !== null)
      logger.warn({}, 'GridPowerSource is the grid meter, but this controller has no charge-point core to read it: no grid power');
    if (config.rippleContact)
      logger.warn({}, 'GridOperatorSource is the ripple-control contact, but this controller has no charge-point core to read it: the failsafe limit applies');
  };

  const configure = () => {
    const nextGrid = settings.get('GridPowerSource');
    const nextOperator = settings.get('GridOperatorSource');
    if (nextGrid !== gridSource) {
      gridSource = nextGrid;
      grid = null;
      meterAnswering = true;
    }
    if (nextOperator !== operatorSource) {
      operatorSource = nextOperator;
      operator = null;
      contactClosed = null;
    }
    configureCore();
    const nextTopics = currentTopics().join('\n');
    if (nextTopics !== topics) {
      topics = nextTopics;
      for (const listener of [...topicListeners]) listener();
    }
  };
  topics = currentTopics().join('\n');
  configureCore();
  settings.onChange(() => {
    if (!closed) configure();
  });

  const takeGrid = (body: unknown): PerLine => {
    const parsed = parseGridPower(body);
    if (!parsed.ok) throw invalid(`Grid power not taken: ${parsed.reason}`);
    grid = { value: parsed.value, at: now() };
    return parsed.value;
  };
  const takeOperator = (body: unknown): number | null => {
    const parsed = parseGridOperatorLimit(body, phases());
    if (!parsed.ok) throw invalid(`Grid-operator limit not taken: ${parsed.reason}`);
    operator = { value: parsed.value, at: now() };
    return parsed.value;
  };

  return {
    gridPowerW: () => (gridSource === GRID_POWER_SOURCES.off ? null : grid),
    gridOperator() {
      switch (operatorSource) {
        case GRID_OPERATOR_SOURCES.off:
          return null;
        case GRID_OPERATOR_SOURCES.gpio:
          // A wired contact cannot go silent: its state is always fresh (the core sends every change).
          if (contactClosed === null) return { value: null, at: NEVER_HEARD };
          return { value: contactClosed ? settings.get('GridOperatorDimmedLimit') : null, at: now() };
        default:
          return operator ?? { value: null, at: NEVER_HEARD };
      }
    },
    mqtt: {
      topics: () => (topics ? topics.split('\n') : []),
      receive(topic, payload) {
        const forGrid = gridSource === GRID_POWER_SOURCES.mqtt && topic === settings.get('GridPowerTopic');
        const forOperator = operatorSource === GRID_OPERATOR_SOURCES.mqtt && topic === settings.get('GridOperatorTopic');
        if (!forGrid && !forOperator) return false;
        const value = payloadJson(payload);
        for (const [wanted, take, what] of [
          [forGrid, takeGrid, 'grid power'],
          [forOperator, takeOperator, 'grid-operator limit'],
        ] as const) {
          if (!wanted) continue;
          try {
            take(value);
          } catch (err) {
            logger.warn({ topic, err: (err as Error).message }, `MQTT: a ${what} message was not taken`);
          }
        }
        return true;
      },
      onTopicsChanged(listener) {
        topicListeners.add(listener);
        return () => topicListeners.delete(listener);
      },
    },
    pushGridPower(body) {
      if (gridSource !== GRID_POWER_SOURCES.http) throw conflict('Grid power is not pushed over HTTP here: set GridPowerSource to HTTP push first');
      return takeGrid(body);
    },
    pushGridOperator(body) {
      if (operatorSource !== GRID_OPERATOR_SOURCES.http)
        throw conflict('The grid-operator limit is not pushed over HTTP here: set GridOperatorSource to HTTP push first');
      return takeOperator(body);
    },
    fromCore(reading) {
      if (closed) return;
      if (reading.type === 'rippleContact') {
        if (operatorSource === GRID_OPERATOR_SOURCES.gpio) contactClosed = reading.closed;
        return;
      }
      if (gridSource !== GRID_POWER_SOURCES.modbus) return;
      if (reading.powerW === null) {
        // The last reading stays and ages: the allocator's staleness rules (the surplus's 60 s, the site's 15 s) apply.
        if (meterAnswering) logger.warn({ err: reading.error }, 'the grid meter does not answer');
        meterAnswering = false;
        return;
      }
      grid = { value: reading.powerW, at: now() };
      if (!meterAnswering) logger.info({}, 'the grid meter answers again');
      meterAnswering = true;
    },
    close() {
      closed = true;
      topicListeners.clear();
    },
  };
}
