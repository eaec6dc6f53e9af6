import * as v from 'valibot';
import { expect, test } from 'vitest';
import { FromCoreSchema } from '../../services/core/protocol.js';

/**
 * The events the core reports for the event log cross the thread boundary as checked messages: the main thread
 * takes only the fields each kind has (so nothing else, a secret included, can ride along) and the reasons the
 * charge cycle gives.
 */

const event = (e: object) => ({ type: 'event', at: 1_780_300_800_000, event: e });

test('tag outcomes and faults are accepted as the charge cycle reports them', () => {
  for (const e of [
    { kind: 'tag_accepted', tagId: '04A1B2C3', userId: '3f0e8f9a-8c1e-4c5e-9a53-0d9b2a7c1e11', outcome: 'authorized' },
    { kind: 'tag_refused', tagId: 'DEADBEEF', reason: 'unknown' },
    { kind: 'tag_ignored', tagId: '0A0B0C0D' },
    { kind: 'fault_raised', code: 'CP_STATE_E', severity: 'ERROR' },
    { kind: 'fault_cleared', code: 'METER_NOT_RESPONDING', severity: 'WARNING' },
  ]) {
    expect(v.safeParse(FromCoreSchema, event(e)).success, JSON.stringify(e)).toBe(true);
  }
});

test.each<[string, object]>([
  ['an unknown kind', event({ kind: 'password_changed', username: 'x' })],
  ['a field the kind does not have', event({ kind: 'tag_refused', tagId: 'DEADBEEF', reason: 'unknown', password: 'secret' })],
  ['a reason the charge cycle does not give', event({ kind: 'tag_refused', tagId: 'DEADBEEF', reason: 'whitelist-off' })],
  ['a tag id longer than a whitelist id', event({ kind: 'tag_ignored', tagId: 'A'.repeat(256) })],
  ['no time', { type: 'event', event: { kind: 'tag_ignored', tagId: 'A' } }],
])('refuses %s', (_what, message) => {
  expect(v.safeParse(FromCoreSchema, message).success).toBe(false);
});
