import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * An independent OCPP 1.6J central system for tests: raw OCPP-J framing over the `ws` package (not ocpp-rpc, not
 * typed-ocpp), every frame the charge point sends checked with its own ajv against the OCA OCPP 1.6 JSON schemas
 * (as the ocpp-rpc package ships them: data, not code), and CALLERROR codes against the ten OCPP-J 1.6 codes. It
 * can write several frames in one TCP write (`together`), as a central system on a real network may.
 */

/** The CALLERROR codes of OCPP-J 1.6 (4.2.3), with its spelling of OccurenceConstraintViolation (errata: kept). */
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

const require = createRequire(import.meta.url);
const schemas = require('ocpp-rpc/lib/schemas/ocpp1_6.json') as { $id: string }[];
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
// Keyed by action and direction (`Authorize.req`): this ajv's URI parser refuses the schemas' `urn:` ids.
for (const { $id, ...schema } of schemas) ajv.addSchema(schema, $id.replace(/^urn:/, ''));
const validator = (id: string): ValidateFunction | undefined => ajv.getSchema(id);

export interface RawFrame {
  direction: 'in' | 'out';
  message: unknown[];
}

/** What the central system sent back for one of its calls: a result or an error. */
export type CallOutcome = { result: Record<string, any> } | { error: { code: string; description: string; details: unknown } };

type Answer = (payload: Record<string, any>, messageId: string) => Record<string, unknown> | typeof NO_REPLY;
/** An answer handler returns this when it answered itself (e.g. with `together`). */
export const NO_REPLY = Symbol('no reply');

export interface RawCentralSystem {
  url: string;
  frames: RawFrame[];
  /** Frames of the charge point that broke the schemas or the framing, each with why. */
  invalid: string[];
  /** Payloads of the charge point's calls of `action`, in order. */
  calls(action: string): Record<string, any>[];
  /** Replaces the answer to the charge point's `action`. */
  answer(action: string, handler: Answer): void;
  /** Calls the charge point; resolves with its result or CALLERROR. */
  call(action: string, payload: Record<string, unknown>): Promise<CallOutcome>;
  /** Writes these frames (CALLs, CALLRESULTs, or text) in one TCP write; resolves each CALL's outcome, in order. */
  together(frames: (unknown[] | string)[]): Promise<CallOutcome>[];
  /** The CALLERRORs the charge point sent. */
  errors(): { id: unknown; code: string }[];
  connected(): boolean;
  /** Closes the connection (the charge point sees the central system go away). */
  drop(): void;
  close(): Promise<void>;
}

/** A WebSocket frame from server to client (unmasked, final, text). */
function textFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const n = payload.length;
  const head =
    n < 126
      ? Buffer.from([0x81, n])
      : n < 65536
        ? Buffer.from([0x81, 126, n >> 8, n & 255])
        : Buffer.concat([
            Buffer.from([0x81, 127]),
            (() => {
              const b = Buffer.alloc(8);
              b.writeBigUInt64BE(BigInt(n));
              return b;
            })(),
          ]);
  return Buffer.concat([head, payload]);
}

export async function startRawCentralSystem(opts: { now?: () => number; port?: number } = {}): Promise<RawCentralSystem> {
  const now = opts.now ?? Date.now;
  const frames: RawFrame[] = [];
  const invalid: string[] = [];
  const pending = new Map<string, { action: string; resolve: (o: CallOutcome) => void }>();
  let nextId = 1;
  let nextTransactionId = 1;
  let socket: WebSocket | undefined;
  const time = () => new Date(now()).toISOString();
  const answers: Record<string, Answer> = {
    BootNotification: () => ({ status: 'Accepted', currentTime: time(), interval: 300 }),
    Heartbeat: () => ({ currentTime: time() }),
    StatusNotification: () => ({}),
    Authorize: () => ({ idTagInfo: { status: 'Accepted' } }),
    StartTransaction: () => ({ transactionId: nextTransactionId++, idTagInfo: { status: 'Accepted' } }),
    StopTransaction: () => ({ idTagInfo: { status: 'Accepted' } }),
    MeterValues: () => ({}),
    DataTransfer: () => ({ status: 'UnknownVendorId' }),
  };

  const check = (id: string, data: unknown, what: string) => {
    const validate = validator(id);
    if (!validate) return invalid.push(`${what}: no schema ${id}`);
    if (!validate(data)) invalid.push(`${what}: ${ajv.errorsText(validate.errors)}`);
  };

  const send = (ws: WebSocket, message: unknown[]) => {
    frames.push({ direction: 'out', message });
    ws.send(JSON.stringify(message));
  };

  const server = new WebSocketServer({
    host: '127.0.0.1',
    port: opts.port ?? 0,
    handleProtocols: (protocols) => (protocols.has('ocpp1.6') ? 'ocpp1.6' : false),
  });
  server.on('connection', (ws) => {
    socket = ws;
    ws.on('error', () => {}); // a charge point killed mid-frame resets the connection: it just closes
    ws.on('message', (data, isBinary) => {
      const text = (data as Buffer).toString(); // ws's default binaryType: a message is one Buffer
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        invalid.push(`not JSON: ${text.slice(0, 80)}`);
        return;
      }
      if (isBinary || !Array.isArray(message)) {
        invalid.push(`not an OCPP-J frame: ${text.slice(0, 80)}`);
        return;
      }
      frames.push({ direction: 'in', message });
      const [type, id] = message as [number, string];
      if (typeof id !== 'string') invalid.push(`message id not a string: ${text.slice(0, 80)}`);
      if (type === 2) {
        const [, , action, payload] = message as [2, string, string, Record<string, any>];
        check(`${action}.req`, payload, `${action} call`);
        const handler = answers[action];
        if (!handler) return send(ws, [4, id, 'NotImplemented', `${action} is not answered here`, {}]);
        const result = handler(payload, id);
        if (result !== NO_REPLY) send(ws, [3, id, result]);
      } else if (type === 3) {
        const call = pending.get(id);
        if (!call) return invalid.push(`CALLRESULT for no call: ${text.slice(0, 80)}`);
        pending.delete(id);
        check(`${call.action}.conf`, message[2], `${call.action} result`);
        call.resolve({ result: message[2] as Record<string, any> });
      } else if (type === 4) {
        const [, , code, description, details] = message as [4, string, string, string, unknown];
        if (!(OCPP16_ERROR_CODES as readonly string[]).includes(code)) invalid.push(`CALLERROR code ${code} is not an OCPP-J 1.6 code`);
        if (typeof description !== 'string' || typeof details !== 'object' || details === null || message.length !== 5) {
          invalid.push(`malformed CALLERROR: ${text.slice(0, 80)}`);
        }
        const call = pending.get(id);
        pending.delete(id);
        call?.resolve({ error: { code, description, details } });
      } else invalid.push(`unknown message type: ${text.slice(0, 80)}`);
    });
    ws.on('close', () => {
      if (socket === ws) socket = undefined;
    });
  });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;

  const expect = (id: string, action: string) => new Promise<CallOutcome>((resolve) => pending.set(id, { action, resolve }));

  return {
    url: `ws://127.0.0.1:${port}/ocpp`,
    frames,
    invalid,
    calls: (action) =>
      frames.filter((f) => f.direction === 'in' && f.message[0] === 2 && f.message[2] === action).map((f) => f.message[3] as Record<string, any>),
    answer: (action, handler) => void (answers[action] = handler),
    call(action, payload) {
      if (!socket) return Promise.reject(new Error('no charge point connected'));
      const id = `cs-${nextId++}`;
      const outcome = expect(id, action);
      send(socket, [2, id, action, payload]);
      return outcome;
    },
    together(list) {
      if (!socket) throw new Error('no charge point connected');
      const outcomes: Promise<CallOutcome>[] = [];
      const buffers = list.map((frame) => {
        if (typeof frame === 'string') return textFrame(frame);
        if (frame[0] === 2) outcomes.push(expect(String(frame[1]), String(frame[2])));
        frames.push({ direction: 'out', message: frame });
        return textFrame(JSON.stringify(frame));
      });
      // One write: the charge point reads both frames in one chunk.
      (socket as unknown as { _socket: import('node:net').Socket })._socket.write(Buffer.concat(buffers));
      return outcomes;
    },
    errors: () => frames.filter((f) => f.direction === 'in' && f.message[0] === 4).map((f) => ({ id: f.message[1], code: String(f.message[2]) })),
    connected: () => socket !== undefined,
    drop: () => socket?.terminate(),
    async close() {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
