import { and, asc, desc, gte, lte, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { energyDays, transactionDays, transactions } from '../db/schema.js';
import { localDay } from './energy/today.js';
import { invalid } from './errors.js';
import { systemTimeZone } from './time-zone.js';
import { completedIn } from './transactions.js';

/**
 * The energy history by local day or month (GET /v1/energy/history, docs/api-overview.md): the completed transactions
 * by the local day of their start, with their count and energy (billed figures, as GET /v1/transactions), and where
 * energy management kept them the energy into the vehicle by origin (solar, grid: shown, never billed). Days are the
 * controller's time zone's, as the schedules' and the dashboard's.
 */

export const HISTORY_BY = ['day', 'month'] as const;
export type HistoryBy = (typeof HISTORY_BY)[number];
/** The longest range one request covers: a year of days, ten years of months (the rows read stay bounded). */
export const MAX_PERIODS: Record<HistoryBy, number> = { day: 366, month: 120 };

export interface HistoryPeriod {
  /** YYYY-MM-DD or YYYY-MM. */
  period: string;
  transactionCount: number;
  consumptionWh: number;
  /** By origin, where energy management recorded it for the period (null: nothing recorded). */
  solarWh: number | null;
  gridWh: number | null;
}

export interface EnergyHistoryView {
  by: HistoryBy;
  from: string;
  to: string;
  timeZone: string;
  /** Every period of the range, oldest first, empty ones included (a chart's axis). */
  periods: HistoryPeriod[];
  consumptionWh: number;
  /** Every completed transaction's energy ever (the history's running total). */
  lifetimeWh: number;
}

const DAY_MS = 86_400_000;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;

/** The periods from `from` to `to` inclusive, or a 400 naming what is wrong. */
export function periodsOf(by: HistoryBy, from: string, to: string): string[] {
  const pattern = by === 'day' ? DAY : MONTH;
  const shape = by === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM';
  const start = pattern.exec(from);
  const end = pattern.exec(to);
  if (!start || !end) throw invalid(`The query is invalid: from and to must be ${shape} by ${by}`);
  const utc = (m: RegExpExecArray) => Date.UTC(Number(m[1]), Number(m[2]) - 1, by === 'day' ? Number(m[3]) : 1);
  const first = new Date(utc(start));
  const last = new Date(utc(end));
  const format = (d: Date) => d.toISOString().slice(0, by === 'day' ? 10 : 7);
  if (format(first) !== from || format(last) !== to) throw invalid(`The query is invalid: ${format(first) !== from ? from : to} is not a date`);
  if (first > last) throw invalid('The query is invalid: from is later than to');
  const out: string[] = [];
  for (const d = first; d <= last; by === 'day' ? d.setUTCDate(d.getUTCDate() + 1) : d.setUTCMonth(d.getUTCMonth() + 1)) {
    if (out.length === MAX_PERIODS[by]) throw invalid(`The query is invalid: at most ${MAX_PERIODS[by]} ${by}s at a time`);
    out.push(format(d));
  }
  return out;
}

/** `timeZone`: the controller's as it is now (the TimeZone setting, services/time-zone.ts). */
export function createEnergyHistory(database: Database, options: { timeZone?: (() => string) | undefined } = {}) {
  const zone = options.timeZone ?? systemTimeZone;
  return {
    timeZone: zone,
    async read(by: HistoryBy, from: string, to: string): Promise<EnergyHistoryView> {
      const timeZone = zone();
      const periods = periodsOf(by, from, to);
      const firstDay = by === 'day' ? from : `${from}-01`;
      const lastDay = by === 'day' ? to : `${to}-31`;
      // Starts a day either side of the UTC days (every time zone is within 14 h of UTC), then by local day.
      const range = { from: Date.parse(`${firstDay}T00:00:00Z`) - DAY_MS, to: Date.parse(`${lastDay.slice(0, 7)}-01T00:00:00Z`) + 33 * DAY_MS };
      const rows = await database.db
        .select({ startedAt: transactions.startedAt, wh: sql<number>`max(0, ${transactions.meterLastWh} - ${transactions.meterStartWh})` })
        .from(transactions)
        .where(completedIn(range));
      const byPeriod = new Map<string, HistoryPeriod>(
        periods.map((period) => [period, { period, transactionCount: 0, consumptionWh: 0, solarWh: null, gridWh: null }]),
      );
      const periodOf = (day: string) => (by === 'day' ? day : day.slice(0, 7));
      for (const row of rows) {
        const p = byPeriod.get(periodOf(localDay(row.startedAt, timeZone)));
        if (!p) continue;
        p.transactionCount++;
        p.consumptionWh += row.wh;
      }
      const origins = await database.db
        .select()
        .from(energyDays)
        .where(and(gte(energyDays.day, firstDay), lte(energyDays.day, lastDay)))
        .orderBy(asc(energyDays.day));
      const byOrigin = new Map<string, { solarWh: number; gridWh: number }>();
      for (const o of origins) {
        const period = periodOf(o.day);
        const sum = byOrigin.get(period) ?? { solarWh: 0, gridWh: 0 };
        byOrigin.set(period, { solarWh: sum.solarWh + o.solarWh, gridWh: sum.gridWh + o.gridWh });
      }
      for (const [period, sum] of byOrigin) {
        const p = byPeriod.get(period);
        if (p) Object.assign(p, { solarWh: Math.round(sum.solarWh), gridWh: Math.round(sum.gridWh) });
      }
      const [latest] = await database.db
        .select({ total: transactionDays.totalConsumptionWh })
        .from(transactionDays)
        .orderBy(desc(transactionDays.day))
        .limit(1);
      const list = [...byPeriod.values()];
      return { by, from, to, timeZone, periods: list, consumptionWh: list.reduce((n, p) => n + p.consumptionWh, 0), lifetimeWh: latest?.total ?? 0 };
    },
  };
}

export type EnergyHistory = ReturnType<typeof createEnergyHistory>;
