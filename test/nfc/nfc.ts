import { encodeTextRecord, decodeTextRecord } from '../../drivers/nfc/ndef.js';
import type { SimulatedPhone } from '../../drivers/pn532/sim.js';
import { loginProof } from '../../machines/secrets.js';
import { OPERATOR_PASSWORD, type Harness } from '../harness.js';

/** A phone in the reader's field, with the link established (hybrid mode; clock stepped until a target turn). */
export async function phoneAt(h: Harness): Promise<SimulatedPhone> {
  h.controller.nfc.setRfidMode('hybrid');
  return activated(h, h.controller.simulator!.nfcPhone());
}

/** Steps the clock until the phone has an activated session with the tag. */
export async function activated(h: Harness, phone: SimulatedPhone): Promise<SimulatedPhone> {
  for (let i = 0; i < 100 && !phone.connected; i++) await h.step(100);
  if (!phone.connected) throw new Error('the phone was never activated');
  return phone;
}

export interface NfcAnswer {
  messageID: unknown;
  statusCode: number;
  /** The content after the comma, parsed; undefined when there is none. */
  content: any;
  text: string;
}

/** Splits an answer text: the header ends at its first `}` (our messageIDs hold none). */
export function parseAnswer(text: string): NfcAnswer {
  const end = text.indexOf('}') + 1;
  const header = JSON.parse(text.slice(0, end));
  const rest = text.slice(end);
  if (rest !== '' && rest[0] !== ',') throw new Error(`bad answer ${text}`);
  return { ...header, content: rest === '' ? undefined : JSON.parse(rest.slice(1)), text };
}

let nextId = 1;

/** One API request over the simulated NFC link. */
export async function nfcCall(
  phone: SimulatedPhone,
  method: string,
  path: string,
  opts: { session?: string; body?: unknown; messageID?: string } = {},
): Promise<NfcAnswer> {
  const messageID = opts.messageID ?? String(nextId++);
  const header = JSON.stringify({ path, method, authorization: opts.session ?? '', messageID });
  const text = opts.body === undefined ? header : `${header},${JSON.stringify(opts.body)}`;
  const answer = parseAnswer(await phone.request(text));
  if (answer.messageID !== messageID) throw new Error(`messageID ${messageID} answered as ${String(answer.messageID)}`);
  return answer;
}

/** Sends raw text as the request record and returns the parsed answer. */
export async function nfcRaw(phone: SimulatedPhone, message: Uint8Array | string): Promise<NfcAnswer> {
  const bytes = typeof message === 'string' ? encodeTextRecord(message) : message;
  return parseAnswer(decodeTextRecord(await phone.exchange(bytes)));
}

/** Logs in over NFC; returns the session id. */
export async function nfcLogin(phone: SimulatedPhone, username = 'operator', password = OPERATOR_PASSWORD): Promise<string> {
  const token = (await nfcCall(phone, 'GET', '/login')).content.token as string;
  const res = await nfcCall(phone, 'POST', '/login', { body: { username, password: loginProof(password, token) } });
  if (res.statusCode !== 200) throw new Error(`NFC login failed: ${res.text}`);
  return res.content.session.id as string;
}
