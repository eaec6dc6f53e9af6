/**
 * The soak's reconciliation (bin/dev/soak.ts): what the soak drove, the controller stored, the central system received
 * and MQTT published, checked against each other. Pure, so a test can feed it a missing or doubled session.
 *
 * "Exactly once" across a SIGKILL: the killed process's transaction is completed at the next start with its last
 * checkpoint (reason PowerLoss, docs/charging.md), as a real charger that lost power does. So a killed session is one
 * completed transaction in the database and one Start/Stop pair at the central system with that same energy; the
 * energy delivered after its last checkpoint is lost to billing (reported, bounded by the checkpoint interval), never
 * counted twice. A Start sent again because its answer was lost with the connection (OCPP 1.6 has no message ids that
 * outlive a connection) is a retransmission: the same timestamp, tag and register, counted once and reported.
 */

/** One session as the soak drove it. */
export interface DrivenSession {
  index: number;
  /** The controller's transaction id (null: the session was to start none, e.g. an unknown tag alone). */
  transactionId: string | null;
  /** Energy the simulated meter delivered (Wh, its register's difference); for a killed session up to the kill. */
  deliveredWh: number;
  killed: boolean;
}

/** A completed or open transaction from /v1/transactions (or the database). */
export interface StoredTransaction {
  transactionId: string;
  backendTransactionId?: string;
  consumption: number;
}

export interface CsmsStart {
  transactionId: number;
  /** The charge point that sent it (set by mergeRecords: two walls may start alike in the same millisecond). */
  point?: string;
  idTag: string;
  timestamp: string;
  meterStart: number;
}

export interface CsmsStop {
  transactionId: number;
  meterStop: number;
  reason?: string;
}

export interface SoakRecord {
  sessions: DrivenSession[];
  transactions: StoredTransaction[];
  starts: CsmsStart[];
  stops: CsmsStop[];
  /** Session energy published over MQTT, by the controller's transaction id (sessions the observer saw end). */
  mqttWh: Map<string, number>;
  /** Transactions left open in the database at the end. */
  openTransactions: number;
  /** Messages left in the OCPP queue at the end. */
  queued: number;
  /** `PRAGMA integrity_check`'s answer after each kill (and at the end). */
  integrity: string[];
}

export interface Reconciliation {
  failures: string[];
  figures: Array<{ figure: string; measured: string }>;
}

/** Per session the tolerance of energies compared (the meter's register is read in whole Wh at both ends). */
export const TOLERANCE_WH = 1;

const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);

export function reconcile(r: SoakRecord): Reconciliation {
  const failures: string[] = [];
  const fail = (what: string) => {
    if (failures.length < 50) failures.push(what);
    else if (failures.length === 50) failures.push('… more');
  };

  // The database: every session's transaction exactly once, nothing else.
  const stored = new Map<string, StoredTransaction>();
  for (const t of r.transactions) {
    if (stored.has(t.transactionId)) fail(`transaction ${t.transactionId} listed twice`);
    stored.set(t.transactionId, t);
  }
  const expected = r.sessions.filter((s) => s.transactionId !== null);
  const driven = new Set<string>();
  for (const s of expected) {
    if (driven.has(s.transactionId!)) fail(`session ${s.index}: transaction ${s.transactionId} driven twice`);
    driven.add(s.transactionId!);
    if (!stored.has(s.transactionId!)) fail(`session ${s.index}: transaction ${s.transactionId} missing from /v1/transactions`);
  }
  for (const t of r.transactions) if (!driven.has(t.transactionId)) fail(`transaction ${t.transactionId} in /v1/transactions belongs to no session`);

  // The central system: Starts grouped by their content (a retransmission repeats it), each with one Stop.
  const groups = new Map<string, CsmsStart[]>();
  for (const s of r.starts) {
    const key = `${s.point ?? ''}|${s.idTag}|${s.timestamp}|${s.meterStart}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const startById = new Map(r.starts.map((s) => [s.transactionId, s]));
  const groupOf = new Map<number, string>();
  for (const [key, starts] of groups) for (const s of starts) groupOf.set(s.transactionId, key);
  const stopsByGroup = new Map<string, CsmsStop[]>();
  for (const stop of r.stops) {
    const key = groupOf.get(stop.transactionId);
    if (key === undefined) {
      fail(`StopTransaction for ${stop.transactionId}, which no StartTransaction got`);
      continue;
    }
    stopsByGroup.set(key, [...(stopsByGroup.get(key) ?? []), stop]);
  }
  for (const [key, stops] of stopsByGroup) {
    const distinct = new Set(stops.map((s) => `${s.transactionId}|${s.meterStop}`));
    if (distinct.size > 1) fail(`central system: ${distinct.size} different StopTransactions for one transaction (${key})`);
  }
  for (const [key] of groups) if (!stopsByGroup.has(key)) fail(`central system: a StartTransaction without a Stop (${key})`);

  // Energies: database = central system = MQTT = the simulated meter (within TOLERANCE_WH per session).
  let csmsWh = 0;
  let dbWh = 0;
  let deliveredWh = 0;
  let lostToKillsWh = 0;
  let mqttSeen = 0;
  for (const s of expected) {
    const t = stored.get(s.transactionId!);
    if (!t) continue;
    dbWh += t.consumption;
    if (!Number.isNaN(s.deliveredWh)) deliveredWh += s.deliveredWh;
    const id = Number(t.backendTransactionId);
    const start = startById.get(id);
    const stop = start ? stopsByGroup.get(groupOf.get(id)!)?.[0] : undefined;
    if (!start || !stop) fail(`session ${s.index}: no Start/Stop pair at the central system (backend id ${t.backendTransactionId ?? 'none'})`);
    else {
      const wh = stop.meterStop - start.meterStart;
      csmsWh += wh;
      if (wh !== t.consumption) fail(`session ${s.index}: central system ${wh} Wh, database ${t.consumption} Wh`);
    }
    if (s.killed && Number.isNaN(s.deliveredWh)) {
      // The process ended itself (not a planned kill): what the meter delivered at the end is not known.
    } else if (s.killed) {
      // Billed up to the last checkpoint: never more than delivered.
      if (t.consumption > s.deliveredWh + TOLERANCE_WH)
        fail(`session ${s.index} (killed): billed ${t.consumption} Wh of ${s.deliveredWh.toFixed(1)} Wh delivered`);
      lostToKillsWh += Math.max(0, s.deliveredWh - t.consumption);
    } else if (Math.abs(t.consumption - s.deliveredWh) > TOLERANCE_WH)
      fail(`session ${s.index}: database ${t.consumption} Wh, the simulated meter delivered ${s.deliveredWh.toFixed(1)} Wh`);
    const mqtt = r.mqttWh.get(s.transactionId!);
    if (mqtt !== undefined) {
      mqttSeen++;
      if (Math.abs(mqtt - t.consumption) > TOLERANCE_WH) fail(`session ${s.index}: MQTT ${mqtt} Wh, database ${t.consumption} Wh`);
    }
  }

  if (r.openTransactions !== 0) fail(`${r.openTransactions} transactions left open`);
  if (r.queued !== 0) fail(`${r.queued} messages left in the OCPP queue`);
  const corrupt = r.integrity.filter((answer) => answer !== 'ok');
  if (corrupt.length > 0) fail(`integrity_check: ${corrupt.length} of ${r.integrity.length} not ok (${corrupt[0]})`);

  const retransmitted = r.starts.length - groups.size;
  const mqttTotal = sum([...r.mqttWh.values()]);
  return {
    failures,
    figures: [
      {
        figure: 'sessions driven / with a transaction / killed',
        measured: `${r.sessions.length} / ${expected.length} / ${r.sessions.filter((s) => s.killed).length}`,
      },
      { figure: 'transactions in /v1/transactions', measured: String(r.transactions.length) },
      { figure: 'central system: StartTransaction (retransmitted) / StopTransaction', measured: `${r.starts.length} (${retransmitted}) / ${r.stops.length}` },
      { figure: 'energy: simulated meter / database / central system (Wh)', measured: `${deliveredWh.toFixed(0)} / ${dbWh} / ${csmsWh}` },
      { figure: 'energy delivered after the last checkpoint of killed sessions (not billed)', measured: `${lostToKillsWh.toFixed(0)} Wh` },
      { figure: 'MQTT: sessions seen ending / their energy (Wh)', measured: `${mqttSeen} of ${expected.length} / ${mqttTotal}` },
      { figure: 'open transactions / OCPP queue at the end', measured: `${r.openTransactions} / ${r.queued}` },
      { figure: 'integrity_check after each kill and at the end', measured: `${r.integrity.length - corrupt.length} of ${r.integrity.length} ok` },
    ],
  };
}

/**
 * The walls' records as one (the soak's total): the controllers' transaction ids prefixed with the wall's number (each
 * controller counts its own), the central system's backend ids kept (unique over every charge point), each Start
 * marked with its wall (a retransmission is the same charge point's).
 */
export function mergeRecords(records: SoakRecord[]): SoakRecord {
  const id = (wall: number, transactionId: string) => `${wall}:${transactionId}`;
  return {
    sessions: records.flatMap((r, w) => r.sessions.map((s) => ({ ...s, transactionId: s.transactionId === null ? null : id(w, s.transactionId) }))),
    transactions: records.flatMap((r, w) => r.transactions.map((t) => ({ ...t, transactionId: id(w, t.transactionId) }))),
    starts: records.flatMap((r, w) => r.starts.map((s) => ({ ...s, point: String(w) }))),
    stops: records.flatMap((r) => r.stops),
    mqttWh: new Map(records.flatMap((r, w) => [...r.mqttWh].map(([t, wh]) => [id(w, t), wh] as const))),
    openTransactions: records.reduce((a, r) => a + r.openTransactions, 0),
    queued: records.reduce((a, r) => a + r.queued, 0),
    integrity: records.flatMap((r) => r.integrity),
  };
}
