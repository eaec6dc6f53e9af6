import { randomUUID } from 'node:crypto';
import type { TransactionRecord } from '../services/core/protocol.js';

/** A transaction record as the charge-point core sends it, metered from `startedAt` at `meterWh` on. */
export function txRecord(o: {
  startedAt: number;
  meterWh: number;
  lastWh?: number;
  lastAt?: number;
  maxPowerW?: number;
  tagId?: string;
  userId?: string;
  id?: string;
}): TransactionRecord {
  const record: TransactionRecord = {
    id: o.id ?? randomUUID(),
    startedAt: o.startedAt,
    meterStartWh: o.meterWh,
    meterStartAt: o.startedAt,
    meterLastWh: o.lastWh ?? o.meterWh,
    meterLastAt: o.lastAt ?? o.startedAt,
    maxPowerW: o.maxPowerW ?? 0,
  };
  if (o.tagId !== undefined) record.tagId = o.tagId;
  if (o.userId !== undefined) record.userId = o.userId;
  return record;
}
