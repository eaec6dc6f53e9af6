/**
 * Invariants the model-based tests check after every step, written from IEC 61851-1, the NFC Forum Type 4 Tag
 * mapping (ISO 7816-4 APDUs), the API spec and the README's rules, never read from the machines: this module imports
 * nothing from machines/ (nor anything else of the controller). The generated paths come from the machines, so a
 * mutated machine changes the model and the controller together and the model's own comparison still passes; these
 * oracles do not move with it.
 *
 * Each oracle is fed the inputs the test applies (as the outside world sees them) and what the controller shows
 * afterwards, and answers the rules the observation breaks (an empty list when none).
 *
 * One oracle a file (test/model/invariants/), like this one importing nothing of the controller.
 */

// ---------------------------------------------------------------------------------------------------------------
// NFC: each response APDU a valid ISO 7816-4 answer to its command, as the NFC Forum Type 4 Tag mapping (version 2.0)
// asks of a tag (../shared/reference/pn532-and-type4-tag.md §2).

/** The NDEF Tag Application's name (T4T). */
const T4T_AID = [0xd2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01];
/** The capability container's file id (T4T). */
const T4T_CC_FILE = 0xe103;
/** Every frame of the exchange must stay a normal PN532 frame: MLe and MLc at most 0xF6. */
const MAX_NORMAL_FRAME_DATA = 0xf6;

const SW_OK = 0x9000;
const SW_END_OF_FILE = 0x6282;
const SW_WRONG_LENGTH = 0x6700;
const SW_READ_ONLY = [0x6982, 0x6985, 0x6986];
const SW_NO_FILE = 0x6986;
const SW_NOT_FOUND = 0x6a82;
const SW_WRONG_P1P2 = [0x6a86, 0x6b00];
const SW_OFFSET = 0x6b00;
const SW_INS = 0x6d00;
const SW_CLA = 0x6e00;

const hexOf = (b: ArrayLike<number>) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const sw = (n: number) => n.toString(16).padStart(4, '0');

/** What a valid capability container declares (T4T mapping 2.0), or why it is not one. */
export function capabilityContainer(cc: ArrayLike<number>): { mle: number; mlc: number; fileId: number; fileSize: number; writable: boolean } | string {
  if (cc.length < 15) return `a capability container of ${cc.length} bytes (at least 15)`;
  const u16 = (i: number) => (cc[i]! << 8) | cc[i + 1]!;
  if (u16(0) < 0x000f) return `CCLEN ${u16(0)} (at least 15)`;
  if (cc[2] !== 0x20) return `mapping version ${cc[2]!.toString(16)} (2.0 is 20)`;
  const mle = u16(3);
  const mlc = u16(5);
  if (mle < 0x000f || mle > MAX_NORMAL_FRAME_DATA) return `MLe ${mle} (15 to ${MAX_NORMAL_FRAME_DATA})`;
  if (mlc < 0x0001 || mlc > MAX_NORMAL_FRAME_DATA) return `MLc ${mlc} (1 to ${MAX_NORMAL_FRAME_DATA})`;
  if (cc[7] !== 0x04 || cc[8] !== 0x06) return 'no NDEF File Control TLV (04 06) at offset 7';
  const fileId = u16(9);
  if ([0x0000, 0xe102, T4T_CC_FILE, 0x3f00, 0x3fff, 0xffff].includes(fileId)) return `NDEF file id ${fileId.toString(16)} is reserved`;
  const fileSize = u16(11);
  if (fileSize < 0x0005 || fileSize > 0x7fff) return `NDEF file size ${fileSize} (5 to 7FFF in mapping 2.0)`;
  if (cc[13] !== 0x00) return `read access ${cc[13]} (00: open)`;
  if (cc[14] !== 0x00 && cc[14] !== 0xff) return `write access ${cc[14]} (00 open or FF read-only)`;
  return { mle, mlc, fileId, fileSize, writable: cc[14] === 0x00 };
}

/**
 * A phone's view of an emulated Type 4 Tag: what it selected (cleared by each activation, ISO 7816-4: the selection
 * ends with the session), the capability container once read, and the NDEF file's bytes it wrote (forgotten when
 * the controller puts a message there itself). `answer` checks one response APDU against its command.
 */
export class Type4TagSpec {
  private appSelected = false;
  private file: 'cc' | 'ndef' | null = null;
  private cc: ReturnType<typeof capabilityContainer> | null = null;
  private ccBytes: number[] | null = null;
  /** Bytes of the NDEF file known from the phone's own writes and reads. */
  private known = new Map<number, number>();

  /** A phone activated the tag: nothing is selected. */
  activated(): void {
    this.appSelected = false;
    this.file = null;
  }

  /** The controller put another message in the NDEF file (an answer, a refusal, an emptied NLEN). */
  fileRewritten(): void {
    this.known.clear();
  }

  /** The rules the response to `command` breaks. */
  answer(command: ArrayLike<number>, response: ArrayLike<number> | null): string[] {
    const at = `${hexOf(command)} → ${response ? hexOf(response) : 'none'}`;
    const broken: string[] = [];
    const rule = (ok: boolean, text: string) => {
      if (!ok) broken.push(`${at}: ${text}`);
    };
    if (!response || response.length < 2) return [`${at}: no status word`];
    const status = (response[response.length - 2]! << 8) | response[response.length - 1]!;
    const data = Array.from(response).slice(0, -2);
    const success = status === SW_OK || status === SW_END_OF_FILE;
    if (!success) rule(data.length === 0, `data with the error status ${sw(status)}`);
    /** The errors that apply (any one of them is a valid answer), or none: then the command must succeed. */
    const expectError = (errors: number[]): boolean => {
      if (errors.length === 0) return false;
      rule(errors.includes(status), `status ${sw(status)}, expected ${errors.map(sw).join(' or ')}`);
      return true;
    };
    if (command.length < 4) return (expectError([SW_WRONG_LENGTH]), broken);
    const [cla, ins, p1, p2] = [command[0]!, command[1]!, command[2]!, command[3]!];
    if (cla !== 0x00) return (expectError([SW_CLA]), broken);
    const cc = typeof this.cc === 'object' ? this.cc : null;
    switch (ins) {
      case 0xa4: {
        const lc = command[4];
        if (lc === undefined || (command.length !== 5 + lc && command.length !== 6 + lc)) return (expectError([SW_WRONG_LENGTH]), broken);
        const name = Array.from(command).slice(5, 5 + lc);
        rule(data.length === 0, 'SELECT answered with data (T4T: no FCI)');
        if (p1 === 0x04) {
          if (expectError(p2 === 0x00 || p2 === 0x0c ? [] : [...SW_WRONG_P1P2, SW_NOT_FOUND])) return broken;
          const aid = hexOf(name) === hexOf(T4T_AID);
          if (expectError(aid ? [] : [SW_NOT_FOUND])) return broken;
          rule(status === SW_OK, `SELECT of the NDEF Tag Application answered ${sw(status)}`);
          this.appSelected = true;
          this.file = null;
          return broken;
        }
        if (p1 === 0x00) {
          if (expectError(p2 === 0x00 || p2 === 0x0c ? [] : [...SW_WRONG_P1P2, SW_NOT_FOUND])) return broken;
          if (expectError(this.appSelected ? [] : [SW_NOT_FOUND])) return broken;
          if (expectError(lc === 2 ? [] : [SW_WRONG_LENGTH, SW_NOT_FOUND])) return broken;
          const id = (name[0]! << 8) | name[1]!;
          const file = id === T4T_CC_FILE ? 'cc' : cc ? (id === cc.fileId ? 'ndef' : null) : status === SW_OK ? 'ndef' : null;
          if (expectError(file ? [] : [SW_NOT_FOUND])) return broken;
          rule(status === SW_OK, `SELECT of file ${id.toString(16)} answered ${sw(status)}`);
          this.file = file;
          return broken;
        }
        return (expectError([...SW_WRONG_P1P2, SW_NOT_FOUND]), broken);
      }
      case 0xb0: {
        const errors: number[] = [];
        if (this.file === null) errors.push(SW_NO_FILE);
        if (command.length !== 5) errors.push(SW_WRONG_LENGTH);
        if (p1 & 0x80) errors.push(...SW_WRONG_P1P2);
        const ne = command[4] === 0 ? 256 : (command[4] ?? 0);
        const offset = ((p1 & 0x7f) << 8) | p2;
        const size = this.file === 'cc' ? (this.ccBytes?.length ?? null) : cc ? cc.fileSize : null;
        if (size !== null && offset >= size && !(p1 & 0x80)) errors.push(SW_OFFSET);
        // Le over MLe: refused (wrong length), or answered with at most MLe bytes.
        if (cc && ne > cc.mle && !success) errors.push(SW_WRONG_LENGTH);
        // Before the capability container was read its limits are unknown: a length or offset refusal may be right.
        if (!cc && !success && errors.length === 0) errors.push(SW_WRONG_LENGTH, SW_OFFSET);
        if (expectError(errors)) return broken;
        rule(success, `READ BINARY answered ${sw(status)}`);
        if (cc) rule(data.length <= cc.mle, `READ BINARY answered ${data.length} bytes, more than MLe ${cc.mle}`);
        if (status === SW_OK) rule(data.length === ne, `READ BINARY answered ${data.length} bytes with 90 00, Le asked ${ne}`);
        if (status === SW_END_OF_FILE) {
          rule(data.length > 0 && data.length < ne, `READ BINARY answered ${data.length} bytes with 62 82, Le asked ${ne}`);
          if (size !== null) rule(offset + data.length === size, `62 82 (end of file) before the end of the file (${offset + data.length} of ${size})`);
        }
        if (this.file === 'cc') {
          if (offset === 0 && data.length >= 15) {
            const parsed = capabilityContainer(data);
            rule(typeof parsed === 'object', `the capability container is invalid: ${typeof parsed === 'string' ? parsed : ''}`);
            if (!this.ccBytes) {
              this.cc = parsed;
              this.ccBytes = data.slice(0, (data[0]! << 8) | data[1]!);
            }
          }
          if (this.ccBytes)
            rule(
              data.every((b, i) => b === this.ccBytes![offset + i]),
              'the capability container changed between reads',
            );
        } else {
          data.forEach((b, i) => {
            const k = this.known.get(offset + i);
            if (k !== undefined) rule(b === k, `byte ${offset + i} of the NDEF file reads ${b}, earlier ${k}`);
            this.known.set(offset + i, b);
          });
          if (offset === 0 && data.length >= 2 && cc) rule(((data[0]! << 8) | data[1]!) <= cc.fileSize - 2, 'NLEN larger than the file');
        }
        return broken;
      }
      case 0xd6: {
        const lc = command[4];
        const errors: number[] = [];
        if (this.file === null) errors.push(SW_NO_FILE);
        if (lc === undefined || command.length !== 5 + lc || lc === 0) errors.push(SW_WRONG_LENGTH);
        if (this.file === 'cc') errors.push(...SW_READ_ONLY);
        if (p1 & 0x80) errors.push(...SW_WRONG_P1P2);
        const offset = ((p1 & 0x7f) << 8) | p2;
        if (cc && lc !== undefined && lc > cc.mlc) errors.push(SW_WRONG_LENGTH);
        if (cc && this.file === 'ndef' && lc !== undefined) {
          if (offset >= cc.fileSize) errors.push(SW_OFFSET);
          if (offset + lc > cc.fileSize) errors.push(SW_WRONG_LENGTH, SW_OFFSET);
          // An NLEN over the file's capacity: refused, or taken as written.
          const written = Array.from(command).slice(5);
          const nlenAt = (i: number) => (offset <= i && i < offset + written.length ? written[i - offset]! : this.known.get(i));
          const hi = nlenAt(0);
          const lo = nlenAt(1);
          if (offset < 2 && hi !== undefined && lo !== undefined && ((hi << 8) | lo) > cc.fileSize - 2 && status !== SW_OK) errors.push(SW_WRONG_LENGTH);
        }
        // Before the capability container was read its limits are unknown: a length refusal may be right (Lc over MLc),
        // also where another error applies (a write to the read-only capability container); an offset refusal where
        // nothing else does.
        if (!cc && status !== SW_OK) errors.push(SW_WRONG_LENGTH, ...(errors.length === 0 ? [SW_OFFSET] : []));
        if (expectError(errors)) return broken;
        rule(status === SW_OK && data.length === 0, `UPDATE BINARY answered ${hexOf(response)}`);
        Array.from(command)
          .slice(5)
          .forEach((b, i) => this.known.set(offset + i, b));
        return broken;
      }
      default:
        return (expectError([SW_INS]), broken);
    }
  }
}
