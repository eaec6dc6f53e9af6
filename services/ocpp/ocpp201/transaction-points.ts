import { eq } from 'drizzle-orm';
import type { Database, WriteTx } from '../../../db/client.js';
import { ocppState } from '../../../db/schema.js';

/**
 * TxCtrlr TxStartPoint and TxStopPoint (E01, E06): when the OCPP 2.0.1 transaction starts and ends beside the charge
 * cycle's own transaction (started when the vehicle is connected AND authorized, ended when either is lost). The
 * points this controller can detect: the cable (EVConnected), an authorization (Authorized), both (PowerPathClosed),
 * energy flowing (EnergyTransfer, start only). No parking bay sensor (ParkingBayOccupancy) and no signing meter
 * (DataSigned): those are refused.
 */
export const TX_START_POINTS = ['EVConnected', 'Authorized', 'PowerPathClosed', 'EnergyTransfer'] as const;
/**
 * EnergyTransfer is no stop point here: it would end the transaction at every pause (the EV's or load management's),
 * while the charge cycle's transaction goes on and resumes.
 */
export const TX_STOP_POINTS = ['EVConnected', 'Authorized', 'PowerPathClosed'] as const;
/** The default of both: the 2.0.1 transaction is the charge cycle's. */
export const DEFAULT_TX_POINT = 'PowerPathClosed';

/** A MemberList of points: one or more of `supported`, none twice (undefined: refused). */
export const checkPoints =
  (supported: readonly string[]) =>
  (raw: string): string | undefined => {
    const items = raw.split(',');
    return raw !== '' && items.every((i) => supported.includes(i)) && new Set(items).size === items.length ? raw : undefined;
  };

export const pointsOf = (raw: string | undefined): string[] => (raw || DEFAULT_TX_POINT).split(',');

/** The start points reached at the moment the charge cycle starts its transaction (connected AND authorized). */
export const startsWithCore = (start: readonly string[]) => start.some((p) => p !== 'EnergyTransfer');

/** Reasons the charge cycle ends a transaction for that end the 2.0.1 transaction whatever its stop point. */
const ALWAYS_ENDS = new Set(['EVDisconnected', 'PowerLoss', 'Reboot', 'HardReset', 'SoftReset', 'EmergencyStop', 'UnlockCommand']);

/**
 * Whether the end of the charge cycle's transaction (`reason`) is the 2.0.1 transaction's stop point too. With
 * Authorized or PowerPathClosed among the stop points it always is (either condition lost); with EVConnected alone a
 * deauthorization (the session's tag, a remote stop, an id not accepted) only ends charging: the transaction ends
 * when the cable is unplugged (E06), at once if it already is.
 */
export function endsWithCore(stop: readonly string[], reason: string, connected: boolean): boolean {
  return !connected || stop.includes('Authorized') || stop.includes('PowerPathClosed') || ALWAYS_ENDS.has(reason);
}

/** The OCPP 2.0.1 transaction open now, as kept in `ocpp_state` (it survives a restart to be ended at the next start). */
export interface Transaction201 {
  /** Its transactionId: the charge cycle's id when it started with it, the station's own (a UUID) when before. */
  id: string;
  startedAt: number;
  /** The charge cycle's transaction that runs in it now (the mapping RequestStopTransaction and the queue use). */
  core?: string | undefined;
  /** Authorized (an idToken was sent) since its start or the last deauthorization. */
  authorized: boolean;
  /** The register at its start and the latest known (Wh). */
  beginWh: number | null;
  lastWh: number | null;
  /** The stop points in force when it started (a change applies to the next transaction). */
  stop: string[];
  /** Why charging was stopped while the transaction waits for its stop point (the Ended's stoppedReason). */
  stopReason?: string | undefined;
}

const ROW = 'tx201:open';

export async function loadOpenTransaction(database: Database): Promise<Transaction201 | undefined> {
  const [row] = await database.db.select().from(ocppState).where(eq(ocppState.key, ROW));
  return row ? (JSON.parse(row.value) as Transaction201) : undefined;
}

/** Keeps the open transaction (undefined: none), in the write that queues its event. */
export async function saveOpenTransaction(tx: WriteTx, open: Transaction201 | undefined): Promise<void> {
  if (!open) {
    await tx.delete(ocppState).where(eq(ocppState.key, ROW));
    return;
  }
  const value = JSON.stringify(open);
  await tx.insert(ocppState).values({ key: ROW, value }).onConflictDoUpdate({ target: ocppState.key, set: { value } });
}
