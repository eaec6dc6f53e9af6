import type { OcppContext } from '../context.js';
import type { Reservations } from '../reservation.js';
import { CONNECTOR_ID, EVSE_ID, type IncomingCalls201 } from './calls.js';

/** The connector types a reservation for this station's Type 2 outlet may name (and the CSMS's "don't know"). */
const OUR_CONNECTOR_TYPES: ReadonlySet<string> = new Set(['cType2', 'sType2', 'Undetermined', 'Unknown']);

/**
 * H01–H04 Reservation over the shared model (reservation.ts, the one the 1.6 charge point uses): ReserveNow holds
 * EVSE 1 (or any EVSE, evseId absent) for an idToken, or any token of its groupIdToken, until expiryDateTime;
 * CancelReservation ends it; an expired one is told with ReservationStatusUpdate Expired. The token's
 * TransactionEvent Started carries the reservationId (transaction-events.ts, through the model's `use`).
 */
export function reservationCalls201(ctx: OcppContext, reservations: Reservations): IncomingCalls201 {
  reservations.onEnded((reservationId, end) => {
    if (!ctx.isAccepted()) return;
    ctx.fire(
      ctx.call('ReservationStatusUpdate', { reservationId, reservationUpdateStatus: end }).then(
        () => undefined,
        (err: unknown) => ctx.logger.warn({ err, reservationId }, 'OCPP: ReservationStatusUpdate not delivered'),
      ),
    );
  });

  return {
    ReserveNow: async (p) => {
      const ours = (p.evseId === undefined || p.evseId === EVSE_ID) && (p.connectorType === undefined || OUR_CONNECTOR_TYPES.has(p.connectorType));
      const status = await reservations.reserve(ours ? CONNECTOR_ID : -1, {
        reservationId: p.id,
        idTag: p.idToken.idToken,
        ...(p.groupIdToken ? { parentIdTag: p.groupIdToken.idToken } : {}),
        expiresAt: Date.parse(p.expiryDateTime),
      });
      return { status };
    },
    CancelReservation: async (p) => ({ status: (await reservations.cancel(p.reservationId)) ? 'Accepted' : 'Rejected' }),
  };
}
