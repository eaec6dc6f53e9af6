/**
 * Property-based fuzzing of the REST API through HTTP against one running controller (what every request is checked
 * for: test/api/fuzz/controller.ts): sessions and methods, then login and logout (last: failed logins
 * throttle later ones, and logout ends the one session).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ALL_METHODS, ROUTES } from './fuzz/spec.js';
import { call, concretePaths, expectAlive, probe, session, StateGuard, sessionEnded, useFuzzController } from './fuzz/controller.js';
import { chars, isPlainObject, junkBody, objectText, parsedBody, queryString, sizedFrom, weirdString, wrongType } from './fuzz/generators.js';

useFuzzController();

// ---------------------------------------------------------------------------------------------------------------
// Sessions and methods
// ---------------------------------------------------------------------------------------------------------------

describe('authentication and methods', () => {
  test('every endpoint but /v1/login answers 401 with the not-logged-in body to a missing, wrong or foreign session', async () => {
    const paths = concretePaths().filter((p) => p.route !== 'login');
    const badAuth = fc
      .oneof(
        fc.constant<string | null>(null),
        fc.constant(''),
        fc.uuid(),
        fc.string({ unit: fc.constantFrom(...' !#$%&*+-./0123456789:;=?@ABCDEFabcdef_~'.split('')), maxLength: 60 }),
        fc
          .constantFrom(
            (s: string) => s.toUpperCase(),
            (s: string) => `Bearer ${s}`,
            (s: string) => `${s}x`,
            (s: string) => s.slice(0, -1),
            (s: string) => `${s},${s}`,
            (s: string) => s.replace(/[0-9a-f]$/, (c) => (c === '0' ? '1' : '0')),
          )
          .map((f) => f(session)),
      )
      .filter((a) => a === null || a.trim() !== session);
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom(...ALL_METHODS),
        fc.oneof(
          badAuth.map((auth) => ({ auth, from: undefined as string | undefined })),
          fc.constant({ auth: undefined, from: '127.0.0.2' }),
        ),
        fc.option(junkBody, { nil: undefined }),
        async ({ route, path }, method, { auth, from }, body) => {
          const res = await probe({ route, method, path, auth, from, body, expected: [401] });
          if (method !== 'HEAD') {
            // A header value of only spaces arrives empty (HTTP trims the whitespace around a value).
            const codes = from ? [1005] : !auth?.trim() ? [1002, 1003] : [1003];
            expect(codes, `session error code for ${method} ${path}`).toContain(res.json.code);
          }
        },
      ),
      { numRuns: 100 },
    );
    await guard.end();
    await expectAlive(); // the real session survived
  });

  test('unsupported methods on known paths are refused (400/404, never 405 or a success) and change nothing', async () => {
    const cases = concretePaths().flatMap(({ route, path }) =>
      ALL_METHODS.filter((m) => !ROUTES[route].methods[m === 'HEAD' ? 'GET' : m]).map((method) => ({ route, path, method })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...cases),
        fc.option(junkBody, { nil: undefined }),
        fc.option(queryString, { nil: undefined }),
        async (c, body, query) => {
          const guard = await StateGuard.begin();
          const path = query === undefined ? c.path : `${c.path}${c.path.includes('?') ? '&' : '?'}${query}`;
          await probe({ route: c.route, method: c.method, path, body, expected: [400, 404] }, guard);
          await guard.end();
          await expectAlive();
        },
      ),
      { numRuns: 80 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Login and logout (late: failed logins throttle later ones, and logout ends the one session)
// ---------------------------------------------------------------------------------------------------------------

describe('login and logout', () => {
  test('GET /v1/login answers a fresh token whatever the query and body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(queryString, { nil: undefined }), fc.option(junkBody, { nil: undefined }), fc.boolean(), async (query, body, withSession) => {
        const res = await probe({
          route: 'login',
          method: 'GET',
          path: query === undefined ? '/v1/login' : `/v1/login?${query}`,
          body,
          auth: withSession ? undefined : null,
          expected: [200],
        });
        expect(res.json.token).toMatch(/^.{32}$/);
      }),
      { numRuns: 50 },
    );
    await expectAlive();
  });

  test('POST /v1/login refuses junk with 400 and wrong credentials with 401, and never touches the session', async () => {
    const hex64 = fc.stringMatching(/^[0-9a-fA-F]{64}$/);
    const credentials = fc.record(
      {
        username: fc.oneof(fc.constantFrom('operator', 'OPERATOR', 'admin', '', 'operator\u0000'), weirdString, wrongType),
        password: fc.oneof(hex64, weirdString, wrongType, sizedFrom([63, 64, 65], ['a', 'F', '0', 'g'])),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(junkBody, objectText(credentials), fc.constant(`{"username":"operator","password":"${'0'.repeat(64)}"}${' '.repeat(5000)}`));
    const guard = await StateGuard.begin();
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (raw, freshToken) => {
        if (freshToken) await call('GET', '/v1/login');
        const parsed = parsedBody(raw);
        const value = parsed.json ? parsed.value : undefined;
        const shaped =
          isPlainObject(value) &&
          typeof value.username === 'string' &&
          chars(value.username) >= 1 &&
          chars(value.username) <= 255 &&
          typeof value.password === 'string' &&
          /^[0-9a-fA-F]{64}$/.test(value.password);
        const wellTyped = isPlainObject(value) && typeof value.username === 'string' && typeof value.password === 'string';
        const expected = shaped ? [400, 401] : wellTyped ? [400, 401] : [400];
        const res = await probe({ route: 'login', method: 'POST', path: '/v1/login', body: raw, auth: null, expected });
        if (shaped && typeof raw === 'string' && raw.length < 4096) expect(res.status).toBe(401);
        await expectAlive(); // the session still works: a refused login replaced nothing
      }),
      { numRuns: 100 },
    );
    await guard.end();
  });

  test('POST /v1/logout with a wrong session and any body answers 401 and keeps the real session', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant<string | null>(null), fc.uuid(), fc.string({ unit: fc.constantFrom(...'abcdef0123456789-'.split('')), maxLength: 40 })),
        fc.option(junkBody, { nil: undefined }),
        fc.option(queryString, { nil: undefined }),
        async (auth, body, query) => {
          await probe({ route: 'logout', method: 'POST', path: query === undefined ? '/v1/logout' : `/v1/logout?${query}`, auth, body, expected: [401] });
          await expectAlive();
        },
      ),
      { numRuns: 50 },
    );
  });

  test('POST /v1/logout with the session and a junk body answers 204 and ends the session (last)', async () => {
    await probe({ route: 'logout', method: 'POST', path: '/v1/logout?x=%E0%A4%A', body: '{"junk', expected: [204] });
    const after = await probe({ route: 'systemState', method: 'GET', path: '/v1/system_state', auth: session, expected: [401] });
    expect(after.json.code).toBe(1003);
    sessionEnded();
  });
});
