import type { Context } from 'hono';
import { isStorageFull } from '../db/storage.js';
import { OperationError, type FailureKind } from '../services/errors.js';
import { ClientClosed } from './body.js';

/** Session error codes of spec 7.2 that this API answers with. */
export const SessionCodes = [1001, 1002, 1003, 1004, 1005, 1007, 1008, 1011, 1012] as const;
export type SessionCode = (typeof SessionCodes)[number];

const SESSION_MESSAGES: Record<SessionCode, string> = {
  1001: 'Invalid credentials: request a new token with GET /v1/login and log in again',
  1002: 'Not logged in: send the session id in the Authorization header',
  1003: 'Wrong session id: the session was ended or replaced by another login; log in again',
  1004: 'Session timed out after 60 seconds without a call; log in again',
  1005: 'The client address does not match the address the session was created from; log in again',
  1007: 'Invalid JSON data in the login request body',
  1008: 'Bad data: the login body needs the strings "username" and "password" (hex SHA-256 of password + token)',
  1011: 'Too much data in the login request body',
  1012: 'No data in the login request body',
};

/** A not-logged-in answer (spec 2.6): 401, or 400 for a malformed login body. */
export class SessionError extends Error {
  constructor(
    readonly code: SessionCode,
    readonly status: 400 | 401 = 401,
    message: string = SESSION_MESSAGES[code],
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

export const STATUS_OF: Record<FailureKind, 400 | 403 | 404 | 409 | 500> = { invalid: 400, forbidden: 403, 'not-found': 404, conflict: 409, internal: 500 };

/** The request log's status of a request whose client went away before its body arrived (nginx's 499). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Every error answer is JSON and says so: no browser may take it for something else (HTML, script). */
export const NO_SNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

/** OperationFailed (spec 2.1) as JSON text, for answers written outside the app (the HTTP server's own refusals). */
export const operationFailedText = (cause: string) => JSON.stringify({ success: false, cause });

/** The cause of every 500: it reveals nothing internal. */
export const INTERNAL_ERROR_CAUSE = 'Internal error: the controller could not complete the request; it has logged the details';

/**
 * The cause of a write refused because the data directory's file system is full (507 Insufficient Storage: the
 * request was sound, the controller cannot store it; the spec names no status for it). Nothing of it was stored.
 */
export const STORAGE_FULL_CAUSE =
  "The controller's storage is full: nothing was changed. Charging goes on; free space on the data directory's file system (see the event log) and try again";

/** OperationFailed (spec 2.1). */
export const operationFailed = (c: Context, status: 400 | 403 | 404 | 409 | 500 | 507, cause: string) => c.json({ success: false as const, cause }, status);

/** OperationSucceeded (spec 2.2). */
export const operationSucceeded = (c: Context) => c.json({ success: true as const }, 200);

/** 204: no body, no content type. */
export const noContent = (c: Context) => c.body(null, 204);

/**
 * The one place an error becomes a response: refused operations get their status and OperationFailed body, session
 * problems the not-logged-in body, a client that closed the connection before its body arrived 499 (never sent:
 * the request log shows it as what it is), a write the full disk refused 507, and anything unexpected a logged 500 whose body reveals nothing internal.
 */
export function errorResponse(err: unknown, c: Context, logUnexpected: (err: unknown) => void): Response {
  for (const [name, value] of Object.entries(NO_SNIFF)) c.header(name, value);
  if (err instanceof OperationError) {
    if (err.details) return c.json({ success: false as const, cause: err.message, ...err.details }, STATUS_OF[err.kind]);
    return operationFailed(c, STATUS_OF[err.kind], err.message);
  }
  if (err instanceof SessionError) {
    return c.json({ logged_in: false as const, message: err.message, code: err.code }, err.status);
  }
  if (err instanceof ClientClosed) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
  // Logged once by the storage watch (services/storage-watch.ts), not once per refused request.
  if (isStorageFull(err)) return operationFailed(c, 507, STORAGE_FULL_CAUSE);
  logUnexpected(err);
  return operationFailed(c, 500, INTERNAL_ERROR_CAUSE);
}
