import { like } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ocppState } from '../../db/schema.js';

/**
 * OCPP 1.6 configuration keys that only the central system sets and only the OCPP side uses (no setting of the web
 * interface means the same): kept in `ocpp_state` (`config:<Key>`), so a change survives a restart.
 */

/** Measurands this charge point can send (Current.Import and Voltage per phase). */
export const SUPPORTED_MEASURANDS = [
  'Energy.Active.Import.Register',
  'Power.Active.Import',
  'Current.Import',
  'Voltage',
  'Temperature',
  'Current.Offered',
  'Power.Offered',
] as const;
export type Measurand = (typeof SUPPORTED_MEASURANDS)[number];
/** StopTransaction's transactionData can carry the register at the transaction's start and end (what is stored). */
const STOP_TX_MEASURANDS: readonly string[] = ['Energy.Active.Import.Register'];

const csl = (raw: string) => (raw.trim() === '' ? [] : raw.split(',').map((s) => s.trim()));

/** A comma-separated list whose items all come from `allowed` (each at most once); normalised, or undefined. */
const measurandList = (allowed: readonly string[]) => (raw: string) => {
  const items = csl(raw);
  if (items.some((m) => !allowed.includes(m)) || new Set(items).size !== items.length) return undefined;
  return items.join(',');
};

/** ConnectorPhaseRotation: NotApplicable, Unknown, or `<connector>.<rotation>` items (connectors 0 and 1). */
const ROTATION = /^(NotApplicable|Unknown|RST|RTS|SRT|STR|TRS|TSR)$/;
const phaseRotation = (raw: string) => {
  const items = csl(raw);
  if (items.length === 0 || items.length > 2) return undefined;
  const ok = items.every((item) => {
    const m = /^(?:([01])\.)?(.+)$/.exec(item);
    return m !== null && ROTATION.test(m[2]!) && (items.length === 1 || m[1] !== undefined);
  });
  return ok ? items.join(',') : undefined;
};

/** A boolean this charge point supports only one way: the other value is Rejected. */
const only = (value: 'true' | 'false') => (raw: string) => (raw.toLowerCase() === value ? value : undefined);

export interface StoredKey {
  default: string;
  /** The value to store (normalised), or undefined: Rejected. */
  check(raw: string): string | undefined;
}

export const STORED_KEYS: Record<string, StoredKey> = {
  MeterValuesSampledData: {
    default: 'Energy.Active.Import.Register,Power.Active.Import,Current.Import,Temperature',
    check: measurandList(SUPPORTED_MEASURANDS),
  },
  MeterValuesAlignedData: {
    default: 'Energy.Active.Import.Register,Power.Active.Import,Current.Import,Temperature',
    check: measurandList(SUPPORTED_MEASURANDS),
  },
  StopTxnSampledData: { default: 'Energy.Active.Import.Register', check: measurandList(STOP_TX_MEASURANDS) },
  // Clock-aligned values are not collected into StopTransaction: only the empty list.
  StopTxnAlignedData: { default: '', check: measurandList([]) },
  // The transaction always ends, and the cable is released, when the EV is unplugged.
  StopTransactionOnEVSideDisconnect: { default: 'true', check: only('true') },
  UnlockConnectorOnEVSideDisconnect: { default: 'true', check: only('true') },
  ConnectorPhaseRotation: { default: 'NotApplicable', check: phaseRotation },
};

/** The longest lists the measurand keys take (the read-only `…MaxLength` keys). */
export const MEASURAND_MAX_LENGTH = SUPPORTED_MEASURANDS.length;

const ROW = 'config:';

/**
 * The stored keys' values (defaults where none was set), loaded at start; `set` writes through. `keys` and `row`: another
 * set of keys in its own rows (the OCPP 2.0.1 device model's variables without a setting).
 */
export async function loadStoredKeys(database: Database, keys: Record<string, StoredKey> = STORED_KEYS, row: string = ROW) {
  const values = new Map<string, string>(Object.entries(keys).map(([key, k]) => [key, k.default]));
  for (const stored of await database.db
    .select()
    .from(ocppState)
    .where(like(ocppState.key, `${row}%`))) {
    const key = stored.key.slice(row.length);
    if (key in keys) values.set(key, stored.value);
  }
  return {
    get: (key: string): string | undefined => values.get(key),
    /** The measurands of a list key. */
    measurands: (key: 'MeterValuesSampledData' | 'MeterValuesAlignedData' | 'StopTxnSampledData'): Measurand[] => csl(values.get(key) ?? '') as Measurand[],
    /** Checks and stores a value; false: Rejected. */
    async set(key: string, raw: string): Promise<boolean> {
      const value = keys[key]?.check(raw);
      if (value === undefined) return false;
      await database.write((tx) =>
        tx
          .insert(ocppState)
          .values({ key: row + key, value })
          .onConflictDoUpdate({ target: ocppState.key, set: { value } }),
      );
      values.set(key, value);
      return true;
    },
  };
}

export type StoredKeys = Awaited<ReturnType<typeof loadStoredKeys>>;
