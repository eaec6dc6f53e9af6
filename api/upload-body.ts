import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { bodyStream, ClientClosed } from './body.js';
import type { AppContext } from './types.js';

/** Longest pause between two pieces of an upload's body: then 400, and the connection is closed. */
export const UPLOAD_IDLE_LIMIT_MS = 30_000;
/** Longest time a whole upload may take (256 MiB at about 1.2 Mbit/s). */
export const UPLOAD_TIME_LIMIT_MS = 30 * 60_000;

export type FileBody = { ok: true; bytes: number } | { ok: false; detail: string };

/**
 * Receives a request body of up to `limit` bytes into the file `path` (a file upload, far above the 2 MiB that
 * api/body.ts holds in memory): a Content-Length over the limit is refused before reading, a body that passes it
 * as soon as it does. Each piece is written before the next is read, so memory holds one piece; `beforePiece` runs
 * before each write (the session check: it throws to stop). A pause of UPLOAD_IDLE_LIMIT_MS or a whole upload over
 * UPLOAD_TIME_LIMIT_MS ends it. The caller removes `path` in every case (a failure may leave part of the body).
 */
export async function receiveToFile(c: AppContext, path: string, limit: number, beforePiece: () => Promise<void> | void): Promise<FileBody> {
  const tooLarge = {
    ok: false,
    detail: `The request body is larger than ${limit} bytes (${limit / 1024 / 1024} MiB), the largest this endpoint takes`,
  } as const;
  if (Number(c.req.header('content-length') ?? '0') > limit) return tooLarge;
  const stream = bodyStream(c);
  if (!stream) return { ok: false, detail: 'The request has no body' };
  const { timers } = c.get('intake');
  const reader = stream.getReader();
  let expired: string | null = null;
  const expire = (why: string) => () => {
    expired = why;
    reader.cancel().catch(() => undefined); // the pending read ends as done
  };
  const idleTimer = () => timers.setTimeout(expire(`No part of the request body arrived for ${UPLOAD_IDLE_LIMIT_MS / 1000} s`), UPLOAD_IDLE_LIMIT_MS);
  const whole = timers.setTimeout(expire(`The request body did not arrive within ${UPLOAD_TIME_LIMIT_MS / 60_000} minutes`), UPLOAD_TIME_LIMIT_MS);
  let idle = idleTimer();
  let size = 0;
  let failure: FileBody | null = null;
  let complete = false;
  await mkdir(dirname(path), { recursive: true });
  const file = await open(path, 'w', 0o600);
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (err) {
        throw new ClientClosed(err);
      }
      if (expired !== null) {
        failure = { ok: false, detail: expired };
        break;
      }
      if (next.done) {
        complete = true;
        break;
      }
      timers.clearTimeout(idle);
      idle = idleTimer();
      if (size + next.value.byteLength > limit) {
        failure = tooLarge;
        break;
      }
      await beforePiece();
      await file.write(next.value);
      size += next.value.byteLength;
    }
  } finally {
    timers.clearTimeout(whole);
    timers.clearTimeout(idle);
    await file.close();
    if (!complete) {
      // The rest of the body is not waited for.
      c.header('Connection', 'close');
      if (expired === null) await reader.cancel().catch(() => undefined);
    }
  }
  if (failure) return failure;
  return size === 0 ? { ok: false, detail: 'The request has no body' } : { ok: true, bytes: size };
}
