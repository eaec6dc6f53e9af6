import { readFileSync } from 'node:fs';
import { loadInSteps } from '../load-in-steps.js';
import type { MqttClient } from 'mqtt';
import type { BackendLinkActor, MqttActor } from '../../machines/main-thread.js';
import type { MqttContext } from '../../machines/mqtt.js';
import type { ChargeControl } from '../charge-control.js';
import type { ChargingService } from '../charging.js';
import type { MqttInputs } from '../energy/inputs.js';
import type { EnergyControl } from '../energy/contracts.js';
import { energySettingsOf } from '../energy/settings-of.js';
import type { Backend } from '../ocpp/backend.js';
import type { Logger } from '../logger.js';
import type { Settings } from '../settings/index.js';
import { ipv4Address } from './address.js';
import { refusal, runCommand, type CommandResult } from './commands.js';
import { createOutbox, type Link } from './link.js';
import { discoveryMessages } from './discovery.js';
import { connectionChanged, entitiesChanged, loadManagementOn, mqttOptionsOf, type MqttOptions } from './options.js';
import { jsonState, meterValues, RETAINABLE_TOPICS, stateValues, TAG_TOPICS, type PublishedInput, type Values } from './state.js';

export { mqttOptionsOf, type MqttOptions } from './options.js';
export { MAX_IN_FLIGHT } from './link.js';

/** An attempt that has not been accepted within this time fails. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** MQTT keep-alive: the broker publishes the Last Will about 1.5 times this long after the controller went silent. */
export const KEEPALIVE_S = 30;
/** Commands waiting to be carried out at most; more are refused at once. */
export const MAX_PENDING_COMMANDS = 32;
/** A graceful end (the `offline` status delivered) is given this long at shutdown. */
const END_TIMEOUT_MS = 2_000;
export interface MqttDeps {
  settings: Settings;
  charging: ChargingService;
  /** Start/stop and pause/resume of the running charge (the same service the web API uses). */
  chargeControl: ChargeControl;
  /** The OCPP link: whether it is online (published as the backend connection). */
  backend: Pick<Backend, 'online'>;
  /** When the controller started (ms since the epoch). */
  startedAt: number;
  logger: Logger;
  /** CA certificates (PEM file) that mqtts:// brokers are checked against, besides the system's (MQTT_CA_FILE). */
  caFile?: string | undefined;
  /** Topics of the energy inputs (grid power, grid-operator limit), subscribed beside the commands. */
  inputs?: MqttInputs | undefined;
  /** Energy management (services/energy/contracts.ts): published, its mode taken as a command; absent: neither. */
  energy?: EnergyControl | undefined;
  /** Told when the broker connection opens and fails or is lost (GET /v1/network shows it). */
  connection?: { connected(): void; failed(reason: string): void } | undefined;
}

/**
 * Connects the MQTT actor (machines/mqtt.ts) to the broker (MQTT.js), the charge point and the settings: publishes
 * the state from the core's state messages (services/charging.ts), carries out commands (services/mqtt/commands.ts),
 * announces Home Assistant discovery (services/mqtt/discovery.ts) and feeds the load limit to the allocator loop
 * (`charging.limits`, input `mqtt`). Holds no rule about time or order: those are in the machine. Runs on
 * the main thread; the charge-point core never waits for it.
 */
export function createMqttService(deps: MqttDeps) {
  const { settings, charging, logger } = deps;
  let actor: MqttActor | undefined;
  let options: MqttOptions = mqttOptionsOf(settings);
  let configured = false;
  let link: Link | undefined;
  let commands: Promise<void> = Promise.resolve();
  let pendingCommands = 0;
  const inFlight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
  };

  const send = (event: Parameters<MqttActor['send']>[0]) => actor?.send(event);
  const online = (): Link | undefined => (link?.connected ? link : undefined);

  const { publish, pump } = createOutbox(logger);

  /** What is published now (undefined until the core has sent its first state). */
  function input(): PublishedInput | undefined {
    const core = charging.coreState();
    if (!core) return undefined;
    const snapshot = actor?.getSnapshot();
    const region = (snapshot?.value as { loadLimit?: PublishedInput['loadLimitState'] } | undefined)?.loadLimit ?? 'off';
    return {
      system: charging.chargePoint.state(),
      core,
      chargingEnabled: settings.get('ChargingEnabled') === 1,
      maxCurrentA: settings.get('MaxCurrent'),
      loadLimitA: charging.limits.get('mqtt')?.amps ?? null,
      loadLimitState: region,
      publishTagIds: options.publishTagIds,
      paused: deps.chargeControl.paused(),
      backendConnected: deps.backend.online(),
      lastSessionWh,
      startedAt: deps.startedAt,
      ipAddress: ipv4Address(),
      energy: deps.energy?.status() ?? null,
      goals: energySettingsOf(settings),
    };
  }

  /** The energy of the last session that ended, and the running one's as last seen (to notice its end). */
  let lastSessionWh: number | null = null;
  let runningWh: number | null = null;
  function followSession(): void {
    const transaction = charging.coreState()?.transaction;
    if (transaction) runningWh = transaction.consumption;
    else if (runningWh !== null) {
      lastSessionWh = runningWh;
      runningWh = null;
    }
  }

  /** Publishes the values of a group that changed on this connection (all with `force`), then the JSON state. */
  function publishGroup(l: Link, group: 'states' | 'meter', values: Values, force: boolean): void {
    const last = l[group];
    for (const [topic, payload] of Object.entries(values)) {
      if (force || last[topic] !== payload) publish(l, `${l.options.baseTopic}/${topic}`, payload, l.options.retain);
    }
    l[group] = values;
  }

  function publishJson(l: Link, now: PublishedInput, force: boolean): void {
    const json = jsonState(l.states, l.meter, now.system);
    if (!force && json === l.json) return;
    l.json = json;
    publish(l, `${l.options.baseTopic}/state`, json, l.options.retain);
  }

  /** Publishes what changed in a group, then the JSON state; undefined when not connected or no state yet. */
  function publishChanged(group: 'states' | 'meter'): { l: Link; now: PublishedInput } | undefined {
    const l = online();
    if (!l) return undefined; // nothing computed while MQTT is not connected
    const now = input();
    if (!now) return undefined;
    publishGroup(l, group, group === 'states' ? stateValues(now) : meterValues(now), false);
    publishJson(l, now, false);
    return { l, now };
  }

  /** The states (at once) on every change; meter values go through the actor's interval (METER). */
  function stateChanged(): void {
    const published = publishChanged('states');
    if (!published) return;
    const { l, now } = published;
    if (Object.entries(meterValues(now)).some(([topic, payload]) => l.meter[topic] !== payload)) send({ type: 'METER' });
  }

  /**
   * Clears the retained values the settings do not allow (all with retain off, the tag ids when they are not
   * published): on every connection, as they may have been switched off while the broker was out of reach.
   */
  function clearRetained(l: Link): void {
    const { baseTopic, retain, publishTagIds } = l.options;
    const topics = retain ? (publishTagIds ? [] : TAG_TOPICS) : RETAINABLE_TOPICS;
    for (const topic of topics) publish(l, `${baseTopic}/${topic}`, '', true);
  }

  /** Everything, afresh (a new connection, retain switched). */
  function publishAll(l: Link): void {
    const now = input();
    if (!now) return;
    publishGroup(l, 'states', stateValues(now), true);
    publishGroup(l, 'meter', meterValues(now), true);
    publishJson(l, now, true);
  }

  function publishDiscovery(announce: boolean, l: Link | undefined = online()): void {
    if (!l) return;
    for (const [topic, payload] of discoveryMessages(l.options, announce, { energy: deps.energy !== undefined })) publish(l, topic, payload, true);
    logger.info({ prefix: l.options.discoveryPrefix }, announce ? 'MQTT: Home Assistant discovery announced' : 'MQTT: Home Assistant discovery withdrawn');
  }

  /** Ends a connection: `offline` first when connected (and the discovery withdrawn when its topics move). */
  function retire(l: Link | undefined, next?: MqttOptions): Promise<void> {
    if (!l) return Promise.resolve();
    if (link === l) link = undefined;
    l.client.removeAllListeners('message');
    const wasConnected = l.connected;
    l.ended = true;
    if (wasConnected) {
      const moved = next !== undefined && (next.baseTopic !== l.options.baseTopic || next.discoveryPrefix !== l.options.discoveryPrefix);
      if (moved) publishDiscovery(false, l);
      publish(l, `${l.options.baseTopic}/status`, 'offline', true);
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => l.client.end(true, {}, () => resolve()), END_TIMEOUT_MS);
      timer.unref();
      // Graceful (a DISCONNECT once everything queued is out, so the broker does not publish the Last Will: `offline`
      // was said) when connected.
      const end = () =>
        l.client.end(!wasConnected, {}, () => {
          clearTimeout(timer);
          resolve();
        });
      if (!wasConnected) return end();
      l.drained = () => {
        l.drained = undefined;
        l.connected = false;
        end();
      };
      pump(l);
    });
  }

  /** MQTT.js, loaded for the first connection: a controller without a broker does not carry it (about 5 MB). */
  let connectClient: (typeof import('mqtt'))['connect'] | undefined;
  /** Each open() gets a number; close and drop end it, so a library arriving late opens nothing. */
  let attempt = 0;

  function open(): void {
    const mine = ++attempt;
    if (connectClient) return connect();
    track(
      loadInSteps('mqtt', () => import('mqtt')).then(
        (lib) => {
          connectClient = lib.connect;
          if (mine === attempt) connect();
        },
        (err: Error) => {
          logger.error({ err: err.message }, 'MQTT: the MQTT client library cannot be loaded');
          if (mine === attempt) send({ type: 'CONNECT_FAILED' });
        },
      ),
    );
  }

  function connect(): void {
    const next = options;
    track(retire(link, next));
    let ca: Buffer | undefined;
    try {
      if (deps.caFile) ca = readFileSync(deps.caFile);
    } catch (err) {
      logger.error({ file: deps.caFile, err: (err as Error).message }, 'MQTT: the CA file (MQTT_CA_FILE) cannot be read');
      queueMicrotask(() => send({ type: 'CONNECT_FAILED' }));
      return;
    }
    let client: MqttClient;
    try {
      client = connectClient!(next.url, {
        clientId: next.clientId,
        ...(next.username ? { username: next.username } : {}),
        ...(next.password ? { password: next.password } : {}),
        protocolVersion: 4,
        clean: true,
        keepalive: KEEPALIVE_S,
        connectTimeout: CONNECT_TIMEOUT_MS,
        reconnectPeriod: 0,
        queueQoSZero: false,
        resubscribe: false,
        will: { topic: `${next.baseTopic}/status`, payload: Buffer.from('offline'), qos: next.qos, retain: true },
        ...(ca ? { ca } : {}),
      });
    } catch (err) {
      logger.warn({ url: next.url, err: (err as Error).message }, 'MQTT: cannot connect');
      deps.connection?.failed((err as Error).message);
      queueMicrotask(() => send({ type: 'CONNECT_FAILED' }));
      return;
    }
    const l: Link = { client, options: next, connected: false, ended: false, states: {}, meter: {}, json: '', outbox: new Map(), inFlight: 0 };
    link = l;
    let reason: string | undefined;
    logger.info({ url: next.url, clientId: next.clientId }, 'MQTT: connecting');
    client.on('connect', () => {
      if (l.ended) return;
      l.connected = true;
      logger.info({ url: next.url }, 'MQTT: connected');
      deps.connection?.connected();
      send({ type: 'CONNECTED' });
    });
    client.on('error', (err) => {
      reason = err.message;
    });
    client.on('close', () => {
      if (l.ended) return;
      l.ended = true;
      l.outbox.clear();
      if (l.connected) {
        l.connected = false;
        logger.warn({ url: next.url, reason }, 'MQTT: connection lost');
        deps.connection?.failed(reason ?? 'connection lost');
        send({ type: 'CONNECTION_LOST' });
      } else {
        logger.warn({ url: next.url, reason: reason ?? 'closed' }, 'MQTT: connection failed');
        deps.connection?.failed(reason ?? 'closed');
        send({ type: 'CONNECT_FAILED' });
      }
    });
    client.on('message', (topic, payload) => received(l, topic, payload));
  }

  function received(l: Link, topic: string, payload: Buffer): void {
    if (deps.inputs?.receive(topic, payload)) return;
    if (topic === `${l.options.discoveryPrefix}/status`) {
      if (payload.toString('utf8') === 'online') send({ type: 'HA_ONLINE' });
      return;
    }
    const prefix = `${l.options.baseTopic}/set/`;
    if (!topic.startsWith(prefix)) return;
    const command = topic.slice(prefix.length);
    if (pendingCommands >= MAX_PENDING_COMMANDS) return answer(l, refusal(command, payload, 'Too many commands at once; send it again later'));
    pendingCommands++;
    commands = commands.then(async () => {
      try {
        answer(l, await runCommand(commandDeps, command, payload));
      } catch (err) {
        logger.error({ command, err: (err as Error).message }, 'MQTT: a command failed');
        answer(l, refusal(command, payload, 'The command failed: the controller could not store it'));
      } finally {
        pendingCommands--;
      }
    });
    track(commands);
  }

  function answer(l: Link, result: CommandResult): void {
    logger.info(result, result.success ? 'MQTT command carried out' : 'MQTT command refused');
    if (!l.ended) publish(l, `${l.options.baseTopic}/result`, JSON.stringify(result), false, true);
  }

  const commandDeps = {
    settings,
    charge: deps.chargeControl,
    energy: deps.energy,
    control: () => options.control,
    loadManagement: () => actor?.getSnapshot().matches({ loadLimit: 'off' }) === false,
    limit: (amps: number) => send({ type: 'LIMIT', amps }),
  };

  /** The energy inputs' topics, again whenever they change (settings). */
  let inputTopics: string[] = [];
  function subscribeInputs(l: Link): void {
    const next = deps.inputs?.topics() ?? [];
    const gone = inputTopics.filter((t) => !next.includes(t));
    if (gone.length) l.client.unsubscribe(gone);
    if (next.length) {
      l.client.subscribe(next, { qos: l.options.qos }, (err) => {
        if (err) logger.warn({ err: err.message }, 'MQTT: subscribing the energy inputs failed');
      });
    }
    inputTopics = next;
  }
  deps.inputs?.onTopicsChanged(() => {
    const l = online();
    if (l) subscribeInputs(l);
  });

  /** After a load-limit action: the actor's new state is published once the transition is complete. */
  const afterTransition = () => queueMicrotask(() => stateChanged());

  /** The effects the MQTT actor names (mqttMachine.provide({ actions })). */
  const actions = {
    open,
    close: () => {
      attempt++;
      track(retire(link));
    },
    drop: () => {
      attempt++;
      const l = link;
      link = undefined;
      if (l) {
        l.ended = true;
        l.outbox.clear();
        l.client.end(true);
      }
    },
    goOnline: () => {
      const l = online();
      if (!l) return;
      const { baseTopic, discoveryPrefix, qos } = l.options;
      publish(l, `${baseTopic}/status`, 'online', true);
      clearRetained(l);
      l.client.subscribe([`${baseTopic}/set/+`, `${discoveryPrefix}/status`], { qos }, (err) => {
        if (err) logger.warn({ err: err.message }, 'MQTT: subscribing failed');
      });
      subscribeInputs(l);
      publishAll(l);
    },
    announce: () => publishDiscovery(true),
    withdraw: () => publishDiscovery(false),
    publishMeter: () => void publishChanged('meter'),
    applyLimit: ({ context }: { context: MqttContext }) => {
      if (context.limitA !== null) charging.limits.set('mqtt', context.limitA);
      afterTransition();
    },
    applyFallback: ({ context }: { context: MqttContext }) => {
      charging.limits.set('mqtt', context.loadLimit.fallbackA);
      afterTransition();
    },
    clearLimit: () => {
      charging.limits.set('mqtt', null);
      afterTransition();
    },
  };

  return {
    actions,

    /** Starts: the actor runs, the charge point is attached; the settings follow with `configure`. */
    attach(mqttActor: MqttActor, backendLink?: BackendLinkActor): void {
      actor = mqttActor;
      charging.watch(() => {
        followSession();
        stateChanged();
      });
      // The backend connection is published when it changes (it changes nothing in the charge point's state).
      backendLink?.subscribe(() => stateChanged());
      deps.energy?.watch(() => stateChanged()); // after every step that changed its status
    },

    /** The settings now (at start and after every change); each change takes effect at once. */
    configure(next: MqttOptions): void {
      const prev = options;
      options = next;
      const loadEvent = {
        type: 'LOAD_MANAGEMENT' as const,
        on: loadManagementOn(next),
        timeoutMs: next.loadLimitTimeoutMs,
        fallbackA: next.loadLimitFallbackA,
      };
      const connect = { type: 'CONFIGURE' as const, connect: next.enabled && next.url !== '' };
      if (!configured) {
        configured = true;
        send({ type: 'INTERVAL', ms: next.intervalMs });
        send({ type: 'DISCOVERY', on: next.discovery });
        send(loadEvent);
        send(connect);
        return;
      }
      if (prev.intervalMs !== next.intervalMs) send({ type: 'INTERVAL', ms: next.intervalMs });
      if (
        loadManagementOn(prev) !== loadManagementOn(next) ||
        prev.loadLimitTimeoutMs !== next.loadLimitTimeoutMs ||
        prev.loadLimitFallbackA !== next.loadLimitFallbackA
      ) {
        send(loadEvent);
      }
      if (connectionChanged(prev, next)) {
        if (entitiesChanged(prev, next)) send({ type: 'DISCOVERY', on: next.discovery });
        send(connect);
        return;
      }
      const l = online();
      if (l) {
        l.options = next;
        if (prev.publishTagIds && !next.publishTagIds) for (const topic of TAG_TOPICS) publish(l, `${next.baseTopic}/${topic}`, '', true);
        if (prev.retain !== next.retain) {
          // Retained values of the old setting go; everything is published again as the new setting says.
          if (!next.retain) clearRetained(l);
          publishAll(l);
        }
      }
      if (entitiesChanged(prev, next)) send({ type: 'DISCOVERY', on: next.discovery });
      stateChanged();
    },

    /** The actor's state (tests, /inspect shows the actor itself). */
    state: () => actor?.getSnapshot().value,

    /** Resolves when every command has been carried out and every connection ended (tests). */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    /** Graceful stop: `offline` on the status topic, then the connection ends. */
    async stop(): Promise<void> {
      await commands;
      await retire(link);
      await this.settled();
    },
  };
}

export type MqttService = ReturnType<typeof createMqttService>;
