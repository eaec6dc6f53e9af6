import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { openApiPath } from '../../api/openapi.js';
import { FAILED, httpRequest, useLoggedInController, type HttpResult } from '../harness.js';
import { responseChecker } from '../openapi-check.js';

/**
 * The API document (GET /openapi.json) and the page on it (/docs). Every answer the harness's http() receives in
 * the whole suite is checked against the document (test/openapi-check.ts); here: the document lists every route,
 * its schemas are valid JSON Schema, and the check itself refuses answers the document does not allow.
 */

const api = useLoggedInController();
type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: { schemas: Record<string, object> } };

/** Methods a test may send to a route (OpenAPI's methods; Node's HTTP client sends any). */
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'];

/**
 * The routes the app has that the document does not list: a path it lacks, or a method it lacks whose handler is
 * not the router's "method not supported" answer (`supported` tells which are).
 */
function undocumented(routes: ReadonlyArray<{ method: string; path: string }>, document: Doc, unsupported: (method: string, path: string) => boolean) {
  return routes.filter(({ method, path }) => {
    const operations = document.paths[openApiPath(path)];
    if (!operations) return true;
    if (operations[method.toLowerCase()]) return false;
    return !unsupported(method, path);
  });
}

describe('GET /openapi.json', () => {
  test('serves the OpenAPI 3.1 document as JSON, without a session, the same as the controller builds', async () => {
    const res = await httpRequest(api.h.controller.port, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json).toEqual(await api.h.controller.document());
    expect(res.json).toMatchObject({ openapi: '3.1.0', info: { title: 'Charge controller API', version: expect.any(String) } });
  });

  test('lists every route of the app: each path, and each method that is not answered "not supported"', async () => {
    const document = (await api.h.controller.document()) as Doc;
    const routes = api.h.controller.routes.filter((r) => METHODS.includes(r.method));
    // The methods the document leaves out of a path must be the router's 400 "not supported" (a real request each).
    const answers = new Map<string, HttpResult>();
    for (const { method, path } of routes) {
      if (document.paths[openApiPath(path)]?.[method.toLowerCase()]) continue;
      const concrete = path.replace(/:(\w+)/g, 'x');
      answers.set(`${method} ${path}`, await api.call(method, concrete));
    }
    const unsupported = (method: string, path: string) => {
      const res = answers.get(`${method} ${path}`);
      return res?.status === 400 && /is not supported/.test(res.json?.cause ?? '');
    };
    expect(undocumented(routes, document, unsupported)).toEqual([]);
    // And the other way: every operation of the document is a route of the app.
    const registered = new Set(routes.map((r) => `${r.method} ${openApiPath(r.path)}`));
    const operations = Object.entries(document.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(operations.filter((o) => !registered.has(o))).toEqual([]);
    expect(operations.length).toBeGreaterThan(70);
    // The spec's endpoints and the extensions are all there.
    for (const path of [
      '/v1/login',
      '/v1/logout',
      '/v1/users/{userId}',
      '/v1/whitelist/pairing',
      '/v1/map/{key}',
      '/v1/transactions/summary',
      '/v1/system_state',
      '/v1/messages',
      '/v1/settings',
      '/v1/app_settings',
      '/v1/app_dashboard',
      '/v1/session',
      '/v1/accounts/{username}/password',
      '/metrics',
      '/sim/fault/{fault}',
      '/inspect/events',
      '/openapi.json',
      '/docs',
      '/',
    ]) {
      expect(document.paths, path).toHaveProperty([path]);
    }
  });

  test('a route registered beside the router (not documented) is found', async () => {
    const document = (await api.h.controller.document()) as Doc;
    const routes = [...api.h.controller.routes, { method: 'GET', path: '/v1/secret-extension' }, { method: 'PUT', path: '/v1/users' }];
    expect(undocumented(routes, document, () => false)).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/v1/secret-extension' },
        { method: 'PUT', path: '/v1/users' },
      ]),
    );
  });

  test('every schema in it is valid JSON Schema 2020-12 and every reference resolves (strict compilation)', async () => {
    const document = (await api.h.controller.document()) as Doc;
    const ajv = new Ajv2020({ strict: true, validateFormats: false });
    const rebased = (schema: object) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"api#/$defs/'));
    ajv.addSchema({ $id: 'api', $defs: rebased(document.components.schemas) } as object);
    const schemas: object[] = [];
    for (const operations of Object.values(document.paths)) {
      for (const op of Object.values(operations)) {
        for (const p of op.parameters ?? []) schemas.push(p.schema);
        for (const media of Object.values<any>(op.requestBody?.content ?? {})) schemas.push(media.schema);
        for (const answer of Object.values<any>(op.responses)) for (const media of Object.values<any>(answer.content ?? {})) schemas.push(media.schema);
      }
    }
    for (const schema of schemas) expect(() => ajv.compile(rebased(schema))).not.toThrow();
    expect(schemas.length).toBeGreaterThan(150);
  });

  test('request bodies are described by the schemas the endpoints validate with', async () => {
    const document = (await api.h.controller.document()) as Doc;
    const body = (path: string, method: string) => document.paths[path]![method]!.requestBody.content['application/json'].schema;
    expect(body('/v1/users', 'post')).toEqual({
      type: 'object',
      properties: { userName: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[^\\u0000-\\u001f\\u007f]*$' } },
      required: ['userName'],
    });
    expect(body('/v1/login', 'post').properties.password).toEqual({ type: 'string', pattern: '^[0-9a-fA-F]{64}$' });
    expect(document.paths['/v1/transactions']!.get.parameters).toEqual([
      expect.objectContaining({ name: 'from', in: 'query', required: false, schema: expect.objectContaining({ format: 'date-time' }) }),
      expect.objectContaining({ name: 'to', in: 'query', required: false }),
    ]);
    expect(document.paths['/v1/accounts']!.get['x-role']).toBe('operator');
    expect(document.paths['/v1/users']!.get.security).toEqual([{ session: [] }]);
    expect(document.paths['/v1/login']!.get.security).toEqual([]);
  });
});

describe('the check of every answer against the document', () => {
  const checker = async () => responseChecker((await api.h.controller.document()) as Doc);
  const answer = (status: number, body: unknown, type = 'application/json'): HttpResult => ({
    status,
    headers: body === undefined ? {} : { 'content-type': type },
    text: body === undefined ? '' : JSON.stringify(body),
    json: body,
  });

  test('accepts what the document allows', async () => {
    const check = await checker();
    check.check('GET', '/v1/users', answer(200, { users: [{ userId: '3f0e8f9a-8c1e-4c5e-9a53-0d9b2a7c1e11', userName: 'Ada' }] }));
    check.check('DELETE', '/v1/users/3f0e8f9a-8c1e-4c5e-9a53-0d9b2a7c1e11', answer(204, undefined));
    check.check('GET', '/v1/nothing-here', answer(404, { success: false, cause: 'No endpoint' }));
    check.check('PUT', '/v1/users', answer(400, { success: false, cause: 'Method PUT is not supported' }));
  });

  test.each([
    ['a body of the wrong shape', 'GET', '/v1/users', answer(200, { users: [{ userId: 7 }] }), /does not match the document/],
    ['a status the operation does not document', 'GET', '/v1/system_state', answer(409, { success: false, cause: 'x' }), /status 409 is not documented/],
    ['another content type', 'GET', '/v1/messages', answer(200, { messages: [] }, 'text/plain'), /content type text\/plain/],
    ['a body where none is documented', 'DELETE', '/v1/users/3f0e8f9a-8c1e-4c5e-9a53-0d9b2a7c1e11', answer(204, { success: true }), /without a body/],
    ['an unknown path answered 200', 'GET', '/v1/nothing-here', answer(200, { success: true }), /path the document does not list/],
    ['an error body that is not OperationFailed', 'GET', '/v1/users/x', answer(400, { error: 'bad' }), /does not match/],
  ])('refuses %s', async (_what, method, path, res, message) => {
    const check = await checker();
    expect(() => check.check(method, path, res)).toThrow(message);
  });
});

describe('/docs: Swagger UI from the controller itself', () => {
  test("the page, its set-up and Swagger UI's files are served without a session under a strict CSP; nothing comes from elsewhere", async () => {
    const page = await api.h.http('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self'");
    expect(page.text).not.toMatch(/https?:\/\/(?!json-schema)/);
    expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
    for (const file of page.text.match(/(?:src|href)="(\/[^"]+)"/g)!.map((m) => m.split('"')[1]!)) {
      const res = await api.h.http('GET', file);
      expect([file, res.status]).toEqual([file, 200]);
    }
    const init = await api.h.http('GET', '/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
    expect(init.text).toContain('validatorUrl: null'); // no badge fetched from validator.swagger.io
  });

  test('an unknown file under /docs is 404', async () => {
    const res = await httpRequest(api.h.controller.port, 'GET', '/docs/other.js');
    expect([res.status, res.json]).toEqual([404, FAILED]);
  });
});
