import type { Context } from 'hono';
import * as v from 'valibot';
import { invalid } from '../services/errors.js';

/** Largest request body accepted (bytes): a full key/value store (1000 × 1256 characters) fits in one request. */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export type BodyProblem = 'empty' | 'too-large' | 'invalid-json' | 'bad-text';

export type BodyResult = { ok: true; value: unknown } | { ok: false; problem: BodyProblem; detail: string };

/**
 * Reads the request body as JSON, never more than `limit` bytes: a Content-Length over the limit is refused before
 * reading, a chunked body as soon as it passes the limit.
 */
export async function readJson(c: Context, limit = BODY_LIMIT_BYTES): Promise<BodyResult> {
  const tooLarge = { ok: false, problem: 'too-large', detail: `The request body is larger than ${limit} bytes` } as const;
  const empty = { ok: false, problem: 'empty', detail: 'The request has no body; send a JSON document' } as const;
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > limit) return tooLarge;
  const stream = c.req.raw.body;
  if (!stream) return empty;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return tooLarge;
    }
    chunks.push(value);
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
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
      stack.push(...value);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, member] of Object.entries(value)) stack.push(key, member);
    }
  }
  return null;
}

/** The body as JSON for the OperationFailed endpoints: any problem is a 400 with its cause. */
export async function jsonBody(c: Context): Promise<unknown> {
  const body = await readJson(c);
  if (!body.ok) throw invalid(body.detail);
  return body.value;
}

/** Describes valibot issues as one cause: `tags[0].tagType: must be one of RFID, EVCCID, NFC; …`. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((p, i) => (typeof p.key === 'number' ? `[${p.key}]` : `${i === 0 ? '' : '.'}${String(p.key)}`))
        .join('');
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
