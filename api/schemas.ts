import * as v from 'valibot';
import { charCount } from '../services/errors.js';
import { documented } from './openapi.js';
import { ROLES } from '../db/schema.js';
import { RFID_ID_RULE, RFID_UID, rfidIdValid, TAG_PRIORITIES, TAG_TYPES } from '../services/whitelist.js';

/** Request shapes of the spec, in one place. Lengths count characters (code points), as the spec does. */

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/** A length in characters (code points), which is what JSON Schema's minLength and maxLength count too. */
const chars = (min: number, max: number, what: string) =>
  documented(
    v.check((s: string) => charCount(s) >= min && charCount(s) <= max, `${what} must be ${min} to ${max} characters`),
    { minLength: min, maxLength: max },
  );
/** No control characters (U+0000 to U+001F, U+007F). */
const noControl = (what: string) =>
  documented(
    v.check((s: string) => !CONTROL_RE.test(s), `${what} must not contain control characters`),
    { pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
  );

export const Uuid = v.pipe(v.string('must be a string'), v.regex(UUID_RE, 'must be a UUID (8-4-4-4-12 hexadecimal digits)'), v.toLowerCase());

/** A display name: 1..255 characters, no control characters. */
const Name = (what: string) => v.pipe(v.string(`${what} must be a string`), chars(1, 255, what), noControl(what));

export const UserBody = v.object({ userName: Name('userName') }, 'The body must be an object {"userName": string}');

/** Tag ids: 1..255 characters without commas (they separate ids in DELETE ?ids=) or control characters. */
export const TagId = v.pipe(
  v.string('id must be a string'),
  chars(1, 255, 'id'),
  documented(
    v.check((s: string) => !s.includes(',') && !CONTROL_RE.test(s), 'id must not contain commas or control characters'),
    {
      pattern: '^[^,\\u0000-\\u001f\\u007f]*$',
    },
  ),
);

const WhitelistEntryFields = v.object({
  id: TagId,
  tagType: v.optional(v.picklist(TAG_TYPES, `tagType must be one of ${TAG_TYPES.join(', ')}`)),
  number: v.optional(
    v.pipe(
      v.number('number must be an integer'),
      v.integer('number must be an integer'),
      v.minValue(0, 'number must be 0 or more'),
      v.maxValue(2_147_483_647, 'number must be at most 2147483647'),
    ),
  ),
  name: v.optional(Name('name')),
  userid: v.optional(Uuid),
  priority: v.optional(v.picklist(TAG_PRIORITIES, `priority must be one of ${TAG_PRIORITIES.join(', ')}`)),
});
type WhitelistEntryFields = v.InferOutput<typeof WhitelistEntryFields>;

export const WhitelistEntry = v.pipe(
  WhitelistEntryFields,
  // An RFID tag's id is the UID its reader reports; other types keep the spec's plain string.
  documented(
    v.forward(
      v.check((e: WhitelistEntryFields) => e.tagType !== 'RFID' || rfidIdValid(e.id), RFID_ID_RULE),
      ['id'],
    ),
    { if: { properties: { tagType: { const: 'RFID' } }, required: ['tagType'] }, then: { properties: { id: { type: 'string', pattern: RFID_UID.source } } } },
  ),
);

const LocalType = v.literal('local', 'type must be "local" (the only whitelist type)');

export const WhitelistCommand = v.variant(
  'command',
  [
    v.object({ type: LocalType, command: v.literal('clear') }),
    v.object({
      type: LocalType,
      command: v.picklist(['add', 'edit']),
      tags: v.pipe(
        v.array(WhitelistEntry, 'tags must be an array of whitelist entries'),
        v.minLength(1, 'tags must hold at least one entry'),
        v.maxLength(1000, 'tags may hold at most 1000 entries'),
      ),
    }),
  ],
  'command must be one of add, edit, clear',
);

/** The deprecated DELETE /whitelist body form: all three members required. */
export const WhitelistDeleteBody = v.object({
  type: LocalType,
  command: v.literal('delete', 'command must be "delete"'),
  tags: v.pipe(
    v.array(v.object({ id: TagId }), 'tags must be an array of {"id": string}'),
    v.minLength(1, 'tags must hold at least one entry'),
    v.maxLength(1000, 'tags may hold at most 1000 entries'),
  ),
});

/** UTC date-time with milliseconds, `YYYY-MM-DDThh:mm:ss.sssZ` (spec 2), as epoch milliseconds. */
export const UtcDateTime = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be a UTC date-time of the form YYYY-MM-DDThh:mm:ss.sssZ'),
  documented(
    v.check((s: string) => !Number.isNaN(Date.parse(s)) && new Date(s).toISOString() === s, 'is not a valid calendar date and time'),
    { format: 'date-time' },
  ),
  v.transform((s) => Date.parse(s)),
);

export const Login = v.object(
  {
    username: v.pipe(v.string('username must be a string'), chars(1, 255, 'username')),
    password: v.pipe(v.string('password must be a string'), v.regex(/^[0-9a-fA-F]{64}$/, 'password must be a hex SHA-256 (64 hexadecimal digits)')),
  },
  'The body must be an object {"username": string, "password": string}',
);

const RoleName = v.picklist(ROLES, `role must be one of ${ROLES.join(', ')}`);
const PasswordText = v.string('password must be a string');

/** POST /v1/accounts (extension): the password is generated when left out. */
export const AccountBody = v.strictObject(
  { username: v.string('username must be a string'), role: RoleName, password: v.optional(PasswordText) },
  'The body must be an object {"username": string, "role": string, "password"?: string}',
);
/** PATCH /v1/accounts/{username} (extension). */
export const AccountRoleBody = v.strictObject({ role: RoleName }, 'The body must be an object {"role": string}');
/** POST /v1/accounts/{username}/password (extension): `{}` or no body generates one. */
export const AccountPasswordBody = v.strictObject(
  { password: v.optional(PasswordText), currentPassword: v.optional(v.string('currentPassword must be a string')) },
  'The body must be an object {"password"?: string, "currentPassword"?: string}',
);
