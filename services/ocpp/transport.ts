import { readFileSync } from 'node:fs';
import type { RPCClient } from 'ocpp-rpc';
import { loadOcppRpc, validatorsFor, type OcppProtocol } from './rpc-library.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../logger.js';

/** What the transport reports to the backend link (machines/backend-link.ts). */
export interface TransportEvents {
  opened(): void;
  /** The connection could not be opened (`reason`: why, for the log; `cause`: the error, for its security event). */
  failed(reason: string, cause?: unknown): void;
  /** An open connection closed: by the peer, the network, or a ping without pong. */
  closed(reason: string): void;
}

/** Where and how one connection attempt connects: read anew at each attempt (the 2.0.1 network profiles change it). */
export interface Endpoint {
  /** The central system's URL (ws:// or wss://) without the identity. */
  url: string;
  /** Security profiles 1 and 2: HTTP basic authentication with this password (never logged). */
  password?: string | undefined;
  /** wss://: the authorities (PEM) the server's certificate is checked against; none: the system's trusted ones. */
  ca?: string[] | undefined;
  /** Security profile 3: the station's TLS client certificate (PEM chain) and its key. */
  client?: { cert: string; key: string } | undefined;
  /** The OCPP versions offered (WebSocket subprotocols), in order of preference. */
  protocols: readonly OcppProtocol[];
  /** How long the central system has to answer a call (ms); default CALL_TIMEOUT_MS. */
  callTimeoutMs?: number | undefined;
}

export interface TransportOptions {
  /** The endpoint of the next attempt. */
  endpoint: () => Endpoint;
  identity: string;
  clock: Clock;
  /** WebSocket ping interval (ms; 0: none), read at each ping. */
  pingIntervalMs: () => number;
  logger: Logger;
  /** Every frame both ways, as sent (development and tests); secrets are already masked. */
  frame?: (direction: 'in' | 'out', text: string) => void;
}

/** The CALLERROR codes of OCPP-J 1.6 (4.2.3), spelled as 1.6 spells them (errata: OccurenceConstraintViolation kept). */
export const OCPP16_ERROR_CODES = [
  'NotImplemented',
  'NotSupported',
  'InternalError',
  'ProtocolError',
  'SecurityError',
  'FormationViolation',
  'PropertyConstraintViolation',
  'OccurenceConstraintViolation',
  'TypeConstraintViolation',
  'GenericError',
] as const;
export type Ocpp16ErrorCode = (typeof OCPP16_ERROR_CODES)[number];

/** The CALLERROR codes of OCPP-J 2.0.1 (4.3). */
export const OCPP201_ERROR_CODES = [
  'FormatViolation',
  'GenericError',
  'InternalError',
  'MessageTypeNotSupported',
  'NotImplemented',
  'NotSupported',
  'OccurrenceConstraintViolation',
  'PropertyConstraintViolation',
  'ProtocolError',
  'RpcFrameworkError',
  'SecurityError',
  'TypeConstraintViolation',
] as const;
export type Ocpp201ErrorCode = (typeof OCPP201_ERROR_CODES)[number];

/**
 * ocpp-rpc answers with OCPP 2.0.1 codes where 1.6 has its own: a frame that is not JSON, not an array, or has a
 * non-numeric type or id (RpcFrameworkError: 1.6 FormationViolation), an unknown message type
 * (MessageTypeNotSupported: 1.6 ProtocolError), and 2.0.1 spellings. Any other code is GenericError.
 */
const TO_OCPP16: Record<string, Ocpp16ErrorCode> = {
  RpcFrameworkError: 'FormationViolation',
  FormatViolation: 'FormationViolation',
  MessageTypeNotSupported: 'ProtocolError',
  OccurrenceConstraintViolation: 'OccurenceConstraintViolation',
};
export function ocpp16ErrorCode(code: string): Ocpp16ErrorCode {
  return TO_OCPP16[code] ?? ((OCPP16_ERROR_CODES as readonly string[]).includes(code) ? (code as Ocpp16ErrorCode) : 'GenericError');
}

/** ocpp-rpc's validator spells 2.0.1's OccurrenceConstraintViolation as 1.6 does; any code not of 2.0.1 is GenericError. */
const TO_OCPP201: Record<string, Ocpp201ErrorCode> = {
  OccurenceConstraintViolation: 'OccurrenceConstraintViolation',
  FormationViolation: 'FormatViolation',
};
export function ocpp201ErrorCode(code: string): Ocpp201ErrorCode {
  return TO_OCPP201[code] ?? ((OCPP201_ERROR_CODES as readonly string[]).includes(code) ? (code as Ocpp201ErrorCode) : 'GenericError');
}

/** A CALLERROR frame with its code made one of `protocol`'s; any other frame as it is. */
export function asVersionFrame(text: string, protocol: OcppProtocol | undefined): string {
  return protocol === 'ocpp2.0.1' ? withErrorCode(text, ocpp201ErrorCode) : withErrorCode(text, ocpp16ErrorCode);
}

/** A CALLERROR frame with its code made an OCPP-J 1.6 one; any other frame as it is. */
export function asOcpp16Frame(text: string): string {
  return withErrorCode(text, ocpp16ErrorCode);
}

function withErrorCode(text: string, codeOf: (code: string) => string): string {
  if (!text.startsWith('[4')) return text;
  try {
    const message = JSON.parse(text) as unknown[];
    if (message[0] !== 4 || typeof message[2] !== 'string') return text;
    const code = codeOf(message[2]);
    if (code === message[2]) return text;
    message[2] = code;
    return JSON.stringify(message);
  } catch {
    return text;
  }
}

/** An error answer (CALLERROR) to a call the central system made. */
export class CallError extends Error {
  constructor(
    readonly rpcErrorCode: Ocpp16ErrorCode | Ocpp201ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A call the central system made, answered by the returned payload (or a thrown CallError). */
export type CallHandler = (action: string, payload: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * The calls the charge point answers in one OCPP version: their actions (any other is NotImplemented before
 * validation) and the handler.
 */
export interface IncomingCallHandler {
  actions: readonly string[];
  handle: CallHandler;
}

/** The largest frame accepted from the central system (a full local list of 1000 tags is about 100 KB). */
export const MAX_FRAME_BYTES = 1 << 20;

/** How long the central system has to answer a call before it counts as failed. */
export const CALL_TIMEOUT_MS = 30_000;

/**
 * Checks the connection settings; returns a clear error for an unusable combination (the link then stays
 * disconnected and logs it), or undefined.
 */
export function configurationError(o: { url: string; caFile?: string | undefined }): string | undefined {
  if (!o.url) return "OcppUrl is empty: set the central system's ws:// or wss:// URL";
  let url: URL;
  try {
    url = new URL(o.url);
  } catch {
    return `OcppUrl ${JSON.stringify(o.url)} is not a URL`;
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') return 'OcppUrl must start with ws:// or wss://';
  if (url.username || url.password) return 'OcppUrl must not contain a user name or password: set OcppPassword (security profile 1)';
  if (o.caFile && url.protocol !== 'wss:') return 'OcppCaFile is set but OcppUrl is not wss:// (security profile 2 needs TLS)';
  if (o.caFile) {
    try {
      readFileSync(o.caFile);
    } catch (err) {
      return `OcppCaFile ${JSON.stringify(o.caFile)} cannot be read: ${(err as Error).message}`;
    }
  }
  return undefined;
}

/** Masks what must not be written anywhere: the AuthorizationKey a central system sends with ChangeConfiguration. */
export function maskSecrets(text: string): string {
  if (!text.includes('AuthorizationKey')) return text;
  try {
    const message = JSON.parse(text) as unknown[];
    if (message[0] === 2 && message[2] === 'ChangeConfiguration') {
      const payload = message[3] as { key?: string; value?: string };
      if (payload.key === 'AuthorizationKey') payload.value = '***';
      return JSON.stringify(message);
    }
  } catch {
    // not JSON: shown as is
  }
  return text;
}

/**
 * The OCPP-J transport: an ocpp-rpc client with the OCA JSON schemas in strict mode (every call and answer is
 * validated both ways; an invalid one is refused, never sent or acted on), one connection attempt per `open()`
 * (the backend link retries with its own backoff; ocpp-rpc's reconnect is off, as it starts only after a first
 * success), and WebSocket ping/pong on the actor clock: a ping not answered by the next ping closes the connection
 * (a dead link is never shown as connected).
 */
/** ocpp-rpc with its schema validators, loaded for the first connection (rpc-library.ts). */
const loadRpc = loadOcppRpc;

export function createTransport(o: TransportOptions, calls: Partial<Record<OcppProtocol, IncomingCallHandler>>, events: TransportEvents) {
  let client: RPCClient | undefined;
  /** The endpoint of the open connection (or of the attempt under way). */
  let endpoint: Endpoint | undefined;
  /** The version the open connection speaks (the central system picked it). */
  let protocol: OcppProtocol | undefined;
  let pingTimer: unknown;
  let awaitingPong = false;
  /** Each connection gets a number; events of an older one are ignored. */
  let generation = 0;

  const stopPinging = () => {
    o.clock.clearTimeout(pingTimer);
    pingTimer = undefined;
  };

  const schedulePing = (gen: number) => {
    stopPinging();
    const ms = o.pingIntervalMs();
    if (ms <= 0) return;
    pingTimer = o.clock.setTimeout(() => {
      if (gen !== generation || !client) return;
      if (awaitingPong) {
        o.logger.warn({ intervalMs: ms }, 'OCPP: the central system did not answer the WebSocket ping: the connection is dead, closing it');
        void client.close({ force: true });
        return;
      }
      awaitingPong = true;
      try {
        (client as unknown as { _ws?: { ping(): void } })._ws?.ping();
      } catch {
        void client.close({ force: true });
        return;
      }
      schedulePing(gen);
    }, ms);
  };

  return {
    /** Opens the connection; reports `opened` or `failed`, and later `closed`. */
    open(): void {
      const gen = ++generation;
      let e: Endpoint;
      try {
        e = o.endpoint();
      } catch (err) {
        queueMicrotask(() => gen === generation && events.failed((err as Error).message, err));
        return;
      }
      const protocols = e.protocols.length ? e.protocols : (['ocpp1.6'] as const);
      Promise.all([loadRpc(), validatorsFor(protocols)]).then(
        ([rpc, validators]) => {
          if (gen !== generation) return;
          try {
            connect(rpc, validators, gen, { ...e, protocols });
          } catch (err) {
            client = undefined;
            events.failed((err as Error).message, err);
          }
        },
        (err: Error) => {
          if (gen === generation) events.failed(`the OCPP library cannot be loaded: ${err.message}`);
        },
      );
    },

    /** Calls the central system; rejects on a CALLERROR, a timeout or a closed connection. */
    async call(action: string, payload: Record<string, unknown>, options: { timeoutMs?: number } = {}): Promise<Record<string, unknown>> {
      if (!client) throw new Error('not connected');
      const callTimeoutMs = options.timeoutMs ?? endpoint?.callTimeoutMs ?? CALL_TIMEOUT_MS;
      return (await client.call(action, payload, { callTimeoutMs })) as Record<string, unknown>;
    },

    /** The URL of the open connection (or of the attempt under way). */
    url: (): string | undefined => endpoint?.url,

    /** The OCPP version of the open connection (undefined: none open). */
    protocol: (): OcppProtocol | undefined => (client ? protocol : undefined),

    /** Closes the connection (no `closed` report follows). */
    close(): void {
      generation++;
      stopPinging();
      const c = client;
      client = undefined;
      void c?.close({ force: true }).catch(() => {});
    },
  };

  function connect({ RPCClient, createRPCError }: typeof import('ocpp-rpc'), validators: unknown[], gen: number, e: Endpoint): void {
    const { protocols } = e;
    const tls = { ...(e.ca?.length ? { ca: e.ca } : {}), ...(e.client ? { cert: e.client.cert, key: e.client.key } : {}) };
    const c = new RPCClient({
      endpoint: e.url.replace(/\/+$/, ''),
      identity: o.identity,
      protocols: [...protocols],
      strictMode: true,
      strictModeValidators: validators,
      reconnect: false,
      pingIntervalMs: 0,
      callTimeoutMs: e.callTimeoutMs ?? CALL_TIMEOUT_MS,
      respondWithDetailedErrors: false,
      ...(e.password ? { password: e.password } : {}),
      wsOpts: { maxPayload: MAX_FRAME_BYTES, ...tls },
    } as never);
    endpoint = e;
    client = c;
    protocol = undefined;
    // Every CALLERROR leaves through sendRaw: its code is made one of the negotiated version there.
    const sendRaw = c.sendRaw.bind(c);
    c.sendRaw = (message: string) => sendRaw(asVersionFrame(message, protocol));
    // The version is known before any message is read: the handlers of that version are registered then, one per
    // action it answers; ocpp-rpc answers any other NotImplemented, before its strict validation would call the
    // missing schema a ProtocolError.
    c.once('protocol', (picked: string) => {
      protocol = (protocols as readonly string[]).includes(picked) ? (picked as OcppProtocol) : undefined;
      const versionCalls = protocol ? calls[protocol] : undefined;
      for (const action of versionCalls?.actions ?? []) {
        c.handle(action, async ({ params }) => {
          try {
            return await versionCalls!.handle(action, (params ?? {}) as Record<string, unknown>);
          } catch (err) {
            // createRPCError is typed as a plain record but builds an RPCError (an Error subclass).
            if (err instanceof CallError) throw createRPCError(err.rpcErrorCode, err.message) as unknown as Error;
            o.logger.error({ err, action }, 'OCPP: handling a call of the central system failed');
            throw err;
          }
        });
      }
    });
    c.on('message', ({ message, outbound }: { message: Buffer | string; outbound: boolean }) => {
      if (gen !== generation) return;
      const text = maskSecrets(message.toString());
      o.logger.debug({ direction: outbound ? 'out' : 'in', frame: text }, 'OCPP frame');
      o.frame?.(outbound ? 'out' : 'in', text);
    });
    c.on('ping', () => {
      awaitingPong = false;
    });
    c.on('strictValidationFailure', ({ method, outbound, isCall, error }: { method?: string; outbound: boolean; isCall: boolean; error: Error }) => {
      o.logger.error(
        { action: method, direction: outbound ? 'out' : 'in', isCall, error: error.message },
        `OCPP: a message failed the ${protocol ?? 'OCPP'} JSON schema and was refused`,
      );
    });
    c.on('close', ({ code, reason }: { code?: number; reason?: string }) => {
      if (gen !== generation) return;
      stopPinging();
      client = undefined;
      events.closed(`code ${code ?? '?'}${reason ? `: ${reason}` : ''}`);
    });
    c.connect().then(
      () => {
        if (gen !== generation) return;
        if (!protocol) {
          // A central system that picked no subprotocol (or one not offered): nothing can be validated or spoken.
          client = undefined;
          void c.close({ force: true }).catch(() => {});
          events.failed(`the central system accepted none of the offered OCPP versions (${protocols.join(', ')})`);
          return;
        }
        awaitingPong = false;
        schedulePing(gen);
        events.opened();
      },
      (err: Error & { code?: number | string }) => {
        if (gen !== generation) return;
        client = undefined;
        events.failed(typeof err.code === 'number' ? `HTTP ${err.code} ${err.message}` : err.message, err);
      },
    );
  }
}

export type Transport = ReturnType<typeof createTransport>;
