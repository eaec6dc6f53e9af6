/**
 * Property-based fuzzing of the REST API through HTTP against one running controller (what every request is checked
 * for: test/api/fuzz/controller.ts): the length limits of section 8 at their
 * boundaries, and all-or-nothing writes.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ensureSeeds, expectAlive, must, probe, RUNS, SEED_KEYS, SEED_TAG_IDS, seedUsers, StateGuard, type Tag, useFuzzController } from './fuzz/controller.js';
import { chars, decodeSafe, enc, GOOD_UNITS, sized, sizedFrom, stringify, wrongType } from './fuzz/generators.js';

useFuzzController();

// ---------------------------------------------------------------------------------------------------------------
// Limits of section 8, exactly at the boundaries, with the data read back
// ---------------------------------------------------------------------------------------------------------------

describe('length limits', () => {
  test('userName: 255 characters are accepted and stored as sent, 256 are refused (POST and PATCH)', async () => {
    await fc.assert(
      fc.asyncProperty(sizedFrom([1, 254, 255, 256, 257], GOOD_UNITS), sizedFrom([1, 255, 256], GOOD_UNITS), async (name, newName) => {
        const guard = await StateGuard.begin();
        const ok = chars(name) <= 255;
        const created = await probe(
          { route: 'users', method: 'POST', path: '/v1/users', body: stringify({ userName: name }), expected: ok ? [201] : [400] },
          guard,
        );
        if (!ok) return;
        expect(created.json.userName).toBe(name);
        const id = created.json.userId as string;
        const read = await probe({ route: 'user', method: 'GET', path: `/v1/users/${id}`, expected: [200] });
        expect(read.json).toEqual({ userId: id, userName: name });
        const okNew = chars(newName) <= 255;
        await probe(
          { route: 'user', method: 'PATCH', path: `/v1/users/${id}`, body: stringify({ userName: newName }), expected: okNew ? [200] : [400] },
          guard,
        );
        const reread = await probe({ route: 'user', method: 'GET', path: `/v1/users/${id}`, expected: [200] });
        expect(reread.json.userName).toBe(okNew ? newName : name);
        await probe({ route: 'user', method: 'DELETE', path: `/v1/users/${id}`, expected: [204] }, guard);
        await probe({ route: 'user', method: 'GET', path: `/v1/users/${id}`, expected: [404] });
      }),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('key/value pairs: keys of 256 and values of 1000 characters are stored as sent, 257 and 1001 refused', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sizedFrom([1, 255, 256, 257], GOOD_UNITS),
        sizedFrom([0, 999, 1000, 1001], GOOD_UNITS),
        sizedFrom([1, 1000, 1001], GOOD_UNITS),
        async (keyBase, value, newValue) => {
          // A prefix unique to this run keeps the key new (and clear of dot segments); the length stays the same.
          const prefix = `t${(n++).toString(36)}~`;
          const key = prefix + [...keyBase].slice(prefix.length).join('');
          const guard = await StateGuard.begin();
          const ok = chars(key) <= 256 && chars(value) <= 1000;
          await probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ [key]: value }), expected: ok ? [201] : [400] }, guard);
          if (!ok) return;
          const path = `/v1/map/${enc(key)}`;
          expect((await probe({ route: 'mapKey', method: 'GET', path, expected: [200] })).json).toEqual({ [key]: value });
          await probe({ route: 'map', method: 'POST', path: '/v1/map', body: stringify({ [key]: 'again' }), expected: [409] }, guard);
          const okNew = chars(newValue) <= 1000;
          await probe({ route: 'map', method: 'PATCH', path: '/v1/map', body: stringify({ [key]: newValue }), expected: okNew ? [200] : [400] }, guard);
          expect((await probe({ route: 'mapKey', method: 'GET', path, expected: [200] })).json).toEqual({ [key]: okNew ? newValue : value });
          await probe({ route: 'mapKey', method: 'DELETE', path, expected: [204] }, guard);
          await probe({ route: 'mapKey', method: 'GET', path, expected: [404] });
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('whitelist entries: ids and names of up to 255 characters are stored as sent and deletable by ids', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        sizedFrom([1, 100, 255, 256], GOOD_UNITS),
        sizedFrom([1, 255, 256], GOOD_UNITS),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        async (idBase, name, number) => {
          const prefix = `w${(n++).toString(36)}~`;
          const id = prefix + [...idBase].slice(prefix.length).join('');
          const tag: Tag = { id, tagType: 'EVCCID', number, name, userid: seedUsers[1]!, priority: 'NORMAL' };
          const guard = await StateGuard.begin();
          // The spec sets no length for ids and names; up to 255 characters must be fine, beyond that it may refuse.
          const ok = chars(id) <= 255 && chars(name) <= 255;
          const res = await probe(
            {
              route: 'whitelist',
              method: 'POST',
              path: '/v1/whitelist',
              body: stringify({ type: 'local', command: 'add', tags: [tag] }),
              expected: ok ? [200] : [200, 400],
            },
            guard,
          );
          if (res.status !== 200) return;
          const tags = (await probe({ route: 'whitelist', method: 'GET', path: '/v1/whitelist?type=local', expected: [200] })).json.tags as Tag[];
          expect(tags.find((t) => t.id === id)).toEqual(tag);
          await probe(
            { route: 'whitelist', method: 'POST', path: '/v1/whitelist', body: stringify({ type: 'local', command: 'add', tags: [{ id }] }), expected: [400] },
            guard,
          );
          await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${enc(id)}`, expected: [204] }, guard);
          await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${enc(id)}`, expected: [404] }, guard);
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('DELETE /v1/whitelist ids: 1000 characters including commas are accepted, 1001 refused', async () => {
    const id = (c: string, n: number) => `L-${c}-`.padEnd(n, c);
    const [a, b, c, d, e] = [id('a', 250), id('b', 250), id('c', 250), id('d', 247), id('e', 248)];
    await must('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [a, b, c, d, e].map((x) => ({ id: x })) }, 200);
    const over = [a, b, c, e].join(',');
    const exact = [a, b, c, d].join(',');
    expect([over.length, exact.length]).toEqual([1001, 1000]);
    const guard = await StateGuard.begin();
    await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${over}`, expected: [400] }, guard);
    await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${exact}`, expected: [204] }, guard);
    const left = (await must('GET', '/v1/whitelist?type=local', undefined, 200)).json.tags as Tag[];
    expect(left.map((t) => t.id).filter((x) => x.startsWith('L-'))).toEqual([e]);
    await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${e}`, expected: [204] }, guard);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// All-or-nothing: a request with one bad part changes nothing
// ---------------------------------------------------------------------------------------------------------------

describe('all or nothing', () => {
  /** A new, valid whitelist entry (its id is not whitelisted). */
  const freshTag = fc.record(
    {
      id: fc.stringMatching(/^fresh-[a-z0-9]{6,12}$/),
      // Not RFID: an RFID entry's id must be a hex UID, and these ids are names.
      tagType: fc.constantFrom('EVCCID', 'NFC'),
      number: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
      priority: fc.constantFrom('NORMAL', 'HIGH'),
    },
    { requiredKeys: ['id'] },
  );

  test('POST /v1/whitelist add/edit with one bad entry adds and edits nothing', async () => {
    type Bad = { command: 'add' | 'edit'; entry: Record<string, unknown>; expected: number[] };
    // Values every reading of spec 2.12 refuses: wrong JSON types and values outside the enums.
    const notString = wrongType.filter((v) => typeof v !== 'string');
    const badField: fc.Arbitrary<[string, unknown]> = fc.oneof(
      fc.tuple(fc.constant('id'), notString),
      fc.tuple(fc.constant('tagType'), fc.oneof(notString, fc.constantFrom('rfid', 'BLE', 'RFID '))),
      fc.tuple(fc.constant('number'), fc.oneof(fc.constantFrom(1.5, '1', true, null, [1], { n: 1 }), fc.string({ minLength: 1, maxLength: 5 }))),
      fc.tuple(fc.constant('name'), notString),
      fc.tuple(fc.constant('userid'), fc.oneof(notString, fc.constantFrom('not-a-uuid', '1234', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz'))),
      fc.tuple(fc.constant('priority'), fc.oneof(notString, fc.constantFrom('LOW', 'normal', 'URGENT'))),
    );
    const bad: fc.Arbitrary<Bad> = fc.oneof(
      fc.constantFrom(...SEED_TAG_IDS).map((id): Bad => ({ command: 'add', entry: { id }, expected: [400] })),
      fc.uuid().map((u): Bad => ({ command: 'add', entry: { id: 'fresh-user-missing', userid: u }, expected: [404] })),
      fc.stringMatching(/^missing-[a-z0-9]{4}$/).map((id): Bad => ({ command: 'edit', entry: { id }, expected: [404] })),
      fc.tuple(fc.constantFrom<'add' | 'edit'>('add', 'edit'), badField).map(([command, [field, value]]): Bad => ({
        command,
        entry: { id: command === 'add' ? 'fresh-bad-field' : 'SEED-TAG-2', [field]: value },
        expected: [400],
      })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(freshTag, { minLength: 1, maxLength: 3 }), bad, fc.nat(), fc.boolean(), async (fresh, b, at, duplicate) => {
        await ensureSeeds();
        // add: new entries plus the bad one; edit: changes to every seed plus the bad one.
        const good: Record<string, unknown>[] = b.command === 'add' ? fresh : SEED_TAG_IDS.map((id, i) => ({ id, name: `changed ${i}`, priority: 'HIGH' }));
        const tags = [...good];
        tags.splice(at % (tags.length + 1), 0, b.entry);
        if (duplicate) tags.push({ ...good[0]! }); // a repeated id is a bad entry too
        const guard = await StateGuard.begin();
        const res = await probe(
          {
            route: 'whitelist',
            method: 'POST',
            path: '/v1/whitelist',
            body: stringify({ type: 'local', command: b.command, tags }),
            expected: duplicate ? [400, 404] : b.expected,
          },
          guard,
        );
        expect(res.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('POST /v1/map with one existing key or one bad pair adds nothing; PATCH with one missing key or bad value changes nothing', async () => {
    const badPair = fc.oneof(
      fc.constantFrom(...SEED_KEYS).map((k) => ({ key: k, value: 'x' as unknown, post: [409], patch: [] as number[] })),
      fc.stringMatching(/^missing-[a-z0-9]{4}$/).map((k) => ({ key: k, value: 'x' as unknown, post: [] as number[], patch: [404] })),
      sizedFrom([257, 300], GOOD_UNITS).map((k) => ({ key: k, value: 'x' as unknown, post: [400], patch: [400, 404] })),
      fc.constantFrom(...SEED_KEYS).map((k) => ({ key: k, value: sized(1001, ['v', '😀']) as unknown, post: [400, 409], patch: [400] })),
      fc.tuple(fc.constantFrom(...SEED_KEYS), wrongType).map(([k, v]) => ({ key: k, value: v, post: [400, 409], patch: [400] })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<'POST' | 'PATCH'>('POST', 'PATCH'),
        fc.dictionary(fc.stringMatching(/^fresh-[a-z0-9]{4,10}$/), fc.string({ unit: 'grapheme', maxLength: 30 }), { minKeys: 1, maxKeys: 3 }),
        badPair.filter((b) => b.post.length > 0 || b.patch.length > 0),
        async (method, fresh, b) => {
          const expected = method === 'POST' ? b.post : b.patch;
          if (expected.length === 0) return;
          await ensureSeeds();
          const good: Record<string, string> = method === 'POST' ? fresh : Object.fromEntries(SEED_KEYS.map((k) => [k, `changed ${k}`]));
          const body = { ...good };
          Object.defineProperty(body, b.key, { value: b.value, enumerable: true, configurable: true, writable: true });
          const guard = await StateGuard.begin();
          const res = await probe({ route: 'map', method, path: '/v1/map', body: stringify(body), expected }, guard);
          expect(res.status).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });

  test('DELETE /v1/whitelist with existing ids plus one missing or bad id deletes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(SEED_TAG_IDS, { minLength: 1 }),
        fc.oneof(
          fc.stringMatching(/^missing-[a-z0-9]{4}$/).map((id) => ({ id, expected: [404] })),
          fc.constantFrom('', '%00', '%1F', sized(256, ['x'])).map((id) => ({ id, expected: [400] })),
        ),
        fc.nat(),
        fc.boolean(),
        async (existing, b, at, bodyForm) => {
          await ensureSeeds();
          const ids = [...existing];
          ids.splice(at % (ids.length + 1), 0, b.id);
          const guard = await StateGuard.begin();
          const res = bodyForm
            ? await probe(
                {
                  route: 'whitelist',
                  method: 'DELETE',
                  path: '/v1/whitelist',
                  body: stringify({ type: 'local', command: 'delete', tags: ids.map((id) => ({ id: decodeSafe(id) })) }),
                  expected: b.expected,
                },
                guard,
              )
            : await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?type=local&ids=${ids.join(',')}`, expected: b.expected }, guard);
          expect(res.status).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: RUNS },
    );
    await expectAlive();
  });
});
