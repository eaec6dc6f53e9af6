import { readFileSync } from 'node:fs';
import type { IClientOptions, MqttClient } from 'mqtt';
import { createActor } from 'xstate';
import { realTimers } from '../../drivers/timers.js';
import type { Timers } from '../../drivers/types.js';
import type { SiteMembershipActor } from '../../machines/main-thread.js';
import { SITE_MEMBERSHIP_DEFAULTS, siteMembershipMachine, type SiteMembershipInput, type SiteMembershipParams } from '../../machines/site-membership.js';
import type { Logger } from '../logger.js';
import { mqttOptionsOf } from '../mqtt/options.js';
import { NOMINAL_VOLTAGE } from '../ocpp/smart-charging.js';
import type { Settings } from '../settings/index.js';
import type { PerLine, Timed } from './allocator.js';
import type { SiteDemand, SiteLink } from './contracts.js';
import { chargerIdOf, decodeRecord, encodeRecord, OFFLINE_RECORD, recordTopic, siteFilter, type OnlineSiteRecord } from './site-record.js';
import { allocateSite, applyShare, brokerLostShare, SITE_DEFAULTS, type AppliedShare, type Fairness, type PeerRecord, type SiteParams } from './site-share.js';

/**
 * The site link (docs/energy.md, "Site"): this charger's membership of a site whose chargers share one grid
 * connection over MQTT, with no leader. Its own MQTT client to the broker of Backend › MQTT publishes this charger's
 * demand record (retained, QoS 1, with its last will) and reads every other's; at each step it computes the whole
 * site's allocation (site-share.ts) and applies this charger's share as the membership machine's state says.
 */

export interface SiteLinkParams {
  site: SiteParams;
  membership: SiteMembershipParams;
  /** The allocation is computed this often, besides at each offer (ms). */
  stepMs: number;
  /** The record is published again at least this often, changed or not (ms). */
  heartbeatMs: number;
  /** MQTT keepalive (s): the broker publishes the last will 1.5 times this long after the charger went quiet. */
  keepaliveS: number;
  /** Nothing received from the broker this long (the own heartbeat comes back): the connection counts as lost (ms). */
  noticeMs: number;
  connectTimeoutMs: number;
  reconnectMs: number;
}

/**
 * Why these: a partitioned charger must lower its share before its peers raise theirs. It notices `noticeMs` (25 s)
 * after the last message it heard, and its EV follows within 5 s (IEC 61851-1): 30 s. Its peers learn of it from its
 * last will, 1.5 × 20 s = 30 s after the broker last heard it, and raise only `raiseDelayMs` (7 s) later: 37 s.
 * The heartbeat (10 s) keeps both the own echo and the broker's keepalive fed, well inside `silentMs` (30 s).
 */
export const SITE_LINK_DEFAULTS: SiteLinkParams = {
  site: SITE_DEFAULTS,
  membership: SITE_MEMBERSHIP_DEFAULTS,
  stepMs: 1_000,
  heartbeatMs: 10_000,
  keepaliveS: 20,
  noticeMs: 25_000,
  connectTimeoutMs: 10_000,
  reconnectMs: 5_000,
};

/**
 * The link's times scaled by `scale` (SITE_TIME_SCALE: tests with whole controllers on one site, in real time), each
 * rule keeping its proportions; the step at least 100 ms. What belongs to the devices is not scaled: the grid meter's
 * age and the connect timeout.
 */
export function scaledSiteLinkParams(scale: number, base: SiteLinkParams = SITE_LINK_DEFAULTS): SiteLinkParams {
  if (scale === 1) return base;
  const ms = (value: number) => Math.round(value * scale);
  const { site, membership } = base;
  return {
    ...base,
    site: { ...site, silentMs: ms(site.silentMs), lostMs: ms(site.lostMs), reserveMs: ms(site.reserveMs), raiseDelayMs: ms(site.raiseDelayMs) },
    membership: { joinMs: ms(membership.joinMs), reserveMs: ms(membership.reserveMs) },
    stepMs: Math.max(100, ms(base.stepMs)),
    heartbeatMs: ms(base.heartbeatMs),
    keepaliveS: Math.max(1, Math.round(base.keepaliveS * scale)),
    noticeMs: ms(base.noticeMs),
    reconnectMs: ms(base.reconnectMs),
  };
}

/** The site settings (services/energy/site-settings.ts) as the link uses them. */
export interface SiteOptions {
  enabled: boolean;
  name: string;
  limitA: PerLine;
  installed: number;
  priority: number;
  fairness: Fairness;
}

export function siteOptionsOf(settings: Pick<Settings, 'get'>): SiteOptions {
  return {
    enabled: settings.get('SiteSharing') === 1,
    name: settings.get('SiteName'),
    limitA: settings.get('SiteLimit'),
    installed: settings.get('SiteChargers'),
    priority: settings.get('SitePriority'),
    fairness: settings.get('SiteFairness') === 1 ? 'inOrder' : 'equal',
  };
}

export interface SiteLinkDeps {
  settings: Pick<Settings, 'get'>;
  logger: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** CA certificates for mqtts:// (MQTT_CA_FILE), as the MQTT service uses them. */
  caFile?: string | undefined;
  timers?: Timers;
  params?: Partial<SiteLinkParams>;
  /**
   * This charger's grid meter (EnergyInputs.gridPowerW): the grid connection point's power per line (W, import
   * positive) and when it was read; null or absent: none here (another charger of the site may have one).
   */
  gridPowerW?: () => Timed<PerLine> | null;
}

export interface SiteLinkState {
  membership: string;
  connected: boolean;
  /** The share applied (A per phase); null: site sharing off. */
  shareA: number | null;
  /** The share the site's allocation gives this charger now (A). */
  computedA: number;
  safeA: number;
  peers: { id: string; status: string }[];
}

export interface SiteLinkService extends SiteLink {
  /** Reads the settings again (after a change). */
  configure(): void;
  /** Hands the membership over to the actor tree's actor (started by its parent), which is told what is known now. */
  attach(tree: SiteMembershipActor): void;
  state(): SiteLinkState;
  /** Leaves the site (the record cleared) and ends the connection. */
  stop(): Promise<void>;
}

const LINES_OF = { 1: [0], 3: [0, 1, 2] } as const;
const centi = (amps: number): number => Math.round(amps * 100) / 100;
/** Within what a record may carry (site-record.ts), so a meter's noise (-0.1 A) never makes the record invalid. */
const carried = (amps: number): number => (Number.isFinite(amps) ? Math.min(1000, Math.max(0, centi(amps))) : 0);
/** A record is sent again before the heartbeat when the demand changed, or a current by this much (A). */
const CHANGE_A = 0.5;

export function createSiteLink(deps: SiteLinkDeps): SiteLinkService {
  const { settings, logger } = deps;
  const timers = deps.timers ?? realTimers;
  const params: SiteLinkParams = { ...SITE_LINK_DEFAULTS, ...deps.params };
  let options = siteOptionsOf(settings);
  const siteParams = (): SiteParams => ({ ...params.site, fairness: options.fairness });

  // A standalone membership actor until attach() gives the one of the main thread's actor tree (machines/main-thread.ts).
  let membership: SiteMembershipActor = createActor(siteMembershipMachine, { clock: timers, input: siteMembershipInputOf(params) });
  let ownsMembership = true;
  membership.start();

  let client: MqttClient | undefined;
  /** What the current client was opened with; a change opens a new one. */
  let openedWith = '';
  let chargerId = '';
  /** The site the current client was opened for. */
  let siteName = '';
  let connected = false;
  let lastHeard = 0;
  let stopped = false;
  let timer: unknown;

  /** The other chargers' latest records, and the grid reading each carried. */
  const peers = new Map<string, PeerRecord>();
  const peerGrid = new Map<string, Timed<PerLine>>();
  const refused = new Set<string>();

  let demand: SiteDemand = { demandA: 0, phases: 3, drawA: [0, 0, 0], arrivedAt: null };
  let applied: AppliedShare = { amps: 0, pending: null };
  let share: Timed<PerLine> | null = null;
  let computedA = 0;
  let safeA = 0;
  let lastStatus = new Map<string, string>();
  let sent: { record: OnlineSiteRecord; at: number } | undefined;

  /** The own grid meter's reading as currents per line (A at the nominal voltage). */
  const ownGrid = (): Timed<PerLine> | null => {
    const w = deps.gridPowerW?.() ?? null;
    return w === null ? null : { value: [w.value[0] / NOMINAL_VOLTAGE, w.value[1] / NOMINAL_VOLTAGE, w.value[2] / NOMINAL_VOLTAGE], at: w.at };
  };

  const ownRecord = (now: number): OnlineSiteRecord => {
    const grid = ownGrid();
    // A reading taken just after `now` (the same clock) is as fresh as can be.
    if (grid !== null && grid.at > now && grid.at - now < params.stepMs) grid.at = now;
    const fresh = grid !== null && now - grid.at <= params.site.meterMaxAgeMs && grid.at <= now;
    return {
      v: 1,
      online: true,
      demandA: carried(demand.demandA),
      lines: [...LINES_OF[demand.phases]],
      priority: options.priority,
      arrivedAt: demand.arrivedAt === null ? null : Math.max(0, Math.round(demand.arrivedAt)),
      drawA: [carried(demand.drawA[0]), carried(demand.drawA[1]), carried(demand.drawA[2])],
      gridA: fresh ? [centi(grid.value[0]), centi(grid.value[1]), centi(grid.value[2])] : null,
    };
  };

  const asPeer = (id: string, r: OnlineSiteRecord, receivedAt: number): PeerRecord => ({
    id,
    demandA: r.demandA,
    lines: r.lines,
    priority: r.priority,
    // No vehicle: served last (its demand is 0 anyway).
    arrivedAt: r.arrivedAt ?? Number.MAX_SAFE_INTEGER,
    drawA: r.drawA,
    receivedAt,
    willSeen: false,
  });

  /** The grid reading the allocation uses: this charger's meter, else the latest one a peer published. */
  function gridReading(): Timed<PerLine> | null {
    const own = ownGrid();
    if (own !== null) return own;
    let latest: Timed<PerLine> | null = null;
    for (const g of peerGrid.values()) if (latest === null || g.at > latest.at) latest = g;
    return latest;
  }

  const differs = (a: OnlineSiteRecord, b: OnlineSiteRecord): boolean =>
    a.demandA !== b.demandA ||
    a.priority !== b.priority ||
    a.arrivedAt !== b.arrivedAt ||
    a.lines.join() !== b.lines.join() ||
    (a.gridA === null) !== (b.gridA === null) ||
    a.drawA.some((x, i) => Math.abs(x - b.drawA[i]!) >= CHANGE_A) ||
    (a.gridA !== null && a.gridA.some((x, i) => Math.abs(x - b.gridA![i]!) >= CHANGE_A));

  function publishRecord(now: number, force = false): void {
    if (!client || !connected) return;
    const record = ownRecord(now);
    if (!force && sent && now - sent.at < params.heartbeatMs && !differs(record, sent.record)) return;
    sent = { record, at: now };
    client.publish(recordTopic(siteName, chargerId), encodeRecord(record), { qos: 1, retain: true }, (err) => {
      if (err) logger.debug({ err: err.message }, 'site: record not sent');
    });
  }

  function step(): void {
    if (stopped || !options.enabled) return;
    // The reading first: taken after `now`, it would count as from the future (stale).
    const gridA = gridReading();
    const now = timers.now();
    const all = [...peers.values(), asPeer(chargerId, ownRecord(now), now)];
    const result = allocateSite({ now, limitA: options.limitA, gridA, peers: all, installed: options.installed }, siteParams());
    const silent = [...result.status].some(([id, s]) => id !== chargerId && s === 'silent');
    membership.send({ type: 'PEERS', silent });
    for (const [id, s] of result.status)
      if (id !== chargerId && lastStatus.get(id) !== s) logger.info({ site: options.name, peer: id, status: s }, 'site: peer');
    lastStatus = new Map(result.status);
    for (const [id, s] of result.status) if (s === 'dropped') peers.delete(id);

    const snapshot = membership.getSnapshot();
    computedA = result.shares.get(chargerId) ?? 0;
    if (connected) safeA = result.safeA;
    // The safe share never rises while the broker is lost: the site this charger knew stays the one it is safe in.
    else safeA = Math.min(safeA, result.safeA);
    if (snapshot.hasTag('pause')) applied = { amps: 0, pending: null };
    else if (snapshot.hasTag('safe')) applied = { amps: Math.min(brokerLostShare(applied.amps, safeA), connected ? computedA : Infinity), pending: null };
    else if (snapshot.hasTag('raise')) applied = applyShare(applied, computedA, now, params.site);
    else applied = { amps: Math.min(applied.amps, computedA), pending: null };
    share = { value: [applied.amps, applied.amps, applied.amps], at: now };

    publishRecord(now);
    if (connected && now - lastHeard > params.noticeMs) {
      logger.warn({ site: options.name, quietMs: now - lastHeard }, 'site: nothing heard from the broker, connection counted lost');
      lost();
      client?.stream.destroy();
    }
  }

  function schedule(): void {
    if (stopped) return;
    timer = timers.setTimeout(() => {
      step();
      schedule();
    }, params.stepMs);
  }

  function lost(): void {
    if (!connected) return;
    connected = false;
    membership.send({ type: 'DISCONNECTED' });
  }

  const received = (topic: string, payload: Buffer): void => {
    lastHeard = timers.now();
    const prefix = recordTopic(siteName, '');
    if (!topic.startsWith(prefix)) return;
    const id = topic.slice(prefix.length);
    if (id === '') return;
    const decoded = decodeRecord(payload);
    if (id === chargerId) {
      // The broker published this charger's last will of an earlier connection after the new record: said again.
      if (!('record' in decoded) || !decoded.record.online) publishRecord(timers.now(), true);
      return;
    }
    const now = timers.now();
    if ('cleared' in decoded) {
      // It left on purpose (stopped charging first).
      peers.delete(id);
      peerGrid.delete(id);
      return;
    }
    if ('error' in decoded) {
      if (!refused.has(topic)) logger.warn({ topic, reason: decoded.error }, 'site: a record that is not valid is ignored');
      refused.add(topic);
      return;
    }
    const r = decoded.record;
    if (!r.online) {
      const known = peers.get(id);
      // Unknown (only its will is retained): counted with the most it may draw without the broker, its safe share.
      peers.set(id, known ? { ...known, willSeen: true } : { ...asPeer(id, OFFLINE_DEMAND, now), willSeen: true });
      peerGrid.delete(id);
      return;
    }
    peers.set(id, asPeer(id, r, now));
    if (r.gridA) peerGrid.set(id, { value: r.gridA, at: now });
    else peerGrid.delete(id);
    // At once rather than at the next step: a higher demand or house load lowers this share within the delivery time.
    step();
  };

  async function open(): Promise<void> {
    const mqtt = options.enabled ? mqttOptionsOf(settings) : undefined;
    const key = mqtt ? JSON.stringify([mqtt.url, mqtt.username, mqtt.password, mqtt.clientId, options.name]) : '';
    if (key === openedWith) return;
    await close();
    openedWith = key;
    if (siteName !== options.name) {
      // Another site: what was known of the old one does not count.
      peers.clear();
      peerGrid.clear();
      refused.clear();
      siteName = options.name;
    }
    if (!mqtt) return;
    if (!mqtt.url) {
      logger.warn('site: site sharing is on but no MQTT broker is set (Backend › MQTT): paused until it is');
      return;
    }
    let ca: Buffer | undefined;
    try {
      if (deps.caFile) ca = readFileSync(deps.caFile);
    } catch (err) {
      logger.warn({ file: deps.caFile, err: (err as Error).message }, 'site: the CA file (MQTT_CA_FILE) cannot be read');
      return;
    }
    const lib = await import('mqtt');
    if (openedWith !== key || stopped) return;
    chargerId = chargerIdOf(mqtt.clientId);
    const name = siteName;
    const opts: IClientOptions = {
      clientId: `${mqtt.clientId}-site`,
      ...(mqtt.username ? { username: mqtt.username } : {}),
      ...(mqtt.password ? { password: mqtt.password } : {}),
      protocolVersion: 4,
      clean: true,
      keepalive: params.keepaliveS,
      connectTimeout: params.connectTimeoutMs,
      reconnectPeriod: params.reconnectMs,
      queueQoSZero: false,
      resubscribe: false,
      will: { topic: recordTopic(name, chargerId), payload: Buffer.from(OFFLINE_RECORD), qos: 1, retain: true },
      ...(ca ? { ca } : {}),
    };
    const c = lib.connect(mqtt.url, opts);
    client = c;
    logger.info({ url: mqtt.url, site: name, charger: chargerId }, 'site: connecting');
    c.on('packetreceive', () => {
      if (client === c) lastHeard = timers.now();
    });
    c.on('connect', () => {
      if (client !== c) return;
      connected = true;
      lastHeard = timers.now();
      logger.info({ site: name, charger: chargerId }, 'site: connected');
      c.subscribe(siteFilter(name), { qos: 1 }, (err) => {
        if (err) logger.warn({ err: err.message }, 'site: cannot subscribe');
      });
      publishRecord(timers.now(), true);
      membership.send({ type: 'CONNECTED' });
    });
    c.on('close', () => {
      if (client !== c || !connected) return;
      logger.warn({ site: name }, 'site: connection lost');
      lost();
    });
    c.on('error', (err) => logger.debug({ err: err.message }, 'site: MQTT error'));
    c.on('message', (topic, payload) => {
      if (client === c) received(topic, payload);
    });
  }

  /** Leaves: the record cleared (peers stop counting this charger at once), then the connection ends. */
  async function close(): Promise<void> {
    const c = client;
    client = undefined;
    const wasConnected = connected;
    lost();
    sent = undefined;
    if (!c) return;
    if (wasConnected) await c.publishAsync(recordTopic(siteName, chargerId), '', { qos: 1, retain: true }).catch(() => {});
    await c.endAsync(!wasConnected).catch(() => {});
  }

  let configuring: Promise<void> = Promise.resolve();
  function configure(): void {
    options = siteOptionsOf(settings);
    if (options.enabled && !share) share = { value: [0, 0, 0], at: timers.now() };
    if (!options.enabled) share = null;
    membership.send({ type: 'SITE', on: options.enabled });
    // The close of an old client happens with the options it was opened with: done in order.
    configuring = configuring.then(() => open()).catch((err: Error) => logger.warn({ err: err.message }, 'site: cannot connect'));
    step();
  }

  configure();
  schedule();

  return {
    share: () => (options.enabled ? share : null),
    offer(next) {
      demand = next;
      step();
    },
    configure,
    attach(tree) {
      if (ownsMembership) membership.stop();
      membership = tree;
      ownsMembership = false;
      membership.send({ type: connected ? 'CONNECTED' : 'DISCONNECTED' });
      membership.send({ type: 'SITE', on: options.enabled });
      step();
    },
    state: () => ({
      membership: JSON.stringify(membership.getSnapshot().value),
      connected,
      shareA: options.enabled ? applied.amps : null,
      computedA,
      safeA,
      peers: [...lastStatus].filter(([id]) => id !== chargerId).map(([id, status]) => ({ id, status })),
    }),
    async stop() {
      stopped = true;
      timers.clearTimeout(timer);
      await configuring;
      openedWith = '';
      await close();
      if (ownsMembership) membership.stop();
    },
  };
}

/** The membership actor's input from the link's parameters. */
export const siteMembershipInputOf = (params: Pick<SiteLinkParams, 'membership'>): SiteMembershipInput => ({ params: params.membership });

/** A peer known only by its last will: the most it may draw without the broker is its safe share. */
const OFFLINE_DEMAND: OnlineSiteRecord = { v: 1, online: true, demandA: 1000, lines: [0, 1, 2], priority: 0, arrivedAt: null, drawA: [0, 0, 0], gridA: null };
