import { Readable } from 'node:stream';
import * as v from 'valibot';
import { invalid } from '../services/errors.js';
import { BodyBudget } from './body-budget.js';
import type { AppContext, BodyIntake, Timers } from './types.js';

/** Largest body of a request with a session (bytes): a full key/value store (1000 × 1256 characters) fits in one. */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;
/** Largest body of a request that needs no session (login, the simulator's controls): a few KiB. */
export const PUBLIC_BODY_LIMIT_BYTES = 4096;
/**
 * Bytes of request bodies being received at once, over all requests with a session, and over all requests without
 * one. Separate budgets, so that nobody without a session can keep the logged-in client's bodies out.
 */
export const SESSION_BODIES_IN_FLIGHT_BYTES = 8 * 1024 * 1024;
export const PUBLIC_BODIES_IN_FLIGHT_BYTES = 1024 * 1024;
/** Longest time a whole request body may take to arrive, from when its endpoint starts reading it. */
export const BODY_TIME_LIMIT_MS = 10_000;

/** Strict: a byte sequence that is not UTF-8 is an error, not U+FFFD. (A leading BOM is dropped.) */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export type BodyProblem = 'empty' | 'too-large' | 'invalid-json' | 'bad-text' | 'too-slow' | 'busy';

export type BodyResult = { ok: true; value: unknown } | { ok: false; problem: BodyProblem; detail: string };
type BodyFailure = Extract<BodyResult, { ok: false }>;

/** The intakes of requests with a session and without one, each with its own budget. */
export function createBodyIntakes(timers: Timers): { session: BodyIntake; public: BodyIntake } {
  return {
    session: { limit: BODY_LIMIT_BYTES, budget: new BodyBudget(SESSION_BODIES_IN_FLIGHT_BYTES), timers },
    public: { limit: PUBLIC_BODY_LIMIT_BYTES, budget: new BodyBudget(PUBLIC_BODIES_IN_FLIGHT_BYTES), timers },
  };
}

/**
 * The client closed the connection before its request body arrived: nobody is left to answer. The request is logged
 * with status 499 ("client closed request", as nginx logs it), nothing else.
 */
export class ClientClosed extends Error {
  constructor(cause: unknown) {
    super('The client closed the connection before its request body arrived', { cause });
    this.name = 'ClientClosed';
  }
}

/** Whether the request carries a body (over HTTP: a length above 0 or a chunked transfer was announced), unread. */
export function hasBody(c: AppContext): boolean {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.raw.body !== null;
  const length = incoming.headers['content-length'];
  return (length !== undefined && length !== '0') || incoming.headers['transfer-encoding'] !== undefined;
}

/**
 * The body's bytes: over HTTP straight from the Node request (for every method: a `Request` cannot carry a GET's
 * body, and building one for the body alone cost a twentieth of the main thread under load), read through a stream
 * of our own so that stopping early never destroys the socket before the answer is written; over NFC (no Node
 * request) from the `Request`.
 */
export function bodyStream(c: AppContext): ReadableStream<Uint8Array> | null {
  const incoming = c.env?.incoming;
  if (!incoming) return c.req.raw.body;
  if (!hasBody(c)) return null;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        reader ??= (Readable.toWeb(incoming) as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(err);
      }
    },
  });
}

/**
 * Receives the whole body, never more than `limit` bytes (a Content-Length over it is refused before reading, a
 * chunked body as soon as it passes it), within BODY_TIME_LIMIT_MS (then 400, and the connection is closed: the
 * rest of the body is not waited for), and within the intake's budget of bytes in flight.
 */
async function receive(c: AppContext, intake: BodyIntake, limit: number): Promise<Uint8Array | BodyFailure | null> {
  const tooLarge = { ok: false, problem: 'too-large', detail: `The request body is larger than ${limit} bytes` } as const;
  if (Number(c.req.header('content-length') ?? '0') > limit) return tooLarge;
  const stream = bodyStream(c);
  if (!stream) return null;
  const reader = stream.getReader();
  let expired = false;
  const timer = intake.timers.setTimeout(() => {
    expired = true;
    reader.cancel().catch(() => undefined); // the pending read ends as done
  }, BODY_TIME_LIMIT_MS);
  const chunks: Uint8Array[] = [];
  let size = 0;
  let failure: BodyFailure | null = null;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        throw new ClientClosed(err);
      }
      if (expired) {
        c.header('Connection', 'close');
        failure = { ok: false, problem: 'too-slow', detail: `The request body did not arrive within ${BODY_TIME_LIMIT_MS / 1000} s` };
        break;
      }
      if (next.done) break;
      if (size + next.value.byteLength > limit) {
        failure = tooLarge;
        break;
      }
      if (!intake.budget.take(next.value.byteLength)) {
        failure = { ok: false, problem: 'busy', detail: 'The controller is receiving too many request bodies at once; send the request again shortly' };
        break;
      }
      size += next.value.byteLength;
      chunks.push(next.value);
    }
  } finally {
    intake.timers.clearTimeout(timer);
    intake.budget.give(size);
  }
  if (failure) {
    if (!expired) await reader.cancel().catch(() => undefined);
    return failure;
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * Reads the request body as JSON under its route's intake (size, time, bytes in flight); `limit` lowers the size
 * limit for one endpoint. Once the body is complete the intake checks that the request may still take effect (its
 * session), then the text must be UTF-8, JSON, and hold only text the database keeps as sent. A body that is empty
 * (or absent) is the problem `empty`.
 */
export async function readJson(c: AppContext, limit?: number): Promise<BodyResult> {
  const intake = c.get('intake');
  if (!intake) throw new Error(`No body intake for ${c.req.path}: register the route through the Router (api/app.ts)`);
  const bytes = await receive(c, intake, Math.min(limit ?? intake.limit, intake.limit));
  if (bytes !== null && !(bytes instanceof Uint8Array)) return bytes;
  await intake.received?.(c);
  const empty = { ok: false, problem: 'empty', detail: 'The request has no body; send a JSON document' } as const;
  if (bytes === null) return empty;
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    // Decoding with replacement would store U+FFFD instead of what was sent.
    return { ok: false, problem: 'invalid-json', detail: 'The request body is not valid UTF-8 (JSON text must be UTF-8)' };
  }
  if (text.trim() === '') return empty;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: 'invalid-json', detail: `The request body is not valid JSON (${(err as Error).message})` };
  }
  const bad = findUnstorableText(value);
  if (bad !== null) return { ok: false, problem: 'bad-text', detail: `The request body is invalid: ${bad}` };
  return { ok: true, value };
}

/**
 * Text the database cannot keep as sent: a NUL character (SQLite text ends there) or a lone UTF-16 surrogate
 * (not Unicode; it would be stored as U+FFFD). Every string of the body, member names included, is checked, so no
 * endpoint can store text that reads back differently. Iterative: nesting depth cannot overflow the stack.
 */
function findUnstorableText(root: unknown): string | null {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return 'text must not contain the NUL character (\\u0000)';
      if (!value.isWellFormed()) return 'text must be valid Unicode (it contains a lone surrogate)';
    } else if (Array.isArray(value)) {
      // One by one: spreading a long array into push's arguments overflows the stack (about 125,000 elements).
      for (const element of value) stack.push(element);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) stack.push(key, member);
    }
  }
  return null;
}

/** The body as JSON for the OperationFailed endpoints: any problem is a 400 with its cause. */
export async function jsonBody(c: AppContext): Promise<unknown> {
  const body = await readJson(c);
  if (!body.ok) throw invalid(body.detail);
  return body.value;
}

/** Describes valibot issues as one cause: `tags[0].tagType: must be one of RFID, EVCCID, NFC; …`. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? []).map((p, i) => (typeof p.key === 'number' ? `[${p.key}]` : `${i === 0 ? '' : '.'}${String(p.key)}`)).join('');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** Validates `data` with `schema`; throws a 400 naming each problem. */
export function parseWith<const S extends v.GenericSchema>(schema: S, data: unknown, what = 'The request'): v.InferOutput<S> {
  const result = v.safeParse(schema, data);
  if (!result.success) throw invalid(`${what} is invalid: ${describeIssues(result.issues)}`);
  return result.output;
}
