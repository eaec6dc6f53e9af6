/**
 * How a soak session (bin/dev/soak-wall.ts) ends its transaction after asking the central system to stop it
 * (RemoteStopTransaction). Pure, so a test can go through each answer.
 *
 * A tag is presented only while the transaction surely runs: a known tag read when none runs is not lost, it
 * authorizes the next plug-in for AuthTimeout (30 s by default) or, with the vehicle still plugged, starts a new
 * transaction. The reader reads a tap on its next search, so the tag reaches the charge point some time after the
 * soak presented it.
 */

/** What ends the transaction: it is `stopped` already, the session's `tag`, or `unplug`ging. */
export type AfterRemoteStop = 'stopped' | 'tag' | 'unplug';

/**
 * The central system's answer to RemoteStopTransaction (`undefined`: none came, the connection dropped with the
 * call) decides:
 * - Accepted: the charge point stops the transaction;
 * - Rejected (the backend id the soak knows is not the running transaction's, e.g. its StartTransaction is still
 *   queued): it still runs, so the session's tag stops it; in a phone's minute the reader would hold the tag for up
 *   to a minute, so unplugging;
 * - no answer: the charge point may have stopped the transaction before the drop (the answer lost with the
 *   connection). A tag presented then arrives after that stop and the soak's unplugging: it authorized the next
 *   session, which started a transaction at plug-in (session 700 of a one-wall run, docs/performance.md).
 *   Unplugging ends the transaction whether or not the stop was done, and authorizes nothing.
 */
export function afterRemoteStop(status: unknown, phoneMinute: boolean): AfterRemoteStop {
  if (status === 'Accepted') return 'stopped';
  if (status === undefined || phoneMinute) return 'unplug';
  return 'tag';
}
