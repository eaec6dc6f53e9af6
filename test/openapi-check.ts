import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { HttpResult } from './harness.js';

/**
 * Checks an answer against the API document (GET /openapi.json): its status is documented for the path and method,
 * its content type is the documented one, and its body validates against the documented schema. The harness runs
 * it on every answer its `http()` receives, so the whole API test suite checks the document against what the
 * controller really answers.
 *
 * Rules the document states in words (info.description) and that OpenAPI cannot list per path: a path no operation
 * matches answers 404 (under /v1 without a session: 401); a method a path does not support answers 400 (or 401
 * without a session). Those answers must carry an error body.
 */

type Json = Record<string, any>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface Template {
  path: string;
  segments: string[];
  literals: number;
}

export interface ResponseChecker {
  check(method: string, target: string, res: HttpResult): void;
}

const mediaType = (header: unknown) => (typeof header === 'string' ? header.split(';')[0]!.trim().toLowerCase() : undefined);
const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/** A checker for one document (compiled schemas are kept per document). */
export function responseChecker(document: Json): ResponseChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, 'api');
  const validators = new Map<string, ValidateFunction>();
  const validatorAt = (ref: string) => {
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.getSchema(`api${ref}`);
      if (!validate) throw new Error(`no schema at ${ref}`);
      validators.set(ref, validate);
    }
    return validate;
  };
  const templates: Template[] = Object.keys(document.paths).map((path) => {
    const segments = path.split('/');
    return { path, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
  });
  // The most literal template first: /v1/transactions/summary before a template with a parameter there.
  templates.sort((a, b) => b.literals - a.literals);
  const match = (path: string) => {
    const segments = path.split('/');
    return templates.find(
      (t) => t.segments.length === segments.length && t.segments.every((s, i) => (s.startsWith('{') ? segments[i] !== '' : s === segments[i])),
    );
  };

  const errorBody = (what: string, res: HttpResult) => {
    const failed = validatorAt('#/components/schemas/OperationFailed');
    const notLoggedIn = validatorAt('#/components/schemas/NotLoggedIn');
    if (res.text === '' || !(failed(res.json) || notLoggedIn(res.json)))
      throw new Error(`${what}: the answer ${res.status} ${res.text.slice(0, 200)} is not an error body`);
  };

  return {
    check(method, target, res) {
      // The path as the app sees it: the URL's (dot segments resolved, as the server's Request does).
      let path: string;
      try {
        path = new URL(`http://controller${target}`).pathname;
      } catch {
        path = target.split('?')[0]!;
      }
      const what = `${method} ${path}`;
      const head = method === 'HEAD';
      const template = match(path);
      const operation = template && document.paths[template.path][(head ? 'GET' : method).toLowerCase()];
      if (!operation) {
        // An unknown path, or a method the path does not support.
        const allowed = template ? [400, 401] : [401, 404, 400];
        if (!allowed.includes(res.status))
          throw new Error(
            `${what}: ${res.status} for a ${template ? 'method the path does not support' : 'path the document does not list'} ` +
              `(expected ${allowed.join(' or ')})`,
          );
        if (!head) errorBody(what, res);
        return;
      }
      const answer = operation.responses[String(res.status)];
      if (!answer)
        throw new Error(
          `${what}: status ${res.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}); body ${res.text.slice(0, 200)}`,
        );
      if (!answer.content) {
        if (res.text !== '') throw new Error(`${what}: ${res.status} is documented without a body, got ${res.text.slice(0, 200)}`);
        return;
      }
      const type = mediaType(res.headers['content-type']);
      const documented = Object.keys(answer.content);
      if (!type || !documented.includes(type)) throw new Error(`${what}: ${res.status} has content type ${type}, documented: ${documented.join(', ')}`);
      if (head || type !== 'application/json') return;
      const validate = validatorAt(
        pointer('paths', template.path, (head ? 'GET' : method).toLowerCase(), 'responses', String(res.status), 'content', type, 'schema'),
      );
      if (!validate(res.json)) {
        const problems = (validate.errors ?? [])
          .slice(0, 5)
          .map((e) => `${e.instancePath || '(body)'} ${e.message}`)
          .join('; ');
        throw new Error(`${what}: the ${res.status} body does not match the document: ${problems}; body ${res.text.slice(0, 300)}`);
      }
    },
  };
}

const checkers = new Map<string, ResponseChecker>();

/** The checker of a document, compiled once per distinct document in this process. */
export function checkerFor(document: Json): ResponseChecker {
  const key = JSON.stringify(document);
  let checker = checkers.get(key);
  if (!checker) {
    checker = responseChecker(document);
    checkers.set(key, checker);
  }
  return checker;
}
