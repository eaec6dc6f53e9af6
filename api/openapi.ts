import type * as v from 'valibot';
import type { ConversionConfig } from '@valibot/to-json-schema';
import type { Role } from '../db/schema.js';

/**
 * The API document (OpenAPI 3.1), generated from the routes as they are registered (`Router.resource`, api/app.ts)
 * and the valibot schemas they validate and answer with. Every operation carries its documentation where it is
 * registered, so a route without one does not compile, and the document is built from that list on first request
 * (`GET /openapi.json`): nothing of it runs per request.
 */

/** An answer of an operation: a description (no body), or a body of a media type, JSON by default. */
export type ResponseDoc = string | { description: string; body?: v.GenericSchema; type?: string };

export interface OperationDoc {
  summary: string;
  description?: string;
  /** The JSON request body (`required` by default), or a body of another media type (`type`: a file, unparsed). */
  body?: v.GenericSchema | { schema: v.GenericSchema; required: boolean; description?: string } | { type: string; required: boolean; description: string };
  /** The query parameters: an object schema, one parameter per entry (optional entries are optional parameters). */
  query?: v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>;
  /** The path parameters (`:name` in the path) and their schemas; a string when not named. */
  params?: Record<string, v.GenericSchema>;
  /** The lowest role that may call it, where it is not every role (an extension: `x-role`). */
  role?: Role;
  /**
   * By status. 400 (a malformed request), 401 (session routes) and 500 are added to every operation when not given,
   * 507 (the disk is full) to every one but GET.
   */
  responses: Record<number, ResponseDoc>;
}

export type DocMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A route as registered: what the document is made of. */
export interface DocumentedRoute {
  /** Hono's path (`/v1/users/:userId`). */
  path: string;
  method: DocMethod;
  doc: OperationDoc;
  public: boolean;
  tag: string;
}

/** A JSON Schema as the document holds it. */
export type JsonSchema = Record<string, unknown>;

/**
 * Checks that JSON Schema can state, attached to the valibot `check` that enforces them (for example a length in
 * characters): the document shows them (a check without one stops the document from being built).
 */
const CHECK_SCHEMAS = new WeakMap<object, JsonSchema>();

/** Attaches to a `check` action the JSON Schema that states what it checks. */
export function documented<const A extends v.GenericValidation>(action: A, schema: JsonSchema): A {
  CHECK_SCHEMAS.set(action, schema);
  return action;
}

/** The tags (groups of operations) in the order the document lists them, with what they are. */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'Authentication', description: 'Spec 4.1 and 5: a one-time token, then the login proof SHA-256(password + token) in hex.' },
  { name: 'Settings', description: 'Spec 4.2 and 4.8: the settings catalogue (docs/settings.md), the app endpoints.' },
  { name: 'Transactions', description: 'Spec 4.3.' },
  { name: 'Users', description: 'Spec 4.4.' },
  { name: 'Whitelist', description: 'Spec 4.5: the local whitelist and pairing mode.' },
  { name: 'Key/value store', description: 'Spec 4.6.' },
  { name: 'State', description: 'Spec 4.7.' },
  { name: 'Accounts', description: 'Extension: who is logged in, the login accounts (role installer or higher).' },
  { name: 'Events', description: 'Extension: the event log for people (docs/events.md).' },
  { name: 'System', description: 'Extension: restart, metrics, this document.' },
  { name: 'Energy', description: 'Extension: energy inputs pushed by a home energy system (docs/energy.md).' },
  { name: 'Simulator', description: 'HARDWARE=sim only: the simulated vehicle, cards, phone, faults (no session).' },
  { name: 'Inspector', description: 'The live inspector of the state machines (role installer or higher).' },
  { name: 'Web interface', description: 'The pages and the files they load (no session; they hold no data).' },
];

const INFO_DESCRIPTION = [
  'The REST API of the charge controller: the spec (`/v1/…`, charge-controller-api.md, version 1.0) and this',
  "project's extensions, marked as such. The same messages go over NFC (spec 5, NFC message mapping).",
  '',
  'Sessions: `GET /v1/login` gives a one-time token; `POST /v1/login` with `password` = hex SHA-256 of the plain',
  'password immediately followed by the token answers the session id, sent as the bare value of the `Authorization`',
  'header on every other call (authorize below with the id). A session ends after 60 s without a call.',
  '',
  'Rules that hold for every path: a method a path does not support answers 400 naming the supported methods; an',
  'unknown path answers 404 (under `/v1`, 401 without a valid session, so the API does not reveal what exists); 403',
  '(an extension) means logged in with a role too low. Error bodies are OperationFailed `{success: false, cause}`, and',
  'the not-logged-in body `{logged_in: false, message, code}` for 401 and for malformed login requests.',
].join('\n');

/** `/v1/users/:userId` → `/v1/users/{userId}`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

const operationId = (method: string, path: string) =>
  method.toLowerCase() +
  path
    .split(/[/._-]+/)
    .filter(Boolean)
    .map((part) => {
      const name = part.startsWith(':') ? `By${part[1]!.toUpperCase()}${part.slice(2)}` : part;
      return name[0]!.toUpperCase() + name.slice(1);
    })
    .join('');

/** The text of a `description` action anywhere in a schema's pipe (an input schema's stops before it is reached). */
function describedIn(schema: v.GenericSchema): string | undefined {
  const pipe = (schema as { pipe?: readonly unknown[] }).pipe ?? [];
  for (const item of pipe) {
    if ((item as { type?: string }).type === 'description') return (item as { description: string }).description;
    if ((item as { pipe?: unknown }).pipe) {
      const inner = describedIn(item as v.GenericSchema);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** The schemas every document names (components), given by the API module that owns them. */
export interface DocumentInput {
  routes: readonly DocumentedRoute[];
  /** Named schemas: where an operation uses one of these objects, the document refers to it by name. */
  components: Record<string, v.GenericSchema>;
  /** The error bodies every operation may answer. */
  errors: { operationFailed: v.GenericSchema; notLoggedIn: v.GenericSchema };
  version: string;
}

/** Builds the document. @valibot/to-json-schema is loaded only now (the first request for the document). */
export async function buildDocument(input: DocumentInput): Promise<JsonSchema> {
  const { toJsonSchema, toJsonSchemaDefs } = await import('@valibot/to-json-schema');
  const refs = new Map<object, string>(Object.entries(input.components).map(([name, schema]) => [schema, name]));
  /** Inputs stop before a transformation (what a client sends); outputs and components are read as written. */
  const config = (typeMode: 'input' | 'ignore'): ConversionConfig => ({
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'throw',
    // Transformations after validation change nothing a client sends or receives.
    ignoreActions: ['to_lower_case', 'to_upper_case', 'trim'],
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
    overrideAction: ({ valibotAction, jsonSchema }) => {
      const stated = CHECK_SCHEMAS.get(valibotAction);
      return stated ? { ...jsonSchema, ...stated } : undefined;
    },
  });
  const clean = (schema: JsonSchema): JsonSchema => {
    const { $schema: _schema, $defs: _defs, ...rest } = schema;
    return rest;
  };
  const components = input.components as Record<string, v.GenericSchema>;
  /** A named schema by reference; any other converted, with the named ones inside it by reference. */
  const toSchema = (schema: v.GenericSchema, mode: 'input' | 'output'): JsonSchema => {
    const name = refs.get(schema);
    if (name) return { $ref: `#/components/schemas/${name}` };
    return clean(toJsonSchema(schema, { ...config(mode === 'input' ? 'input' : 'ignore'), definitions: components }) as JsonSchema);
  };
  const json = (schema: v.GenericSchema) => ({ 'application/json': { schema: toSchema(schema, 'input') } });

  const response = (doc: ResponseDoc) => {
    if (typeof doc === 'string') return { description: doc };
    if (!doc.body && !doc.type) return { description: doc.description };
    const type = doc.type ?? 'application/json';
    return { description: doc.description, content: { [type]: { schema: doc.body ? toSchema(doc.body, 'output') : { type: 'string' } } } };
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of input.routes) {
    const { doc } = route;
    const path = openApiPath(route.path);
    const parameters: unknown[] = [];
    for (const [, name] of route.path.matchAll(/:([A-Za-z_]\w*)/g)) {
      const schema = doc.params?.[name!];
      parameters.push({ name, in: 'path', required: true, schema: schema ? toSchema(schema, 'input') : { type: 'string' } });
    }
    for (const [name, entry] of Object.entries(doc.query?.entries ?? {})) {
      const optional = entry.type === 'optional' || entry.type === 'exact_optional';
      const inner = optional ? (entry as unknown as { wrapped: v.GenericSchema }).wrapped : entry;
      const schema = toSchema(inner, 'input');
      const description = typeof schema.description === 'string' ? schema.description : describedIn(inner);
      parameters.push({ name, in: 'query', required: !optional, schema, ...(description ? { description } : {}) });
    }
    const responses: Record<string, unknown> = {};
    const statuses: Record<number, ResponseDoc | undefined> = {
      ...doc.responses,
      400: doc.responses[400] ?? {
        description: 'Malformed request (at the HTTP level: headers over 16 KiB, a missing Host header)',
        body: input.errors.operationFailed,
      },
      ...(route.public ? {} : { 401: doc.responses[401] ?? { description: 'No valid session (codes 1002 to 1005)', body: input.errors.notLoggedIn } }),
      500: doc.responses[500] ?? {
        description: 'Internal error (the cause reveals nothing internal; the details are logged)',
        body: input.errors.operationFailed,
      },
      // Every request that stores something may find the disk full (api/errors.ts).
      ...(route.method === 'GET'
        ? {}
        : { 507: doc.responses[507] ?? { description: "The controller's storage is full: nothing was changed", body: input.errors.operationFailed } }),
    };
    for (const [status, answer] of Object.entries(statuses)) if (answer) responses[status] = response(answer);
    const body = doc.body && ('required' in doc.body ? doc.body : { schema: doc.body as v.GenericSchema, required: true });
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = {
      operationId: operationId(route.method, route.path),
      tags: [route.tag],
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      ...(doc.role ? { 'x-role': doc.role } : {}),
      security: route.public ? [] : [{ session: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(body
        ? {
            requestBody: {
              required: body.required,
              ...('description' in body && body.description ? { description: body.description } : {}),
              content: 'schema' in body ? json(body.schema) : { [body.type]: { schema: { type: 'string', contentMediaType: body.type } } },
            },
          }
        : {}),
      responses,
    };
  }

  const schemas = toJsonSchemaDefs(components, config('ignore'));
  const used = new Set(input.routes.map((r) => r.tag));
  return {
    openapi: '3.1.0',
    info: { title: 'Charge controller API', version: input.version, description: INFO_DESCRIPTION },
    tags: TAGS.filter((t) => used.has(t.name)),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, clean(schema as JsonSchema)])),
      securitySchemes: {
        session: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The session id of POST /v1/login, as the bare header value' },
      },
    },
  };
}
