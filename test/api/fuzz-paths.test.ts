/**
 * Property-based fuzzing of the REST API through HTTP against one running controller (what every request is checked
 * for: test/api/fuzz/controller.ts): path segments and query strings.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type RouteName, ROUTES } from './fuzz/spec.js';
import { concretePaths, expectAlive, probe, RUNS, SEED_KEYS, SEED_TAG_IDS, StateGuard, useFuzzController } from './fuzz/controller.js';
import {
  anyUnit,
  chars,
  dateLike,
  decodeSafe,
  enc,
  GOOD_UNITS,
  junkBody,
  MAX_TARGET,
  objectText,
  pathSegment,
  queryParams,
  queryString,
  queryValue,
  rangeExpectation,
  rawSafe,
  sizedFrom,
  weirdString,
} from './fuzz/generators.js';

useFuzzController();

// ---------------------------------------------------------------------------------------------------------------
// Paths and queries
// ---------------------------------------------------------------------------------------------------------------

describe('path segments', () => {
  test('junk user ids in GET/PATCH/DELETE /v1/users/{userId}', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          pathSegment,
          fc.uuid(),
          fc.uuid().map((u) => u.toUpperCase()),
          fc.uuid().map((u) => `${u}x`),
          fc.uuid().map((u) => u.replace(/-/g, '')),
        ),
        fc.constantFrom('GET', 'PATCH', 'DELETE', 'PUT', 'POST', 'OPTIONS'),
        fc.option(fc.oneof(junkBody, objectText(fc.record({ userName: weirdString }))), { nil: undefined }),
        async (segment, method, body) => {
          const guard = await StateGuard.begin();
          await probe({ route: 'user', method, path: `/v1/users/${segment}`, body }, guard);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('junk keys in GET/DELETE /v1/map/{key}', async () => {
    await fc.assert(
      fc.asyncProperty(
        pathSegment.filter((s) => !SEED_KEYS.some((k) => enc(k) === s)),
        fc.constantFrom('GET', 'DELETE', 'POST', 'PATCH', 'PUT', 'HEAD'),
        fc.option(junkBody, { nil: undefined }),
        async (segment, method, body) => {
          const guard = await StateGuard.begin();
          await probe({ route: 'mapKey', method, path: `/v1/map/${segment}`, body }, guard);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a key in the path counts characters: 256 is looked up (404), 257 is refused (400)', async () => {
    await fc.assert(
      fc.asyncProperty(sizedFrom([1, 255, 256, 257, 300], GOOD_UNITS), fc.constantFrom('GET', 'DELETE'), async (key, method) => {
        // The prefix keeps the key clear of existing ones and of the dot segments.
        const k = `~${key}`.slice(0, key.length);
        const n = chars(k);
        await probe({ route: 'mapKey', method, path: `/v1/map/${enc(k)}`, expected: n <= 256 ? [404] : [400] });
      }),
      { numRuns: RUNS },
    );
  });

  test('unknown paths under /v1 and elsewhere', async () => {
    const known = new Set(['login', 'logout', 'users', 'whitelist', 'map', 'transactions', 'system_state', 'messages']);
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.array(pathSegment, { minLength: 1, maxLength: 3 }).filter((segs) => !known.has(decodeSafe(segs[0]!))),
        fc.constantFrom('/v1/', '/', '/v2/', '/V1/', '/v1//'),
        fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'PUT'),
        fc.boolean(),
        async (segments, prefix, method, authed) => {
          const path = prefix + segments.join('/');
          if (path.length > MAX_TARGET) return;
          // The pages and their files (test/web.test.ts, test/inspector.test.ts), also as paths that resolve to them
          // (`/%2e`, `/v1/%2e%2e`, `/?`).
          if (/^\/(web\/|inspect|$)/.test(resolvedPath(path))) return;
          await probe({ route: undefined, method, path, auth: authed ? undefined : null });
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
    await guard.end();
  });
});

/** The path a URL parser makes of `path` (dot segments resolved, query and fragment cut), or `path` when it fails. */
function resolvedPath(path: string): string {
  try {
    return new URL(path, 'http://controller').pathname;
  } catch {
    return path;
  }
}

describe('query strings', () => {
  test('random queries on every GET endpoint', async () => {
    const gets = concretePaths()
      .filter((p) => ROUTES[p.route].methods.GET)
      .map((p) => ({ ...p, path: p.path.split('?')[0]! }));
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...gets), queryString, async ({ route, path }, query) => {
        let expected: readonly number[] | undefined;
        if (route === 'whitelist') expected = queryParams(query).get('type') === 'local' ? [200] : [400];
        if (route === 'transactions' || route === 'summary') expected = rangeExpectation(query);
        await probe({ route, method: 'GET', path: `${path}?${query}`, expected });
        await expectAlive();
      }),
      { numRuns: 100 },
    );
    await guard.end();
  });

  test('from/to on /v1/transactions and /v1/transactions/summary: valid UTC date-times only', async () => {
    const value = fc.oneof(dateLike.map(rawSafe), dateLike.map(enc), weirdString.map(enc));
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<RouteName>('transactions', 'summary'),
        fc.option(value, { nil: undefined }),
        fc.option(value, { nil: undefined }),
        async (route, from, to) => {
          const query = [from === undefined ? '' : `from=${from}`, to === undefined ? '' : `to=${to}`].filter(Boolean).join('&');
          fc.pre(query.length <= MAX_TARGET); // longer targets are refused before routing (see "regressions")
          const path = route === 'transactions' ? '/v1/transactions' : '/v1/transactions/summary';
          await probe({ route, method: 'GET', path: query ? `${path}?${query}` : path, expected: rangeExpectation(query) });
        },
      ),
      { numRuns: 100 },
    );
    await guard.end();
    await expectAlive();
  });

  test('GET /v1/whitelist needs type=local exactly', async () => {
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.oneof(queryValue, weirdString.map(enc)), { nil: undefined }),
        fc.option(queryString, { nil: undefined }),
        async (type, rest) => {
          const query = [type === undefined ? '' : `type=${type}`, rest ?? ''].filter(Boolean).join('&');
          fc.pre(query.length <= MAX_TARGET); // longer targets are refused before routing (see "regressions")
          const expected = queryParams(query).get('type') === 'local' ? [200] : [400];
          await probe({ route: 'whitelist', method: 'GET', path: `/v1/whitelist?${query}`, expected });
        },
      ),
      { numRuns: RUNS },
    );
    await guard.end();
    await expectAlive();
  });

  test('DELETE /v1/whitelist with junk type/ids queries deletes nothing unless every id exists', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.oneof(fc.constant('local'), queryValue), { nil: undefined }),
        fc.array(fc.oneof(queryValue, fc.constantFrom(...SEED_TAG_IDS), fc.string({ unit: anyUnit, maxLength: 10 }).map(enc)), { minLength: 0, maxLength: 4 }),
        fc.option(junkBody, { nil: undefined }),
        async (type, ids, body) => {
          // Keep at least one id that is not whitelisted: a fully valid request would (rightly) delete seeds.
          const list = [...ids, 'no-such-tag'];
          const query = [type === undefined ? '' : `type=${type}`, `ids=${list.join(',')}`].filter(Boolean).join('&');
          fc.pre(query.length <= MAX_TARGET); // longer targets are refused before routing (see "regressions")
          const guard = await StateGuard.begin();
          const res = await probe({ route: 'whitelist', method: 'DELETE', path: `/v1/whitelist?${query}`, body, expected: [400, 404] }, guard);
          expect(res.status).toBeGreaterThanOrEqual(400);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: RUNS },
    );
  });
});
