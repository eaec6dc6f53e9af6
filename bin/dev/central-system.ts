import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { RPCServer } from 'ocpp-rpc';
import { OCPP16, OCPP20 } from 'typed-ocpp';

/**
 * A small OCPP-J central system for development and tests (`npm run csms`), for OCPP 1.6 and 2.0.1: ocpp-rpc's server
 * in strict mode (every frame both ways is validated against the OCA JSON schemas of the connection's version, and a
 * bad one refused), and every frame also checked by a second, independent validator (typed-ocpp, built from the OCA
 * schemas with its own ajv set-up); frames failing it are collected in `invalid`. The version is the WebSocket
 * subprotocol: the first of `protocols` (its order of preference) that the charge point offers. It answers the
 * charge point's calls with defaults a test can replace (`answer`), and sends calls to it (`call`).
 */

/** One frame, as the central system saw it (`in`: from the charge point). */
export interface Frame {
  direction: 'in' | 'out';
  message: unknown[];
  /** Clock time it was seen (the central system's clock). */
  at: number;
}

/** An OCPP payload as tests read it: both validators have checked it, so tests reach its fields directly. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test-facing, fields read without narrowing
export type Payload = Record<string, any>;

type Handler = (payload: Payload, identity: string) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** The OCPP-J versions, as WebSocket subprotocols. */
export const OCPP_PROTOCOLS = ['ocpp1.6', 'ocpp2.0.1'] as const;
export type OcppProtocol = (typeof OCPP_PROTOCOLS)[number];

/** The second validator of each version (typed-ocpp's), the same functions for both. */
const VALIDATORS: Record<OcppProtocol, Pick<typeof OCPP16, 'validate' | 'isCall' | 'isCallResult' | 'checkCallResult'>> = {
  'ocpp1.6': OCPP16,
  'ocpp2.0.1': OCPP20 as unknown as typeof OCPP16,
};

/** What this file uses of ocpp-rpc's server-side client (its `client` event passes it untyped). */
interface ChargePointLink {
  readonly identity: string;
  readonly state: number;
  /** The WebSocket subprotocol accepted. */
  readonly protocol?: string;
  on(event: 'message', listener: (event: { message: Buffer | string; outbound: boolean }) => void): void;
  on(event: 'close', listener: () => void): void;
  handle(handler: (call: { method: string; params: Payload }) => Promise<Record<string, unknown>>): void;
  call(method: string, params: Record<string, unknown>): Promise<unknown>;
  sendRaw(text: string): void;
  close(options: { force: boolean }): Promise<unknown>;
  /** ws's socket, reached to stop reading it (`freeze`). */
  readonly _ws?: { _socket?: { pause(): void } };
}

export interface CsmsOptions {
  port?: number;
  host?: string;
  /**
   * Security profile 2: serve wss:// with this certificate (PEM). With `clientCa`, security profile 3: only clients
   * showing a certificate this authority issued get through the TLS handshake.
   */
  tls?: { cert: string | Buffer; key: string | Buffer; clientCa?: string | Buffer | undefined };
  /** Security profile 1: accept only charge points sending this basic-authentication password. */
  password?: string;
  /** The central system's clock (answers' currentTime); Date.now by default. */
  now?: () => number;
  /** Every frame as a text line (`npm run csms` prints them). */
  log?: (line: string) => void;
  /** Decides each connection (tests: a connection attempt that fails or succeeds when the test says); default: accept. */
  admit?: (identity: string) => Promise<boolean>;
  /** The versions it speaks, in its order of preference (default: 1.6 only). */
  protocols?: readonly OcppProtocol[];
}

export interface Csms {
  port: number;
  /** The URL for OcppUrl (the charge point appends its identity). */
  url: string;
  frames: Frame[];
  /** Frames the second validator refused (each with why). */
  invalid: string[];
  /** Identities that connected, in order (one entry per connection). */
  connections: string[];
  /** The subject CN of the client certificate each TLS connection showed ('' for none), in order of the handshakes. */
  clientCertificates: string[];
  /** The version the latest connection speaks (undefined: none yet). */
  protocol(): OcppProtocol | undefined;
  /** Payloads of the charge point's calls of `action`, in order. */
  calls(action: string): Payload[];
  /** Replaces the answer to the charge point's `action`. */
  answer(action: string, handler: Handler): void;
  /** Calls the connected charge point (the latest connection). */
  call(action: string, payload: Record<string, unknown>): Promise<Payload>;
  /** Sends a frame as is, unchecked (tests: a malformed call). */
  rawSend(text: string): void;
  /** Whether a charge point is connected. */
  connected(): boolean;
  /** Stops reading the current connection (no more pongs, no answers): a dead link as the charge point sees it. */
  freeze(): void;
  /** Closes the current connection. */
  drop(): Promise<void>;
  /** The same three for the latest connection of one identity (several charge points at once, e.g. the soak's walls). */
  point(identity: string): Pick<Csms, 'call' | 'connected' | 'drop'>;
  close(): Promise<void>;
}

/** Answers of a central system that accepts everything. */
function defaultHandlers(now: () => number, protocol: OcppProtocol): Record<string, Handler> {
  let nextTransactionId = 1;
  const currentTime = () => new Date(now()).toISOString();
  if (protocol === 'ocpp2.0.1') {
    return {
      BootNotification: () => ({ status: 'Accepted', currentTime: currentTime(), interval: 300 }),
      Heartbeat: () => ({ currentTime: currentTime() }),
      StatusNotification: () => ({}),
      Authorize: () => ({ idTokenInfo: { status: 'Accepted' } }),
      TransactionEvent: (p) => (p.idToken ? { idTokenInfo: { status: 'Accepted' } } : {}),
      MeterValues: () => ({}),
      NotifyReport: () => ({}),
      NotifyEvent: () => ({}),
      SecurityEventNotification: () => ({}),
      SignCertificate: () => ({ status: 'Accepted' }),
      FirmwareStatusNotification: () => ({}),
      LogStatusNotification: () => ({}),
      ReservationStatusUpdate: () => ({}),
      DataTransfer: () => ({ status: 'UnknownVendorId' }),
    };
  }
  return {
    BootNotification: () => ({ status: 'Accepted', currentTime: currentTime(), interval: 300 }),
    Heartbeat: () => ({ currentTime: currentTime() }),
    StatusNotification: () => ({}),
    Authorize: () => ({ idTagInfo: { status: 'Accepted' } }),
    StartTransaction: () => ({ transactionId: nextTransactionId++, idTagInfo: { status: 'Accepted' } }),
    StopTransaction: () => ({ idTagInfo: { status: 'Accepted' } }),
    MeterValues: () => ({}),
    DataTransfer: () => ({ status: 'UnknownVendorId' }),
    DiagnosticsStatusNotification: () => ({}),
    FirmwareStatusNotification: () => ({}),
  };
}

export async function startCsms(options: CsmsOptions = {}): Promise<Csms> {
  const now = options.now ?? Date.now;
  const frames: Frame[] = [];
  const invalid: string[] = [];
  const connections: string[] = [];
  const clientCertificates: string[] = [];
  const protocols = options.protocols ?? ['ocpp1.6'];
  const handlers: Record<OcppProtocol, Record<string, Handler>> = {
    'ocpp1.6': defaultHandlers(now, 'ocpp1.6'),
    'ocpp2.0.1': defaultHandlers(now, 'ocpp2.0.1'),
  };
  /** Calls by message id, per direction of the call, to check each answer against its call. */
  const openCalls = new Map<string, OCPP16.Call>();
  let current: ChargePointLink | undefined;
  const byIdentity = new Map<string, ChargePointLink>();
  let currentProtocol: OcppProtocol | undefined;

  const check = (protocol: OcppProtocol, direction: 'in' | 'out', message: unknown[]) => {
    const where = `${direction === 'in' ? 'charge point → central system' : 'central system → charge point'} ${JSON.stringify(message)}`;
    const ocpp = VALIDATORS[protocol];
    if (!ocpp.validate(message)) {
      invalid.push(`${where}: ${(ocpp.validate.errors ?? []).join('; ')}`);
      return;
    }
    if (ocpp.isCall(message)) openCalls.set(`${direction}:${message[1]}`, message);
    else if (ocpp.isCallResult(message)) {
      const key = `${direction === 'in' ? 'out' : 'in'}:${message[1]}`;
      const original = openCalls.get(key);
      openCalls.delete(key);
      if (!original) invalid.push(`${where}: an answer to no call`);
      else if (!ocpp.checkCallResult(message, original)) invalid.push(`${where}: ${(ocpp.checkCallResult.errors ?? []).join('; ')}`);
    }
  };

  const server = new RPCServer({ protocols: [...protocols], strictMode: true, pingIntervalMs: 0, callTimeoutMs: 30_000 });
  server.auth((accept, reject, handshake) => {
    if (options.password !== undefined && handshake.password?.toString('latin1') !== options.password) {
      options.log?.(`refused ${handshake.identity}: wrong or missing password`);
      reject(401, 'Unauthorized');
      return;
    }
    // The central system picks the version (OCPP-J: the first of its own preference among those offered).
    const protocol = protocols.find((p) => handshake.protocols.has(p));
    if (!protocol) {
      options.log?.(`refused ${handshake.identity}: offers ${[...handshake.protocols].join(', ') || 'no subprotocol'}, speaks ${protocols.join(', ')}`);
      reject(400, 'Bad Request');
      return;
    }
    void (options.admit ?? (async () => true))(handshake.identity).then((ok) =>
      ok ? accept({ identity: handshake.identity }, protocol) : reject(503, 'Service Unavailable'),
    );
  });
  server.on('client', (client: ChargePointLink) => {
    const protocol = (client.protocol ?? 'ocpp1.6') as OcppProtocol;
    current = client;
    byIdentity.set(client.identity, client);
    currentProtocol = protocol;
    connections.push(client.identity);
    options.log?.(`connected: ${client.identity} (${protocol})`);
    client.on('message', ({ message, outbound }: { message: Buffer | string; outbound: boolean }) => {
      const text = message.toString();
      const direction = outbound ? 'out' : 'in';
      let parsed: unknown[];
      try {
        parsed = JSON.parse(text) as unknown[];
      } catch {
        invalid.push(`${direction}: not JSON: ${text}`);
        return;
      }
      frames.push({ direction, message: parsed, at: now() });
      check(protocol, direction, parsed);
      options.log?.(`${outbound ? 'CS → CP' : 'CP → CS'} ${text}`);
    });
    client.on('close', () => options.log?.(`disconnected: ${client.identity}`));
    client.handle(async ({ method, params }) => {
      const handler = handlers[protocol][method];
      if (!handler) throw new Error(`no handler for ${method}`);
      return handler(params, client.identity);
    });
  });

  const { clientCa } = options.tls ?? {};
  const http: Server = options.tls
    ? createHttpsServer({
        cert: options.tls.cert,
        key: options.tls.key,
        ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}),
      })
    : createHttpServer();
  http.on('secureConnection', (socket: TLSSocket) => {
    const subject = socket.getPeerCertificate()?.subject as { CN?: string } | undefined;
    clientCertificates.push(subject?.CN ?? '');
  });
  // ocpp-rpc decodes the path before its own error handling: a malformed one (`/%E0%A4%A`) rejects, and unhandled it
  // would end the process.
  http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    server.handleUpgrade(request, socket as Socket, head).catch(() => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';

  return {
    port,
    url: `${options.tls ? 'wss' : 'ws'}://${host.includes(':') ? `[${host}]` : host}:${port}/ocpp`,
    frames,
    invalid,
    clientCertificates,
    connections,
    protocol: () => currentProtocol,
    calls: (action) => frames.filter((f) => f.direction === 'in' && f.message[0] === 2 && f.message[2] === action).map((f) => f.message[3] as Payload),
    answer(action, handler) {
      // For every version this central system speaks (a test speaks one).
      for (const p of protocols) handlers[p][action] = handler;
    },
    async call(action, payload) {
      if (!current) throw new Error('no charge point connected');
      return (await current.call(action, payload)) as Payload;
    },
    rawSend(text) {
      current?.sendRaw(text);
    },
    connected: () => current !== undefined && current.state === 1,
    freeze() {
      current?._ws?._socket?.pause();
    },
    async drop() {
      await current?.close({ force: true });
    },
    point: (identity) => ({
      async call(action, payload) {
        const link = byIdentity.get(identity);
        if (!link) throw new Error(`${identity} not connected`);
        return (await link.call(action, payload)) as Payload;
      },
      connected: () => byIdentity.get(identity)?.state === 1,
      async drop() {
        await byIdentity.get(identity)?.close({ force: true });
      },
    }),
    async close() {
      await server.close({ force: true });
      http.closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
