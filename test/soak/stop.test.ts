import { describe, expect, test } from 'vitest';
import { afterRemoteStop } from '../../bin/dev/soak-stop.js';

describe("how a soak session ends its transaction after the central system's RemoteStopTransaction", () => {
  test('Accepted: the charge point stopped it, nothing more is done', () => {
    expect(afterRemoteStop('Accepted', false)).toBe('stopped');
    expect(afterRemoteStop('Accepted', true)).toBe('stopped');
  });

  test('Rejected: the transaction still runs, so the tag stops it; in a phone minute, where the reader holds the tag, unplugging', () => {
    expect(afterRemoteStop('Rejected', false)).toBe('tag');
    expect(afterRemoteStop('Rejected', true)).toBe('unplug');
  });

  test('no answer (the connection dropped with the call): the stop may be done, so no tag, which would authorize the next session; unplugging', () => {
    // The cause of "an unknown tag started transaction" at session 700 of a one-wall run (docs/performance.md): the tag
    // presented after a lost answer reached the charge point after the stop and the unplugging, and its authorization,
    // held for AuthTimeout, started the next session's transaction at plug-in.
    expect(afterRemoteStop(undefined, false)).toBe('unplug');
    expect(afterRemoteStop(undefined, true)).toBe('unplug');
  });
});
