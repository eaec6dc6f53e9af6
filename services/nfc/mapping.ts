/**
 * The NFC message mapping (spec 5, "NFC message mapping"): a request is one NDEF Text record whose text is a JSON
 * header `{path, method, authorization, messageID}`, optionally followed by a comma and the JSON content; the answer
 * is `{messageID, statusCode}`, optionally followed by a comma and the content. A request becomes a standard
 * `Request` handed to the same fetch the HTTP server uses (request log included), so every endpoint, status code and
 * session rule is the same over NFC; only the transport's client address differs.
 */
import type { Bindings, Fetch } from '../fetch.js';
import type { Logger } from '../logger.js';
import { decodeTextRecord, encodeTextRecord, NdefError } from '../../drivers/nfc/ndef.js';

/** The methods a request header may name (the API's own; anything else is refused before the app). */
export const NFC_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** The longest `path` (with its query) a header may carry. */
export const MAX_NFC_PATH = 8192;

/** What the client chose as `messageID`, echoed in the answer; null when the header could not be read. */
export type MessageId = string | number | null;

export interface NfcRequestHeader {
  path: string;
  method: (typeof NFC_METHODS)[number];
  authorization: string;
  messageID: string | number;
}

/** Why a request was refused before reaching the app (answered 400 OperationFailed). */
export class NfcRequestError extends Error {
  constructor(
    message: string,
    readonly messageID: MessageId = null,
  ) {
    super(message);
  }
}

/** The answer text: the header, then `,` and the content when there is any. */
export function answerText(messageID: MessageId, statusCode: number, content?: string): string {
  const header = JSON.stringify({ messageID, statusCode });
  return content === undefined || content === '' ? header : `${header},${content}`;
}

/** An OperationFailed answer (spec 2.1). */
export function failedAnswer(messageID: MessageId, statusCode: number, cause: string): string {
  return answerText(messageID, statusCode, JSON.stringify({ success: false, cause }));
}

/** The length of the JSON object at the start of `text` (strings and escapes respected), or -1 when it never closes. */
function objectEnd(text: string): number {
  if (text[0] !== '{') return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) depth++;
    else if (ch === 0x7d || ch === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Splits a request text into its header and the optional content (the raw JSON text after the comma). */
export function parseRequestText(text: string): { header: NfcRequestHeader; content: string | undefined } {
  const end = objectEnd(text);
  if (end < 0) throw new NfcRequestError('The request must start with a JSON header object {path, method, authorization, messageID}');
  let raw: unknown;
  try {
    raw = JSON.parse(text.slice(0, end));
  } catch {
    throw new NfcRequestError('The request header is not valid JSON');
  }
  const h = raw as Record<string, unknown>;
  const messageID = typeof h.messageID === 'string' || (typeof h.messageID === 'number' && Number.isFinite(h.messageID)) ? h.messageID : null;
  const rest = text.slice(end);
  if (rest !== '' && rest[0] !== ',') throw new NfcRequestError('The request header must be followed by nothing or by a comma and the JSON content', messageID);
  if (messageID === null) throw new NfcRequestError('The request header needs a messageID (a string)');
  if (typeof h.path !== 'string' || !h.path.startsWith('/'))
    throw new NfcRequestError('The request header needs a path starting with / (the endpoint path without /v1)', messageID);
  if (h.path.length > MAX_NFC_PATH) throw new NfcRequestError(`The path is longer than ${MAX_NFC_PATH} characters`, messageID);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f#]/.test(h.path)) throw new NfcRequestError('The path must not contain spaces, control characters or #', messageID);
  const method = typeof h.method === 'string' ? h.method.toUpperCase() : undefined;
  if (!(NFC_METHODS as readonly (string | undefined)[]).includes(method)) {
    throw new NfcRequestError(`The request header needs a method: one of ${NFC_METHODS.join(', ')}`, messageID);
  }
  if (h.authorization !== undefined && h.authorization !== null && typeof h.authorization !== 'string') {
    throw new NfcRequestError('The authorization must be a string (the session id)', messageID);
  }
  return {
    header: { path: h.path, method: method as NfcRequestHeader['method'], authorization: (h.authorization as string | null | undefined) ?? '', messageID },
    content: rest === '' ? undefined : rest.slice(1),
  };
}

/**
 * The app URL of a header's path: `/v1` + path, resolved as a URL resolves it (dot segments, percent-encoded ones
 * and `\` included). NFC reaches the `/v1` API only: a path that resolves outside it (`/../sim/unplug`,
 * `/v1/%2e%2e/web/app.js`) is refused, never passed on.
 */
export function apiUrl(path: string, messageID: MessageId = null): URL {
  let url: URL;
  try {
    url = new URL(`http://nfc${path === '/v1' || path.startsWith('/v1/') ? path : `/v1${path}`}`);
  } catch {
    throw new NfcRequestError('The path is not a valid URL path', messageID);
  }
  if (url.host !== 'nfc' || (url.pathname !== '/v1' && !url.pathname.startsWith('/v1/'))) {
    throw new NfcRequestError('The path must stay under /v1 once its dot segments are resolved: NFC reaches the /v1 API only', messageID);
  }
  return url;
}

/** The app request for a header and content: `/v1` + path, the session id as the Authorization header. */
export function toRequest({ header, content }: { header: NfcRequestHeader; content: string | undefined }): Request {
  const url = apiUrl(header.path, header.messageID);
  const headers = new Headers();
  if (header.authorization !== '') headers.set('authorization', header.authorization);
  // GET requests are fully defined by the header (spec 5): content after a GET header is ignored, as HTTP does.
  const body = header.method === 'GET' ? undefined : content;
  if (body !== undefined) headers.set('content-type', 'application/json');
  return new Request(url, { method: header.method, headers, ...(body !== undefined ? { body } : {}) });
}

export interface NfcHandlerOptions {
  /** The app's fetch, exactly as HTTP calls it (request log included). */
  fetch: Fetch;
  /** The NFC link's client address, which sessions created over NFC are bound to. */
  clientAddress: string;
  /** The longest answer message (bytes of the NDEF message) the transport can carry. */
  maxAnswerBytes: number;
  logger: Logger;
}

/**
 * Turns one committed request message into its answer message. Never rejects: malformed records, headers and
 * unknown methods get a 400 answer, an answer too long for the NDEF file a 500, an unexpected fault a 500.
 */
export function createNfcRequestHandler({ fetch, clientAddress, maxAnswerBytes, logger }: NfcHandlerOptions) {
  const env: Bindings = { clientAddress };
  const refuse = (messageID: MessageId, statusCode: number, cause: string): Uint8Array => {
    logger.warn({ transport: 'nfc', statusCode, cause }, 'NFC request refused');
    return encodeTextRecord(failedAnswer(messageID, statusCode, cause));
  };

  return async function handle(message: Uint8Array): Promise<Uint8Array> {
    let messageID: MessageId = null;
    try {
      const parsed = parseRequestText(decodeTextRecord(message));
      messageID = parsed.header.messageID;
      const request = toRequest(parsed);
      const response = await fetch(request, env);
      const answer = encodeTextRecord(answerText(messageID, response.status, await response.text()));
      if (answer.length > maxAnswerBytes) {
        return refuse(
          messageID,
          500,
          `The answer (${answer.length} bytes) is longer than the NFC transport carries (${maxAnswerBytes} bytes): narrow the request or use HTTP`,
        );
      }
      return answer;
    } catch (err) {
      if (err instanceof NdefError) return refuse(null, 400, err.message);
      if (err instanceof NfcRequestError) return refuse(err.messageID, 400, err.message);
      logger.error({ err, transport: 'nfc' }, 'unexpected error in an NFC request');
      return encodeTextRecord(failedAnswer(messageID, 500, 'Internal error'));
    }
  };
}

export type NfcRequestHandler = ReturnType<typeof createNfcRequestHandler>;

/** The messageID of a request message, when it can be read (for the answer of a refused request). */
export function messageIdOf(message: Uint8Array): MessageId {
  try {
    return parseRequestText(decodeTextRecord(message)).header.messageID;
  } catch (err) {
    return err instanceof NfcRequestError ? err.messageID : null;
  }
}

/** The answer to a request committed while another one is outstanding (spec 8: one outstanding NFC request). */
export function outstandingRefusal(message: Uint8Array): Uint8Array {
  return encodeTextRecord(
    failedAnswer(
      messageIdOf(message),
      400,
      'One NFC request at a time: this request was not executed because the answer to the previous one has not been read yet',
    ),
  );
}
