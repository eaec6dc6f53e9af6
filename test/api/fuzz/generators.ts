/** Generators of the fuzzed requests: path segments, queries, bodies, texts at the spec's limits. */
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------------------------

export const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Text the database cannot keep as sent (NUL, lone surrogates): the controller refuses any body holding it (400). */
export const unstorable = (s: string) => s.includes('\u0000') || LONE_SURROGATE_RE.test(s);

/** Whether any string of a parsed JSON value, member names included, is unstorable (iterative: any depth or length). */
export function holdsUnstorable(root: unknown): boolean {
  const stack = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (unstorable(value)) return true;
    } else if (Array.isArray(value)) {
      for (const element of value) stack.push(element);
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) stack.push(k, v);
    }
  }
  return false;
}

/** Length in characters (code points), the unit of the spec's limits. */
export const chars = (s: string) => [...s].length;
// eslint-disable-next-line no-control-regex
export const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/** Percent-encodes the UTF-8 bytes of `s` (a lone surrogate becomes U+FFFD), leaving only unreserved characters. */
export function enc(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Well-formed single code points without control characters or commas: ASCII, 2-, 3- and 4-byte UTF-8, format chars. */
export const GOOD_UNITS = ['a', 'Z', '7', ' ', '-', 'é', 'ß', 'Ω', '中', '€', '😀', '𝄞', '\u200b', '\u2028', '\ufeff', '\u0085'];
/** Code points that are awkward somewhere: control characters, a lone (low) surrogate, a comma, quote, backslash. */
export const BAD_UNITS = ['\u0000', '\u0001', '\u001f', '\u007f', '\n', '\t', '\udfff', ',', '"', '\\', '%'];

/** A string of exactly `n` characters cycling through `units` (single code points). */
export const sized = (n: number, units: readonly string[]) => Array.from({ length: n }, (_, i) => units[i % units.length]).join('');

/** Leaves printable ASCII as is and percent-encodes the rest (Node refuses spaces and the like in a request target). */
export const rawSafe = (s: string) => s.replace(/[^\x21-\x7e]+/gu, (m) => enc(m));

export const sizedFrom = (lengths: readonly number[], units: readonly string[]) =>
  fc.tuple(fc.constantFrom(...lengths), fc.array(fc.constantFrom(...units), { minLength: 1, maxLength: 3 })).map(([n, u]) => sized(n, u));

/** Strings of the limit lengths of section 8 (255/256, 256/257, 1000/1001) and around, in all kinds of characters. */
export const sizedString = sizedFrom([0, 1, 254, 255, 256, 257, 999, 1000, 1001], [...GOOD_UNITS, ...BAD_UNITS]);

export const anyUnit = fc.oneof(
  fc.constantFrom(...GOOD_UNITS, ...BAD_UNITS),
  fc
    .integer({ min: 0, max: 0x10ffff })
    .filter((cp) => cp < 0xd800 || cp > 0xdfff)
    .map((cp) => String.fromCodePoint(cp)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
);

export const weirdString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.string({ unit: anyUnit, maxLength: 20 }),
  sizedString,
);

export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(0, -1, 0.5, 1e308, 2 ** 31, 2 ** 53 + 2),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

export const anyValue = fc.oneof(weirdString, wrongType);

export const isJsonText = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

export const MALFORMED_JSON = [
  '',
  ' ',
  '\n\t',
  '{',
  '}',
  '[',
  '{"',
  '{"a"',
  '{"a":',
  '{"a":}',
  "{'a':'b'}",
  '{a:1}',
  '{"a":1,}',
  '[1,]',
  'NaN',
  'Infinity',
  'undefined',
  'nul',
  'tru',
  '"unterminated',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\u0001"}',
  '\u0000',
  '\ufeff',
  '{"a":1}}',
  '{"a":1} x',
  '01',
  '1e',
  '--1',
  '/* comment */ {}',
  '{"a":1 /* c */}',
  '{"userName":"x"',
  '{"type":"local","command":"add","tags":[{"id":"x"}]',
  '{"seed-key-1":"x",}',
  '[]]',
  '{"__proto__":',
  '['.repeat(5000),
];

/** Text that is not JSON: fixed cases, random text, truncated and corrupted JSON. */
export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...MALFORMED_JSON),
  fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !isJsonText(s)),
  fc
    .tuple(fc.json({ maxDepth: 3 }), fc.nat())
    .map(([j, n]) => j.slice(0, n % Math.max(j.length, 1)))
    .filter((s) => !isJsonText(s)),
  fc
    .tuple(fc.json({ maxDepth: 3 }), fc.nat(), fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', "'", 'x', ']'))
    .map(([j, n, c]) => {
      const i = n % (j.length + 1);
      return j.slice(0, i) + c + j.slice(i);
    })
    .filter((s) => !isJsonText(s)),
);

/** Bytes that are not UTF-8 (or are, by chance). */
export const rawBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  fc.constantFrom(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), Buffer.from('{"userName":"\xff"}', 'latin1'), Buffer.from([0xc0, 0xaf])),
);

export const stringify = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return 'null';
  }
};

/** Valid JSON of any type. */
export const jsonDocument: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map(stringify),
  fc
    .anything({
      maxDepth: 3,
      withBoxedValues: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withDate: true,
      withTypedArray: true,
      withSparseArray: true,
    })
    .map(stringify),
);

/** Any body at all: malformed, raw bytes, valid JSON of the wrong type. */
export const junkBody: fc.Arbitrary<string | Buffer> = fc.oneof(malformedJson, rawBytes, jsonDocument);

/** A JSON object with the given members plus, sometimes, junk members and a `__proto__` member. */
export function objectText(members: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc
    .tuple(members, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), fc.boolean(), fc.boolean())
    .map(([m, extra, withExtra, withProto]) => {
      const text = stringify(withExtra ? { ...extra, ...m } : m);
      return withProto && text.startsWith('{"') ? `{"__proto__":{"polluted":1},${text.slice(1)}` : text;
    });
}

/**
 * The body as the controller accepts it: UTF-8 (BOM dropped), valid JSON without unstorable text; `json: false` means
 * it is refused.
 */
export function parsedBody(raw: string | Buffer): { json: true; value: unknown } | { json: false } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  } catch {
    return { json: false };
  }
  if (text.trim() === '') return { json: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { json: false };
  }
  return holdsUnstorable(value) ? { json: false } : { json: true, value };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// --- paths and queries ---

/** Malformed or tricky percent escapes and dot segments. */
export const pathJunk = fc.constantFrom(
  '%',
  '%%',
  '%Z',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%00',
  '%FF',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%2F',
  '%2f..%2f',
  '%2e%2e',
  '%2e',
  '..',
  '.',
  '%5C',
  '%25',
  '%u0041',
  '%%32%65',
  '%0A',
  '%20',
  '+',
  ';x=1',
  '~',
);

/** Printable ASCII that Node sends as is in a request target (no '/' or '\\', which would change the path's shape). */
export const rawPathChar = fc.constantFrom(...'!$&\'()*+,;=:@-._~%?#[]{}|^`"<>ABCabcz019'.split(''));

export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.webSegment(),
  fc.string({ unit: rawPathChar, maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }).map(enc),
  fc.string({ unit: anyUnit, maxLength: 20 }).map(enc),
  pathJunk,
  fc.tuple(fc.webSegment(), pathJunk, fc.webSegment()).map(([a, b, c]) => a + b + c),
  sizedFrom([255, 256, 257, 1000, 1001], ['a', '😀', 'é', '%']).map(enc),
  fc.constantFrom(5000, 10000).map((n) => 'a'.repeat(n)),
);

export const dateTime = fc
  .date({ min: new Date('0000-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

/** Date-time lookalikes: valid ones, and ones wrong in one detail. */
export const dateLike: fc.Arbitrary<string> = fc.oneof(
  dateTime,
  fc
    .tuple(
      dateTime,
      fc.constantFrom(
        (s: string) => s.replace('Z', ''),
        (s: string) => s.replace('Z', '+00:00'),
        (s: string) => s.replace('Z', 'z'),
        (s: string) => s.replace('T', ' '),
        (s: string) => s.replace(/\.\d{3}/, ''),
        (s: string) => s.slice(0, 10),
        (s: string) => s.replace(/-\d{2}-/, '-13-'),
        (s: string) => s.replace(/-\d{2}T/, '-32T'),
        (s: string) => ` ${s}`,
        (s: string) => `${s}x`,
        (s: string) => `+0${s}`,
      ),
    )
    .map(([s, f]) => f(s)),
  fc.constantFrom('2021-02-29T00:00:00.000Z', '2020-02-30T12:00:00.000Z', '2020-01-01T24:00:00.000Z', '1700000000000', 'now', ''),
);

export const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }).map(enc),
  fc.string({ unit: 'binary', maxLength: 12 }).map(enc),
  fc.string({ unit: rawPathChar, maxLength: 12 }),
  pathJunk,
  dateLike.map(enc),
  dateLike.map(rawSafe),
  fc.constantFrom('local', 'LOCAL', 'local%20', 'loc%61l', 'ocpp', '', 'SEED-TAG-1', 'SEED-TAG-1,nope', ',', ',,'),
  sizedFrom([999, 1000, 1001], ['a', ',', 'é']).map(enc),
);

export const queryKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('from', 'to', 'ids', 'type', 'params', 'descriptions', 'id', 'key', 'userId', 'typ%65', 'from[]', ''),
  fc.string({ maxLength: 8 }).map(enc),
  pathJunk,
);

/**
 * Longest request target the generators make. Targets over Node's 16 KiB header limit are refused with 400 before
 * routing, whatever the endpoint would say (see "regressions"), so the per-endpoint oracles stay below it.
 */
export const MAX_TARGET = 12_000;

/** Query strings without the '?': well-formed ones, random key/value lists with the API's keys, raw junk. */
export const queryString: fc.Arbitrary<string> = fc.oneof(
  fc.webQueryParameters(),
  fc
    .array(fc.tuple(queryKey, fc.option(queryValue, { nil: undefined })), { maxLength: 5 })
    .map((pairs) => pairs.map(([k, v]) => (v === undefined ? k : `${k}=${v}`)).join('&'))
    .filter((q) => q.length <= MAX_TARGET),
  fc.string({ unit: rawPathChar, maxLength: 30 }),
);

/** The query parameters as the server reads them (first value wins; anything after '#' is not sent on). */
export const queryParams = (query: string) => new URLSearchParams(query.split('#')[0]);

/** Whether `s` is a UTC date-time as spec 2 defines it: `YYYY-MM-DDThh:mm:ss.sssZ`, a real calendar instant. */
export function isUtcDateTime(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(s)) return false;
  const t = Date.parse(s);
  return !Number.isNaN(t) && new Date(t).toISOString() === s;
}

/** What the spec says GET /transactions(?/summary) answers for a query: 200, 400, or either (left open). */
export function rangeExpectation(query: string): readonly number[] {
  const params = queryParams(query);
  const verdict = (v: string | null): 'absent' | 'valid' | 'invalid' | 'open' =>
    v === null ? 'absent' : isUtcDateTime(v) ? 'valid' : /\d{4}-\d{2}-\d{2}T/.test(v) ? 'open' : 'invalid';
  const from = verdict(params.get('from'));
  const to = verdict(params.get('to'));
  if (from === 'invalid' || to === 'invalid') return [400];
  if (from === 'open' || to === 'open') return [200, 400];
  // A reversed range is not named by the spec; refusing it (400) or answering nothing (200) are both fine.
  if (from === 'valid' && to === 'valid') return Date.parse(params.get('from')!) > Date.parse(params.get('to')!) ? [200, 400] : [200];
  return [200];
}

export function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
