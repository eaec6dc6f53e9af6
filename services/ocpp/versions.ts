import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ocppState } from '../../db/schema.js';
import { OCPP_PROTOCOLS, type OcppProtocol } from './rpc-library.js';

/** OcppVersions (`ocpp2.0.1,ocpp1.6`): the versions offered to the central system, in order of preference. */
export function offeredProtocols(setting: string): OcppProtocol[] {
  const offered = setting
    .split(',')
    .map((p) => p.trim())
    .filter((p): p is OcppProtocol => (OCPP_PROTOCOLS as readonly string[]).includes(p));
  return offered.length ? [...new Set(offered)] : ['ocpp1.6'];
}

/**
 * The version the controller speaks: the one the central system picked at the last connection, kept in the database
 * (the offline queue and ocppState follow it across restarts); before any connection, the first offered.
 */
export async function createVersionState(database: Database, offered: readonly OcppProtocol[]) {
  const [row] = await database.db.select().from(ocppState).where(eq(ocppState.key, 'protocol'));
  let stored = row?.value;
  let speaking: OcppProtocol = stored && (offered as readonly string[]).includes(stored) ? (stored as OcppProtocol) : (offered[0] ?? 'ocpp1.6');
  return {
    offered,
    speaking: () => speaking,
    /** A connection opened speaking `protocol`. */
    async negotiated(protocol: OcppProtocol): Promise<void> {
      speaking = protocol;
      if (stored === protocol) return;
      stored = protocol;
      await database.write((tx) =>
        tx
          .insert(ocppState)
          .values({ key: 'protocol', value: protocol })
          .onConflictDoUpdate({ target: ocppState.key, set: { value: protocol } }),
      );
    },
  };
}

export type VersionState = Awaited<ReturnType<typeof createVersionState>>;
