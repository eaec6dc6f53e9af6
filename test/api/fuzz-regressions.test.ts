/**
 * Property-based fuzzing of the REST API through HTTP against one running controller (what every request is checked
 * for: test/api/fuzz/controller.ts): regressions, problems this fuzzing found (now
 * fixed).
 */
import { describe, expect, test } from 'vitest';
import { type HttpResult } from '../harness.js';
import { expectAlive, must, probe, StateGuard, useFuzzController } from './fuzz/controller.js';
import { chars, enc, stringify } from './fuzz/generators.js';

useFuzzController();

// ---------------------------------------------------------------------------------------------------------------
// Regressions: problems this fuzzing found, now fixed
// ---------------------------------------------------------------------------------------------------------------

describe('regressions', () => {
  test('POST /v1/map with two keys that differ only in lone surrogates is refused with 400 (not a 500 from the database)', async () => {
    // Both keys are distinct JavaScript strings but the same text once stored as UTF-8 (U+FFFD), so the insert
    // hits the primary key inside the transaction.
    const guard = await StateGuard.begin();
    await probe({ route: 'map', method: 'POST', path: '/v1/map', body: '{"\\ud800":"a","\\udc00":"b"}', expected: [400] }, guard);
    await expectAlive();
  });

  test('POST /v1/whitelist add with two ids that differ only in lone surrogates is refused with 400 (not a 500 from the database)', async () => {
    const guard = await StateGuard.begin();
    await probe(
      {
        route: 'whitelist',
        method: 'POST',
        path: '/v1/whitelist',
        body: '{"type":"local","command":"add","tags":[{"id":"\\ud800"},{"id":"\\udc00"}]}',
        expected: [400],
      },
      guard,
    );
    await expectAlive();
  });

  /** Text the database would not keep as sent (NUL, lone surrogates) is refused wherever it appears. */
  const roundTrips: { what: string; write: () => Promise<HttpResult> }[] = [
    {
      what: 'map key with NUL',
      write: () => probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ 'nul\u0000key': 'x' }), expected: [400] }),
    },
    {
      what: 'map value with NUL',
      write: () => probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ 'nul-value': '1\u00002' }), expected: [400] }),
    },
    {
      what: 'map value with a lone surrogate',
      write: () => probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ 'lone-value': 'a\ud800' }), expected: [400] }),
    },
    {
      what: 'userName with a lone surrogate',
      write: () => probe({ route: 'users', method: 'POST', path: '/v1/users', body: stringify({ userName: 'a\ud800' }), expected: [400] }),
    },
    {
      what: 'whitelist name with a lone surrogate',
      write: () =>
        probe({
          route: 'whitelist',
          method: 'POST',
          path: '/v1/whitelist',
          body: stringify({ type: 'local', command: 'add', tags: [{ id: 'lone-name', name: 'a\ud800' }] }),
          expected: [400],
        }),
    },
  ];

  test.each(roundTrips)('a $what is refused with 400 (it could not be read back as sent)', async ({ write }) => {
    expect((await write()).status).toBe(400);
  });

  test('DELETE /v1/whitelist counts the ids query in characters: 752 astral characters are within the 1000 limit', async () => {
    // Spec 8: at most 1000 characters including commas. Three ids of 250 astral characters and two commas are
    // 752 characters (1502 UTF-16 code units).
    const ids = ['😀', '𝄞', '🚗'].map((c) => `${c}`.repeat(250));
    await must('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: ids.map((id) => ({ id })) }, 200);
    const query = ids.join(',');
    expect(chars(query)).toBe(752);
    const res = await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${enc(query)}`, expected: [204] });
    if (res.status !== 204) await must('POST', '/v1/whitelist', { type: 'local', command: 'clear' }, 200);
  });

  test.each([
    { what: 'a key path of 20000 characters', route: 'mapKey' as const, method: 'GET', path: `/v1/map/${'k'.repeat(20_000)}` },
    { what: 'an ids query of 20000 characters', route: 'whitelist' as const, method: 'DELETE', path: `/v1/whitelist?type=local&ids=${'i'.repeat(20_000)}` },
  ])('$what is refused with 400 OperationFailed, not 431', async ({ route, method, path }) => {
    // Spec 7.1/8: a too large path or query is a 400 with OperationFailed; Node's header limit (16 KiB) answers 431.
    await probe({ route, method, path, expected: [400] });
    await expectAlive();
  });
});
