import type { StorageState } from '../db/storage.js';
import type { EventLog } from './events.js';

/**
 * Says once when the data directory's file system fills up and once when it has room again (the event log, which
 * logs each event as it happens and stores it when it can), so a full disk gives two lines, not one per request.
 * What the full disk refuses meanwhile: API writes (507, nothing changed; api/errors.ts); transaction effects are
 * held and stored later (services/transaction-writer.ts); events are kept in memory up to MAX_PENDING_EVENTS.
 */
export function watchStorage(deps: { storage: StorageState; events: Pick<EventLog, 'record'>; now: () => number }): () => void {
  let since = 0;
  return deps.storage.onChange((full) => {
    if (full) {
      since = deps.now();
      deps.events.record({ kind: 'storage_full' });
    } else deps.events.record({ kind: 'storage_writable', fullForS: Math.round((deps.now() - since) / 1000) });
  });
}
