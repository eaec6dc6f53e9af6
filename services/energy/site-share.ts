import { MIN_CHARGE_CURRENT_A } from '../../machines/charge-cycle.js';
import { SITE_MEMBERSHIP_DEFAULTS } from '../../machines/site-membership.js';
import type { PerLine, Timed } from './allocator.js';

/**
 * Several chargers sharing one grid connection with no leader (docs/energy.md, "Site"): every charger publishes its
 * demand (retained, with its last will) and computes the allocation of the whole site from the same inputs, so each
 * arrives at the same shares and none is a master that could fail. Pure: time is `now`, the peers' records are the
 * messages as received.
 *
 * - The allocation (`allocateSite`) depends only on the set of peers and the inputs, never on their order: every
 *   charger that sees the same messages computes the same shares, and the shares never sum above the site limit on
 *   any line (house load and reserved shares of lost peers counted first).
 * - A peer that is silent (no message within `silentMs`) is counted at its last demand; one whose last will arrived
 *   or that stayed silent for `lostMs` is lost: its safe share stays reserved (it may keep charging at its safe
 *   share without the broker for `reserveMs`, `brokerLostShare`) until `lostMs + reserveMs` after its last message,
 *   then it is dropped.
 * - A charger applies a lower share at once and a higher one only after it has been computed for `raiseDelayMs`
 *   without a lower one in between (`applyShare`): the time every peer needs to see the change and its EV to follow.
 */

/** What a charger publishes (retained), as received with the time it arrived. */
export interface PeerRecord {
  /** The charger's id on the site (unique; the last tie-break). */
  id: string;
  /** What it would draw without the site limit (A per phase; 0: no vehicle, or paused by its own limits). */
  demandA: number;
  /** The site's lines it draws on (0 = L1): three phases [0, 1, 2], one phase e.g. [1] (rotated wiring). */
  lines: readonly (0 | 1 | 2)[];
  /** Its priority setting (higher first). */
  priority: number;
  /** When its vehicle arrived (UTC ms; first come, first served among equal priorities). */
  arrivedAt: number;
  /** The current it measures per line (A), for the house load with a grid meter. */
  drawA: PerLine;
  /** When its latest message arrived (UTC ms). */
  receivedAt: number;
  /** Its last will (offline) arrived after that message. */
  willSeen: boolean;
}

export type Fairness = 'equal' | 'inOrder';

export interface SiteParams {
  /** A peer without a message for this long is silent: counted at its last demand (ms). */
  silentMs: number;
  /** A peer silent this long is lost, as after its last will (ms). */
  lostMs: number;
  /** A charger without the broker charges this long at most (ms); its peers reserve its safe share until `lostMs` + this after its last message. */
  reserveMs: number;
  /** A higher share is applied only after it held this long (ms). */
  raiseDelayMs: number;
  /** A grid meter reading older than this is stale (ms). */
  meterMaxAgeMs: number;
  /** `equal`: the current above 6 A is shared equally (max-min fair); `inOrder`: filled in priority order. */
  fairness: Fairness;
}

export const SITE_DEFAULTS: SiteParams = {
  silentMs: 30_000,
  lostMs: 90_000,
  // One value with the membership's: the time a charger without the broker keeps its safe share.
  reserveMs: SITE_MEMBERSHIP_DEFAULTS.reserveMs,
  raiseDelayMs: 7_000,
  meterMaxAgeMs: 15_000,
  fairness: 'equal',
};

/** The smallest and largest site this is built and tested for. */
export const SITE_MIN_CHARGERS = 2;
export const SITE_MAX_CHARGERS = 16;

export interface SiteInput {
  now: number;
  /** The site's limit per line (main fuse or subscribed capacity, A). */
  limitA: PerLine;
  /** The grid connection point's current per line (A), where a grid meter exists; null: none. */
  gridA: Timed<PerLine> | null;
  /** Every charger's latest record, this one's included. */
  peers: readonly PeerRecord[];
  /** The chargers installed on the site (a setting): the safe share counts at least these, seen or not. */
  installed?: number;
}

export type PeerStatus = 'present' | 'silent' | 'lost' | 'dropped';

export interface SiteShare {
  /** Each peer's share (A per phase on its lines): 0 (paused) or from 6 A to its demand. */
  shares: Map<string, number>;
  /** Each peer's status as this charger sees it. */
  status: Map<string, PeerStatus>;
  /** Current held back per line: the house load (grid meter) and the lost peers' reserved safe shares. */
  reservedA: PerLine;
  /** The safe share every charger on this site falls back to without the broker. */
  safeA: number;
  /** A grid meter is configured but its reading is stale: every charger is held at the safe share. */
  meterStale: boolean;
}

/**
 * How a peer is seen at `now`. Dropped only `lostMs + reserveMs` after its last message, its last will or not: a
 * charger cut off from the broker notices within `lostMs` of its last message (its heartbeat and keepalive are
 * shorter) and pauses `reserveMs` after noticing, so its peers never stop reserving its safe share before it pauses.
 */
export function peerStatus(p: PeerRecord, now: number, params: SiteParams = SITE_DEFAULTS): PeerStatus {
  const quiet = now - p.receivedAt;
  if (quiet >= params.lostMs + params.reserveMs) return 'dropped';
  if (p.willSeen || quiet >= params.lostMs) return 'lost';
  return quiet >= params.silentMs ? 'silent' : 'present';
}

const floorTenth = (amps: number): number => Math.floor(amps * 10 + 1e-9) / 10;

/**
 * The safe share: the least line limit divided by the chargers on the site (each counted, present or not), and 0
 * (a pause) when that is below 6 A. Whatever the others do, that many chargers at the safe share stay under the
 * limit; a grid meter's house load, unknown without the broker, is the installer's margin (docs/energy.md).
 */
export function safeShareA(limitA: PerLine, chargers: number): number {
  const share = floorTenth(Math.min(...limitA) / Math.max(1, chargers));
  return share >= MIN_CHARGE_CURRENT_A ? share : 0;
}

/** Peers in the order they are served: priority (higher first), then arrival (first come), then id. */
export function serviceOrder(peers: readonly PeerRecord[]): PeerRecord[] {
  return [...peers].sort((a, b) => b.priority - a.priority || a.arrivedAt - b.arrivedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The whole site's allocation as every charger computes it. */
export function allocateSite(input: SiteInput, params: SiteParams = SITE_DEFAULTS): SiteShare {
  const { now } = input;
  // Sorted first, so that sums run in the same order on every charger (floating point addition is not associative).
  const peers = [...input.peers].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const status = new Map<string, PeerStatus>();
  for (const p of peers) status.set(p.id, peerStatus(p, now, params));
  const counted = peers.filter((p) => status.get(p.id) !== 'dropped');
  const safeA = safeShareA(input.limitA, Math.max(input.installed ?? 0, counted.length));

  const free = [...input.limitA] as [number, number, number];
  const reserved: [number, number, number] = [0, 0, 0];
  const hold = (line: number, amps: number) => {
    free[line]! -= amps;
    reserved[line]! += amps;
  };

  // A lost peer may still charge at its safe share without the broker: reserved, never handed out.
  const lostReserve = (p: PeerRecord, l: 0 | 1 | 2) => (status.get(p.id) === 'lost' && p.lines.includes(l) ? Math.min(p.demandA, safeA) : 0);
  for (const p of counted) if (status.get(p.id) === 'lost') for (const l of p.lines) hold(l, lostReserve(p, l));

  // The house load: the grid's current less what the chargers draw. A lost peer's last draw counts up to its
  // reserve: it is held already (counted twice, its peers would pause); what it draws above, or no longer, is on
  // the safe side (the reserve it left unused is at least what the house load is taken too low).
  const meterStale = input.gridA !== null && !(now - input.gridA.at <= params.meterMaxAgeMs && input.gridA.at <= now);
  if (input.gridA !== null && !meterStale) {
    for (const l of [0, 1, 2] as const) {
      const chargers = counted.reduce((sum, p) => sum + (status.get(p.id) === 'lost' ? Math.min(p.drawA[l], lostReserve(p, l)) : p.drawA[l]), 0);
      hold(l, Math.max(0, input.gridA.value[l] - chargers));
    }
  }

  const shares = new Map<string, number>();
  for (const p of peers) shares.set(p.id, 0);
  const wanting = serviceOrder(counted.filter((p) => status.get(p.id) !== 'lost' && p.demandA >= MIN_CHARGE_CURRENT_A));
  if (meterStale) {
    for (const p of wanting) shares.set(p.id, Math.min(safeA, floorTenth(p.demandA)));
    return { shares, status, reservedA: reserved, safeA, meterStale };
  }

  // First 6 A each, in service order, while every line of the peer has them; the others pause.
  const admitted: PeerRecord[] = [];
  for (const p of wanting) {
    if (p.lines.every((l) => free[l]! >= MIN_CHARGE_CURRENT_A - 1e-9)) {
      for (const l of p.lines) free[l]! -= MIN_CHARGE_CURRENT_A;
      shares.set(p.id, MIN_CHARGE_CURRENT_A);
      admitted.push(p);
    }
  }
  if (params.fairness === 'inOrder') fillInOrder(admitted, shares, free);
  else fillEqually(admitted, shares, free);
  for (const p of admitted) shares.set(p.id, floorTenth(shares.get(p.id)!));
  return { shares, status, reservedA: reserved, safeA, meterStale };
}

/** The rest in service order: each peer up to its demand before the next gets more. */
function fillInOrder(admitted: PeerRecord[], shares: Map<string, number>, free: number[]): void {
  for (const p of admitted) {
    const more = Math.max(0, Math.min(p.demandA - shares.get(p.id)!, ...p.lines.map((l) => free[l]!)));
    shares.set(p.id, shares.get(p.id)! + more);
    for (const l of p.lines) free[l]! -= more;
  }
}

/**
 * The rest shared equally (progressive filling, max-min fair): all unsatisfied peers rise together until one reaches
 * its demand or a line is full; those stop, the others go on.
 */
function fillEqually(admitted: PeerRecord[], shares: Map<string, number>, free: number[]): void {
  let rising = admitted.filter((p) => p.demandA > shares.get(p.id)!);
  while (rising.length) {
    const users = [0, 1, 2].map((l) => rising.filter((p) => p.lines.includes(l as 0 | 1 | 2)).length);
    const byLine = [0, 1, 2].filter((l) => users[l]! > 0).map((l) => free[l]! / users[l]!);
    const byDemand = rising.map((p) => p.demandA - shares.get(p.id)!);
    const step = Math.max(0, Math.min(...byLine, ...byDemand));
    for (const p of rising) shares.set(p.id, shares.get(p.id)! + step);
    for (const l of [0, 1, 2]) free[l]! -= step * users[l]!;
    const full = new Set([0, 1, 2].filter((l) => users[l]! > 0 && free[l]! <= 1e-9));
    rising = rising.filter((p) => p.demandA - shares.get(p.id)! > 1e-9 && !p.lines.some((l) => full.has(l)));
  }
}

/** The share a charger applies, and a higher one waiting to be applied. */
export interface AppliedShare {
  amps: number;
  /** A higher share computed since `since`; `amps` the lowest computed meanwhile. */
  pending: { amps: number; since: number } | null;
}

/**
 * A lower share at once; a higher one once it has been computed for `raiseDelayMs`, and then only as high as the
 * lowest share computed in that time (a dip restarts nothing but caps the raise).
 */
export function applyShare(prev: AppliedShare, computedA: number, now: number, params: Pick<SiteParams, 'raiseDelayMs'> = SITE_DEFAULTS): AppliedShare {
  if (computedA <= prev.amps) return { amps: computedA, pending: null };
  const pending = prev.pending ? { amps: Math.min(prev.pending.amps, computedA), since: prev.pending.since } : { amps: computedA, since: now };
  if (now - pending.since >= params.raiseDelayMs) return { amps: pending.amps, pending: pending.amps < computedA ? { amps: computedA, since: now } : null };
  return { amps: prev.amps, pending };
}

/** Without the broker: the share applied, lowered to the safe share (never raised). */
export function brokerLostShare(applied: number, safeA: number): number {
  return Math.min(applied, safeA);
}
