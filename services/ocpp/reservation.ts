import { eq } from 'drizzle-orm';
import type { WriteTx } from '../../db/client.js';
import { ocppState } from '../../db/schema.js';
import type { AuthorizationStore } from './authorization.js';
import type { TagQuestion } from './authorize.js';
import type { Availability } from './availability.js';
import type { IncomingCalls, OcppContext } from './context.js';

/** A reservation of the connector (1.6 ReserveNow, 2.0.1 ReserveNow: idToken, groupIdToken), as kept in the database. */
export interface Reservation {
  reservationId: number;
  idTag: string;
  parentIdTag?: string;
  /** Wall-clock ms (the central system's expiryDate). */
  expiresAt: number;
}

/** The answer to ReserveNow, the same in both versions. */
export type ReserveNowStatus = 'Accepted' | 'Faulted' | 'Occupied' | 'Rejected' | 'Unavailable';
/** Why a reservation ended without being used or cancelled (2.0.1 ReservationStatusUpdate): here only its expiry. */
export type ReservationEnd = 'Expired';

const ROW = 'reservation';
const DAY_MS = 86_400_000;

const parse = (value: string): Reservation | undefined => {
  try {
    const r = JSON.parse(value) as Reservation;
    return typeof r.reservationId === 'number' && typeof r.idTag === 'string' && typeof r.expiresAt === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
};

/**
 * The Reservation profile (OCPP 1.6 5.13, 5.2): ReserveNow holds connector 1 for an idTag (or any tag of its
 * parentIdTag) until `expiryDate`; CancelReservation ends it. While it holds, the connector shows `reserved` (spec
 * 2.13's ocppState, StatusNotification Reserved) and the charging service lets only the reservation's tags
 * authorize. The transaction that starts next uses it: its StartTransaction carries the reservationId, in the same
 * write that ends the reservation. Kept in the database, so a restart keeps it; an expired one is dropped at start.
 * Connector 0 is not reservable (ReserveConnectorZeroSupported false: there is one connector). The model is the
 * same for both versions: `question` asks the central system of the version spoken about a tag's parent (group),
 * the 1.6 calls are here, the 2.0.1 ones in ocpp201/reservation.ts over `reserve`/`cancel`/`onEnded`.
 */
export async function createReservations(
  ctx: OcppContext,
  auth: AuthorizationStore,
  availability: Pick<Availability, 'inoperativeScheduled'>,
  question: () => TagQuestion,
) {
  const { database, charging, logger } = ctx;
  const [row] = await database.db.select().from(ocppState).where(eq(ocppState.key, ROW));
  let current: Reservation | undefined = row ? parse(row.value) : undefined;
  let expiry: unknown;
  const endListeners: Array<(reservationId: number, end: ReservationEnd) => void> = [];

  const active = (): Reservation | undefined => (current && current.expiresAt > ctx.now() ? current : undefined);

  /** The parent idTag (2.0.1: group id token) of a tag: the local list, the cache, else the central system's Authorize answer. */
  async function parentOf(idTag: string): Promise<string | undefined> {
    const stored = await auth.parentOf(idTag);
    if (stored !== undefined || !ctx.isAccepted()) return stored;
    try {
      const info = await question().ask(idTag);
      if (ctx.on('OcppAuthorizationCacheEnabled')) await auth.remember(idTag, info);
      return info.status === 'Accepted' ? info.parentIdTag : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether `idTag` may use the connector now: no reservation, its idTag, or a tag of its parentIdTag. */
  async function accepts(idTag: string): Promise<boolean> {
    const r = active();
    if (!r || idTag === r.idTag) return true;
    return r.parentIdTag !== undefined && (await parentOf(idTag)) === r.parentIdTag;
  }

  /** Holds the connector for `current` (or releases it) and arms its expiry on the actor clock. */
  function holdNow(): void {
    if (expiry !== undefined) ctx.cancel(expiry);
    expiry = undefined;
    const r = active();
    charging.setHold(r ? { accepts } : undefined);
    // At most a day ahead (a timer's range is 24.8 days); expire() arms it again until the date has come.
    if (r) expiry = ctx.after(Math.min(r.expiresAt - ctx.now(), DAY_MS), () => ctx.track(expire(r.reservationId)));
  }

  async function keep(next: Reservation | undefined): Promise<void> {
    await database.write(async (tx) => {
      await tx.delete(ocppState).where(eq(ocppState.key, ROW));
      if (next) await tx.insert(ocppState).values({ key: ROW, value: JSON.stringify(next) });
    });
    current = next;
    holdNow();
  }

  async function expire(reservationId: number): Promise<void> {
    if (current?.reservationId !== reservationId) return;
    // The actor clock and the wall clock may part (the wall clock set by NTP or the central system): the date decides.
    if (active()) return holdNow();
    logger.info({ reservationId }, 'OCPP: reservation expired');
    await keep(undefined);
    for (const listener of endListeners) listener(reservationId, 'Expired');
  }

  function refusal(connectorId: number, expiresAt: number, reservationId: number): ReserveNowStatus | undefined {
    const state = charging.coreState();
    if (connectorId !== 1 || !state || !(expiresAt > ctx.now())) return 'Rejected';
    const { ocppState: ocpp, authState } = state.system;
    if (ocpp === 'faulted') return 'Faulted';
    if (ocpp === 'unavailable' || availability.inoperativeScheduled()) return 'Unavailable';
    if (ocpp !== 'available' || authState === 'authorized_for_charging' || state.transaction) return 'Occupied';
    const held = active();
    if (held && held.reservationId !== reservationId) return 'Occupied';
    // Free charging starts a charge for any vehicle without a tag: the connector cannot be held for one tag.
    if (ctx.on('FreeCharging')) return 'Rejected';
    return undefined;
  }

  /** ReserveNow of either version: the connector held for `r` (or the same id replaced), else why not. */
  async function reserve(connectorId: number, r: Reservation): Promise<ReserveNowStatus> {
    const refused = refusal(connectorId, r.expiresAt, r.reservationId);
    if (refused) {
      logger.info({ reservationId: r.reservationId, status: refused }, 'OCPP: ReserveNow refused');
      return refused;
    }
    await keep(r);
    logger.info({ reservationId: r.reservationId, until: new Date(r.expiresAt).toISOString() }, 'OCPP: connector reserved');
    return 'Accepted';
  }

  /** CancelReservation of either version: whether the reservation `reservationId` held the connector and ends. */
  async function cancel(reservationId: number): Promise<boolean> {
    if (current?.reservationId !== reservationId || !active()) return false;
    await keep(undefined);
    logger.info({ reservationId }, 'OCPP: reservation cancelled');
    return true;
  }

  const calls: IncomingCalls = {
    ReserveNow: async (p) => ({
      status: await reserve(p.connectorId, {
        reservationId: p.reservationId,
        idTag: p.idTag,
        ...(p.parentIdTag ? { parentIdTag: p.parentIdTag } : {}),
        expiresAt: Date.parse(p.expiryDate),
      }),
    }),
    CancelReservation: async (p) => ({ status: (await cancel(p.reservationId)) ? 'Accepted' : 'Rejected' }),
  };

  if (current && !active()) await keep(undefined);
  else holdNow();

  return {
    calls,
    reserve,
    cancel,
    accepts,
    /** `listener` learns of each reservation that expired (2.0.1 tells the CSMS; 1.6 has no such message). */
    onEnded(listener: (reservationId: number, end: ReservationEnd) => void): void {
      endListeners.push(listener);
    },
    /**
     * A transaction starts (in its write `tx`): it uses the reservation holding the connector, whose id its
     * StartTransaction carries; the reservation ends in the same write.
     */
    async use(tx: WriteTx): Promise<number | undefined> {
      const r = active();
      if (!r) return undefined;
      await tx.delete(ocppState).where(eq(ocppState.key, ROW));
      current = undefined;
      // The hold goes once the write is in: the transaction is running by then.
      setImmediate(holdNow);
      return r.reservationId;
    },
    close(): void {
      charging.setHold(undefined);
    },
  };
}

export type Reservations = Awaited<ReturnType<typeof createReservations>>;
