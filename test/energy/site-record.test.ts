import { expect, test } from 'vitest';
import { decodeRecord, encodeRecord, OFFLINE_RECORD, type OnlineSiteRecord } from '../../services/energy/site-record.js';

/** The site's record format (docs/energy.md, "Site"): what is accepted, what is refused and why. */

const record: OnlineSiteRecord = { v: 1, online: true, demandA: 16, lines: [0, 1, 2], priority: 0, arrivedAt: 5, drawA: [1, 2, 3], gridA: [-4.5, 10, 0] };
const decode = (text: string) => decodeRecord(Buffer.from(text));

test('a record, the last will and a clear are read; a grid current may be negative (export)', () => {
  expect(decode(encodeRecord(record))).toEqual({ record });
  expect(decode(OFFLINE_RECORD)).toEqual({ record: { v: 1, online: false } });
  expect(decodeRecord(Buffer.alloc(0))).toEqual({ cleared: true });
});

test.each([
  ['not JSON', 'not JSON'],
  ['another version', JSON.stringify({ ...record, v: 2 })],
  ['a negative demand', JSON.stringify({ ...record, demandA: -1 })],
  ['a line twice', JSON.stringify({ ...record, lines: [1, 1] })],
  ['no line', JSON.stringify({ ...record, lines: [] })],
  ['line 3', JSON.stringify({ ...record, lines: [3] })],
  ['a priority out of range', JSON.stringify({ ...record, priority: 10 })],
  ['two draws', JSON.stringify({ ...record, drawA: [1, 2] })],
  ['a draw that is not a number', JSON.stringify({ ...record, drawA: [1, '2', 3] })],
  ['a field missing', JSON.stringify({ ...record, arrivedAt: undefined })],
])('refused: %s', (_why, text) => {
  expect(decode(text)).toHaveProperty('error');
});
