import type { ContactInput } from '../../drivers/gpio/contact-input.js';
import type { GridMeter } from '../../drivers/meter/grid-meter.js';
import type { Timers } from '../../drivers/types.js';
import { conflict, invalid } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Settings } from '../settings/index.js';
import type { PerLine, Timed } from './allocator.js';
import type { EnergyInputs } from './contracts.js';
import { GRID_OPERATOR_SOURCES, GRID_POWER_SOURCES } from './input-settings.js';
import { parseGridOperatorLimit, parseGridPower, payloadJson } from './input-formats.js';

/** The grid meter is read this often (the allocator's step); the next read waits for the answer to the last. */
export const GRID_METER_INTERVAL_MS = 1_000;
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
  /** The controller's timers: the grid meter's reads. */
  timers: Timers;
  /** Wall-clock time (UTC ms) of what is received (`Timed.at`), as the allocator loop's step. */
  now: () => number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** The grid meter on the RS-485 bus; absent where this backend has none (then the Modbus input stays empty). */
  gridMeter?: GridMeter | undefined;
  /** The ripple-control receiver's contact; absent where this backend has none (then the failsafe applies). */
  rippleContact?: ContactInput | undefined;
}

export interface EnergyInputsService extends EnergyInputs {
  mqtt: MqttInputs;
  /** POST /v1/energy/grid: throws 409 when grid power is not pushed over HTTP, 400 for a bad body (nothing taken). */
  pushGridPower(body: unknown): PerLine;
  /** POST /v1/energy/grid-operator: the same rules; a push is the heartbeat. */
  pushGridOperator(body: unknown): number | null;
  close(): void;
}

/**
 * The energy inputs (docs/energy.md, Inputs): the grid connection point's power from the grid meter, an MQTT topic
 * or HTTP pushes, and the grid operator's limit from an MQTT topic, HTTP pushes or a ripple-control contact, chosen
 * by the settings (services/energy/input-settings.ts). Each keeps what it last received with its time; the allocator
 * loop reads them once a second and judges their age. A change of source forgets what the old one said.
 */
export function createEnergyInputs(deps: EnergyInputsDeps): EnergyInputsService {
  const { settings, timers, now, logger } = deps;
  let grid: Timed<PerLine> | null = null;
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

  // The grid meter: one read at a time, the next one interval after the last was asked.
  let meterTimer: unknown;
  let meterAnswering = true;
  let reading = false;
  const pollMeter = () => {
    meterTimer = undefined;
    if (closed || gridSource !== GRID_POWER_SOURCES.modbus || !deps.gridMeter) return;
    reading = true;
    const askedAt = timers.now();
    const source = gridSource;
    deps.gridMeter
      .readPowerW()
      .then(
        (watts) => {
          if (gridSource !== source) return;
          grid = { value: watts, at: now() };
          if (!meterAnswering) logger.info({}, 'the grid meter answers again');
          meterAnswering = true;
        },
        (err: unknown) => {
          if (meterAnswering) logger.warn({ err: String(err) }, 'the grid meter does not answer');
          meterAnswering = false;
        },
      )
      .finally(() => {
        reading = false;
        if (!closed && meterTimer === undefined) meterTimer = timers.setTimeout(pollMeter, Math.max(0, askedAt + GRID_METER_INTERVAL_MS - timers.now()));
      });
  };
  const startMeter = () => {
    if (gridSource !== GRID_POWER_SOURCES.modbus) return;
    if (!deps.gridMeter) logger.warn({}, 'GridPowerSource is the grid meter, but this hardware has no grid meter on the bus yet: no grid power');
    else if (meterTimer === undefined && !reading) pollMeter();
  };

  const warnWithoutContact = () => {
    if (operatorSource === GRID_OPERATOR_SOURCES.gpio && !deps.rippleContact) {
      logger.warn({}, 'GridOperatorSource is the ripple-control contact, but this hardware has none yet: the failsafe limit applies');
    }
  };
  const configure = () => {
    const nextGrid = settings.get('GridPowerSource');
    const nextOperator = settings.get('GridOperatorSource');
    if (nextGrid !== gridSource) {
      gridSource = nextGrid;
      grid = null;
      meterAnswering = true;
      startMeter();
    }
    if (nextOperator !== operatorSource) {
      operatorSource = nextOperator;
      operator = null;
      warnWithoutContact();
    }
    const nextTopics = currentTopics().join('\n');
    if (nextTopics !== topics) {
      topics = nextTopics;
      for (const listener of [...topicListeners]) listener();
    }
  };
  topics = currentTopics().join('\n');
  startMeter();
  warnWithoutContact();
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
          // A wired contact cannot go silent: its state is always fresh.
          if (!deps.rippleContact) return { value: null, at: NEVER_HEARD };
          return { value: deps.rippleContact.closed() ? settings.get('GridOperatorDimmedLimit') : null, at: now() };
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
    close() {
      closed = true;
      if (meterTimer !== undefined) timers.clearTimeout(meterTimer);
      meterTimer = undefined;
      topicListeners.clear();
    },
  };
}
