/**
 * Property-based fuzzing of the REST API through HTTP against one running controller (what every request is checked
 * for: test/api/fuzz/controller.ts): request bodies.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ROUTES } from './fuzz/spec.js';
import { concretePaths, expectAlive, probe, RUNS, SEED_KEYS, SEED_TAG_IDS, seedUsers, short, StateGuard, useFuzzController } from './fuzz/controller.js';
import { anyValue, GOOD_UNITS, junkBody, objectText, parsedBody, sizedFrom, sizedString, weirdString, wrongType } from './fuzz/generators.js';
import { expectStored, mapExpectation, userBodyVerdict } from './fuzz/oracles.js';

useFuzzController();

// ---------------------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------------------

describe('request bodies', () => {
  test('POST /v1/users: junk bodies and userName of every type and length', async () => {
    const body = fc.oneof(
      junkBody,
      objectText(fc.record({ userName: anyValue })),
      objectText(fc.record({ userName: sizedString })),
      objectText(fc.record({ username: weirdString })),
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        const verdict = userBodyVerdict(raw);
        const expected = verdict === 'valid' ? [201] : verdict === 'invalid' ? [400] : [201, 400];
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'users', method: 'POST', path: '/v1/users', body: raw, expected }, guard);
        if (res.status === 201) {
          // Accepted means stored as sent: the list holds the new user with the name of the request.
          const sent = (parsedBody(raw) as { value: { userName: string } }).value.userName;
          expect(res.json.userName, 'POST /v1/users echoes the name').toBe(sent);
          const stored = guard.users.find((u) => u.userId === res.json.userId);
          expect(stored, `user read back after ${short(JSON.stringify(raw))}`).toEqual({ userId: res.json.userId, userName: sent });
        }
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('PATCH /v1/users/{userId}: junk bodies on existing, missing and malformed ids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('seed', 'seed-upper', 'missing', 'malformed'),
        fc.uuid(),
        fc.oneof(junkBody, objectText(fc.record({ userName: anyValue })), objectText(fc.record({ userName: sizedString }))),
        async (which, uuid, raw) => {
          const id = which === 'seed' ? seedUsers[1]! : which === 'seed-upper' ? seedUsers[1]!.toUpperCase() : which === 'missing' ? uuid : `${uuid}-0`;
          const verdict = userBodyVerdict(raw);
          let expected: number[];
          if (which === 'malformed') expected = [400];
          else if (verdict === 'invalid') expected = which === 'missing' ? [400, 404] : [400];
          else {
            const ok = which === 'seed' ? [200] : which === 'missing' ? [404] : [200, 404];
            expected = verdict === 'valid' ? ok : [400, ...ok];
          }
          const guard = await StateGuard.begin();
          await probe({ route: 'user', method: 'PATCH', path: `/v1/users/${id}`, body: raw, expected }, guard);
          await expectAlive();
        },
      ),
      { numRuns: 100 },
    );
  });

  test('POST /v1/whitelist: junk bodies and commands with wrong-typed or oversized members', async () => {
    const entry = fc.record(
      {
        id: fc.oneof(weirdString, wrongType, fc.constantFrom(...SEED_TAG_IDS), sizedFrom([255, 256], GOOD_UNITS)),
        tagType: fc.oneof(fc.constantFrom('RFID', 'EVCCID', 'NFC', 'rfid', 'BLE', ''), wrongType),
        number: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constantFrom(-1, 2 ** 31, 1.5, '1', 1e308, -0), wrongType),
        name: fc.oneof(weirdString, wrongType, sizedFrom([255, 256], GOOD_UNITS)),
        userid: fc.oneof(fc.uuid(), fc.constant('not-a-uuid'), wrongType, fc.constant(null), weirdString),
        priority: fc.oneof(fc.constantFrom('NORMAL', 'HIGH', 'LOW', 'normal'), wrongType),
      },
      { requiredKeys: [] },
    );
    const command = fc.record(
      {
        type: fc.oneof(fc.constantFrom('local', 'LOCAL', 'ocpp', ''), wrongType),
        command: fc.oneof(fc.constantFrom('add', 'edit', 'clear', 'delete', 'ADD', 'remove', ''), wrongType),
        tags: fc.oneof(fc.array(entry, { maxLength: 3 }), wrongType, weirdString),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(junkBody, objectText(command)), async (raw) => {
        const guard = await StateGuard.begin();
        await probe({ route: 'whitelist', method: 'POST', path: '/v1/whitelist', body: raw }, guard);
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('DELETE /v1/whitelist: junk bodies in the deprecated body form', async () => {
    const body = fc.record(
      {
        type: fc.oneof(fc.constant('local'), weirdString, wrongType),
        command: fc.oneof(fc.constantFrom('delete', 'DELETE', 'clear', ''), wrongType),
        tags: fc.oneof(
          // Always one tag that does not exist, so a valid body deletes nothing.
          fc
            .array(fc.record({ id: fc.oneof(weirdString, wrongType, fc.constantFrom(...SEED_TAG_IDS)) }), { maxLength: 3 })
            .map((t) => [...t, { id: 'no-such-tag' }]),
          wrongType,
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(junkBody, objectText(body)), fc.constantFrom('', '?type=local', '?type=ocpp'), async (raw, query) => {
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist${query}`, body: raw, expected: [400, 404] }, guard);
        expect(res.status).toBeGreaterThanOrEqual(400);
        await expectAlive();
      }),
      { numRuns: RUNS },
    );
  });

  const mapKey: fc.Arbitrary<string> = fc.oneof(
    fc.constantFrom(...SEED_KEYS),
    fc.string({ minLength: 1, maxLength: 12 }),
    weirdString,
    sizedFrom([255, 256, 257], GOOD_UNITS),
    fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', ' ', 'a/b', '%41', '?x=1', '#f'),
  );
  const mapValue: fc.Arbitrary<unknown> = fc.oneof(weirdString, fc.string(), sizedFrom([999, 1000, 1001], GOOD_UNITS), wrongType);
  const mapBody = fc.oneof(junkBody, objectText(fc.dictionary(mapKey, mapValue, { maxKeys: 4 })));

  test('POST /v1/map: junk bodies, wrong-typed values, keys of 256/257 and values of 1000/1001 characters', async () => {
    await fc.assert(
      fc.asyncProperty(mapBody, async (raw) => {
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'map', method: 'POST', path: '/v1/map', body: raw, expected: mapExpectation('POST', raw, guard.pairs) }, guard);
        if (res.status < 300) await expectStored(raw, guard.pairs);
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('PATCH /v1/map: junk bodies, wrong-typed values, keys of 256/257 and values of 1000/1001 characters', async () => {
    await fc.assert(
      fc.asyncProperty(mapBody, async (raw) => {
        const guard = await StateGuard.begin();
        const res = await probe({ route: 'map', method: 'PATCH', path: '/v1/map', body: raw, expected: mapExpectation('PATCH', raw, guard.pairs) }, guard);
        if (res.status < 300) await expectStored(raw, guard.pairs);
        await expectAlive();
      }),
      { numRuns: 100 },
    );
  });

  test('junk bodies and headers on endpoints that take no body', async () => {
    const cases = concretePaths()
      .filter((p) => p.route !== 'logout' && p.route !== 'login')
      .flatMap(({ route, path }) => ['GET', 'DELETE'].filter((m) => ROUTES[route].methods[m]).map((method) => ({ route, path, method })))
      // DELETE on the seed user or key would rightly delete it: only on missing ones.
      .map((c) =>
        c.method !== 'DELETE'
          ? c
          : c.route === 'user'
            ? { ...c, path: '/v1/users/00000000-0000-4000-8000-000000000000' }
            : c.route === 'mapKey'
              ? { ...c, path: '/v1/map/no-such-key' }
              : c,
      )
      .filter((c) => !(c.route === 'whitelist' && c.method === 'DELETE'));
    const contentType = fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      '',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...cases), junkBody, contentType, async (c, raw, type) => {
        const guard = await StateGuard.begin();
        await probe({ ...c, body: raw, headers: { 'content-type': type } }, guard);
        await guard.end();
        await expectAlive();
      }),
      { numRuns: RUNS },
    );
  });

  test('content types other than JSON on the write endpoints', async () => {
    const contentType = fc.constantFrom(
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      '',
      'application/jsonx',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          { route: 'users' as const, method: 'POST', path: '/v1/users', body: '{"userName":"ct"}' },
          { route: 'map' as const, method: 'PATCH', path: '/v1/map', body: '{"no-such-key":"x"}' },
          { route: 'whitelist' as const, method: 'POST', path: '/v1/whitelist', body: '{"type":"local","command":"edit","tags":[{"id":"no-such-tag"}]}' },
        ),
        contentType,
        async (c, type) => {
          const guard = await StateGuard.begin();
          await probe({ ...c, headers: { 'content-type': type } }, guard);
          await expectAlive();
        },
      ),
      { numRuns: 50 },
    );
  });
});
