import * as v from 'valibot';
import { ROLES } from '../db/schema.js';
import { SIM_FAULTS, type SimState } from '../services/simulator.js';
import type { ActiveTransactionDetails, Message as MessageType, SystemState as SystemStateType } from '../services/core/system-state.js';
import { AUTH_STATES, CONNECTION_STATES, OCPP_STATES, SYSTEM_STATES, TYPE2_STATES } from '../services/core/system-state.js';
import { HMI_STATES } from '../services/core/hmi.js';
import { LANGUAGES } from '../services/i18n.js';
import { LIMIT_SOURCES } from '../services/energy/allocator.js';
import type { EnergyStatus as EnergyStatusType } from '../services/energy/contracts.js';
import type { CompletedTransaction as CompletedTransactionType, TransactionsSummary } from '../services/transactions.js';
import type { User as UserType } from '../services/users.js';
import { TAG_PRIORITIES, TAG_TYPES, type WhitelistEntry as WhitelistEntryType } from '../services/whitelist.js';
import { SessionCodes } from './errors.js';

/**
 * The bodies the API answers, as valibot schemas: the API document (GET /openapi.json) is generated from them and
 * the test suite checks every answer it receives against that document. Where a service declares the type, the
 * schema is checked against it at compile time (`satisfies`).
 */

const int = v.pipe(v.number(), v.integer());
const uuid = v.pipe(v.string(), v.uuid());
const dateTime = v.pipe(v.string(), v.isoTimestamp(), v.metadata({ examples: ['2026-06-01T08:00:00.000Z'] }));

/** OperationFailed (spec 2.1). */
export const OperationFailed = v.pipe(
  v.object({ success: v.literal(false), cause: v.pipe(v.string(), v.minLength(1)) }),
  v.description('OperationFailed (spec 2.1)'),
);
/** OperationSucceeded (spec 2.2). */
export const OperationSucceeded = v.object({ success: v.literal(true) });
/** The not-logged-in body (spec 2.6): 401, and 400 for a malformed login request. */
export const NotLoggedIn = v.pipe(
  v.object({ logged_in: v.literal(false), message: v.string(), code: v.picklist(SessionCodes) }),
  v.description('Not logged in (spec 2.6); code: spec 7.2'),
);
export const LoginToken = v.object({ token: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)) });
export const LoginSuccess = v.object({ logged_in: v.literal(true), session: v.object({ id: uuid }) });

export const User = v.object({ userId: uuid, userName: v.string() }) satisfies v.GenericSchema<unknown, UserType>;
export const UserList = v.object({ users: v.array(User) });

export const WhitelistEntry = v.object({
  id: v.string(),
  tagType: v.optional(v.picklist(TAG_TYPES)),
  number: v.optional(int),
  name: v.optional(v.string()),
  userid: v.optional(uuid),
  priority: v.optional(v.picklist(TAG_PRIORITIES)),
}) satisfies v.GenericSchema<unknown, WhitelistEntryType>;
export const Whitelist = v.object({ success: v.literal(true), tags: v.array(WhitelistEntry) });

/** Key/value pairs (spec 2.12a). */
export const KeyValues = v.record(v.string(), v.string());

export const CompletedTransaction = v.object({
  transactionId: uuid,
  backendTransactionId: v.optional(v.string()),
  tagId: v.optional(v.string()),
  userId: v.optional(uuid),
  startTransaction: dateTime,
  endTransaction: dateTime,
  consumption: int,
  maxPower: int,
  meterStartWh: v.pipe(int, v.description('Extension: the meter register at the start (Wh)')),
  meterStopWh: v.pipe(int, v.description('Extension: the meter register at the end (Wh); consumption is meterStopWh - meterStartWh')),
  stopReason: v.optional(v.pipe(v.string(), v.description('Extension: why it ended (OCPP stop reason: EVDisconnected, Local, Remote, Reboot, PowerLoss, …)'))),
  unmetered: v.optional(
    v.pipe(
      v.array(v.object({ from: dateTime, to: dateTime })),
      v.description('Extension: the parts of the transaction no meter reading covers (their energy is not in consumption)'),
    ),
  ),
}) satisfies v.GenericSchema<unknown, CompletedTransactionType>;
export const CompletedTransactions = v.array(CompletedTransaction);
export const CompletedTransactionsSummary = v.object({ transactionCount: int, totalDuration: int, totalConsumption: int }) satisfies v.GenericSchema<
  unknown,
  TransactionsSummary
>;

/** Extension: a transaction's energy curve (docs/transactions.md, "Energy curve"). */
export const TransactionCurve = v.object({
  transactionId: v.string(),
  points: v.array(
    v.object({
      at: v.pipe(v.string(), v.description('UTC date-time of the meter reading')),
      energyWh: v.pipe(int, v.description('Energy delivered since the transaction started (Wh)')),
      powerW: v.pipe(v.nullable(int), v.description('Average power since the previous point (W); null for the first')),
    }),
  ),
});

/** Extension: the energy history by local day or month (docs/api-overview.md, "Energy history"). */
export const EnergyHistoryBody = v.object({
  by: v.picklist(['day', 'month']),
  from: v.string(),
  to: v.string(),
  timeZone: v.pipe(v.string(), v.description('The controller’s time zone (IANA name): the days are its days')),
  periods: v.array(
    v.object({
      period: v.pipe(v.string(), v.description('YYYY-MM-DD or YYYY-MM')),
      transactionCount: int,
      consumptionWh: int,
      solarWh: v.pipe(v.nullable(int), v.description('Into the vehicle from the solar surplus (shown, not billed); null: not recorded')),
      gridWh: v.pipe(v.nullable(int), v.description('Into the vehicle from the grid (shown, not billed); null: not recorded')),
    }),
  ),
  consumptionWh: int,
  lifetimeWh: v.pipe(int, v.description('Every completed transaction’s energy ever')),
});

const perLine = v.pipe(v.array(v.number()), v.length(3));
/** The extension `energy` of SystemState (docs/energy.md, "Reporting"): the allocation and why. */
export const EnergyStatus = v.object({
  mode: v.picklist(['fast', 'solar', 'minSolar']),
  currentA: v.number(),
  phases: v.picklist([1, 3]),
  reason: v.picklist([...LIMIT_SOURCES, 'ramp']),
  description: v.string(),
  limits: v.array(v.object({ source: v.picklist(LIMIT_SOURCES), amps: v.nullable(v.number()), status: v.picklist(['off', 'fresh', 'safe']) })),
  inputs: v.object({
    gridPowerW: v.nullable(perLine),
    surplusW: v.nullable(v.number()),
    gridOperatorW: v.nullable(v.number()),
    siteShareA: v.nullable(perLine),
  }),
  solar: v.picklist(['bypassed', 'paused', 'charging']),
  today: v.object({ solarWh: v.number(), gridWh: v.number() }),
});
const _energyStatusMatches: v.InferOutput<typeof EnergyStatus> extends Omit<EnergyStatusType, 'inputs'> ? true : never = true;
void _energyStatusMatches;

export const SystemState = v.object({
  systemState: v.picklist(SYSTEM_STATES),
  connectionState: v.picklist(CONNECTION_STATES),
  authState: v.picklist(AUTH_STATES),
  ocppState: v.picklist(OCPP_STATES),
  type2State: v.picklist(TYPE2_STATES),
  ambientTemp: v.optional(v.number()),
  transaction: v.optional(
    v.object({
      transactionId: uuid,
      backendTransactionId: v.optional(v.string()),
      userId: v.optional(uuid),
      transactionStart: dateTime,
      transactionDuration: v.optional(int),
      tagId: v.optional(v.string()),
      consumption: int,
      power: int,
      maxPower: int,
      OCPPMeterCurrent: v.optional(v.object({ L1: v.number(), L2: v.optional(v.number()), L3: v.optional(v.number()) })),
    }) satisfies v.GenericSchema<unknown, ActiveTransactionDetails>,
  ),
  /** Extension (docs/energy.md): the current offered, why, every limit and input. */
  energy: v.optional(EnergyStatus),
}) satisfies v.GenericSchema<unknown, SystemStateType>;

export const Message = v.object({
  severity: v.picklist(['ERROR', 'WARNING']),
  errorCode: v.string(),
  message: v.string(),
  correctiveActions: v.optional(v.string()),
}) satisfies v.GenericSchema<unknown, MessageType>;
export const Messages = v.object({ messages: v.array(Message) });

const EnumValue = v.object({ value: int, label: v.string() });
const SettingValue = v.union([v.string(), int, v.array(int), EnumValue]);
const Parent = v.object({ name: v.string(), value: v.array(v.union([v.string(), v.number()])) });
/** A settings parameter (spec 2.7 Field), with the `options` extension of enums. */
export const SettingField = v.object({
  role: v.optional(v.string()),
  key: v.string(),
  value: SettingValue,
  type: v.picklist(['string', 'enum', 'int', 'triple']),
  mode: v.picklist(['rw', 'ro']),
  validation: v.optional(v.union([v.object({ length: v.strictTuple([int, int]) }), v.object({ range: v.strictTuple([int, int]) })])),
  default: SettingValue,
  label: v.string(),
  description: v.optional(v.string()),
  parents: v.optional(v.array(Parent)),
  isNotAuthorized: v.optional(v.literal(1)),
  unit: v.optional(v.string()),
  options: v.optional(v.pipe(v.array(EnumValue), v.description('Extension: the choices of an enum'))),
});
const SettingGroup = v.object({
  role: v.optional(v.string()),
  key: v.string(),
  label: v.string(),
  sub_groups: v.array(v.object({ key: v.string(), label: v.string(), role: v.optional(v.string()), fields: v.array(SettingField) })),
});
/** All settings (spec 2.7); also /v1/app_settings. */
export const Settings = v.object({
  name: v.literal('settings'),
  result: v.object({
    reboot_required: v.boolean(),
    reboot_pending: v.optional(
      v.pipe(v.array(v.string()), v.description('Extension, with reboot_required true: the keys (this role sees) whose change waits for the restart')),
    ),
  }),
  groups: v.array(SettingGroup),
  ChargePointInfo: v.object({
    languages: v.array(
      v.object({
        key: v.picklist(LANGUAGES.map((l) => l.key)),
        value: int,
        lang: v.picklist(LANGUAGES.map((l) => l.lang)),
        label: v.picklist(LANGUAGES.map((l) => l.label)),
        active: v.optional(v.boolean()),
      }),
    ),
    MultipleConnectors: v.boolean(),
    ControllerHemX2: v.boolean(),
    OCPPWLEnabled: v.boolean(),
    FLLEnabled: v.boolean(),
  }),
});
/** GET /v1/settings?params=a,b: one `{key: value}` per key asked, in that order. */
export const SettingValues = v.object({ params: v.array(v.record(v.string(), SettingValue)) });
/** Settings set result (spec 2.8). */
export const SettingsSetResult = v.object({ params: v.array(v.object({ key: v.string(), success: v.literal(true) })), reboot_required: v.boolean() });
/** A refused settings write: OperationFailed with every pair's result and, for each refused one, its own cause. */
export const SettingsRefused = v.object({
  success: v.literal(false),
  cause: v.string(),
  params: v.array(v.object({ key: v.string(), success: v.literal(false), cause: v.optional(v.string()) })),
  reboot_required: v.boolean(),
});
/** Dashboard (spec 2.15). */
export const Dashboard = v.object({
  name: v.literal('dashboard'),
  settings_changed: v.boolean(),
  ControllerTime_custom: dateTime,
  groups: v.array(v.object({ key: v.string(), label: v.string(), fields: v.array(SettingField) })),
  GraphicDashboard: v.array(v.object({ key: v.string() })),
});

const RoleName = v.picklist(ROLES);
export const SessionInfo = v.object({
  username: v.string(),
  role: RoleName,
  passwordChangeRequired: v.pipe(
    v.boolean(),
    v.description('The password was generated (the first start’s, or one made by another account): the web interface asks for a new one'),
  ),
});
export const Account = v.object({ username: v.string(), role: RoleName, createdAt: dateTime });
export const AccountWithPassword = v.object({
  ...Account.entries,
  password: v.optional(v.pipe(v.string(), v.description('A generated password, in this answer only'))),
});
export const AccountList = v.object({ accounts: v.array(Account) });
export const PasswordReset = v.object({ success: v.literal(true), password: v.optional(v.string()) });

/** The simulated plant (docs/hardware.md). */
export const SimPlant = v.object({
  vehicle: v.picklist(['unplugged', 'connected', 'requesting']),
  ventilation: v.boolean(),
  evMaxCurrentA: v.number(),
  pilotLevel: v.picklist(['a', 'b', 'c', 'd', 'e', 'f']),
  pwmDuty: v.nullable(v.number()),
  pwmCurrentA: v.nullable(v.number()),
  contactorCommanded: v.boolean(),
  contactorClosed: v.boolean(),
  cableLocked: v.boolean(),
  energyWh: v.number(),
  powerW: v.number(),
  currentsA: v.array(v.number()),
  temperatureC: v.number(),
  leds: v.object({ color: v.picklist(['off', 'green', 'blue', 'yellow', 'red', 'white']), mode: v.picklist(['steady', 'slow-blink', 'fast-blink', 'pulse']) }),
  beeps: int,
  lastBeep: v.optional(v.object({ count: int, ms: int })),
  faults: v.array(v.picklist(SIM_FAULTS)),
  alternateMs: int,
  activePhases: v.picklist([1, 3]),
  phaseContactor: v.optional(v.object({ closed: v.boolean(), moves: int, movesUnderLoad: int, movesOffered: int })),
}) satisfies v.GenericSchema<unknown, SimState>;
/** What the simulator shows (never who charges: no tag, no user). */
export const SimView = v.object({
  plant: SimPlant,
  chargePoint: v.looseObject({
    systemState: v.picklist(SYSTEM_STATES),
    connectionState: v.picklist(CONNECTION_STATES),
    authState: v.picklist(AUTH_STATES),
    ocppState: v.picklist(OCPP_STATES),
    type2State: v.picklist(TYPE2_STATES),
  }),
  hmi: v.picklist(HMI_STATES),
  loadLimitA: v.nullable(v.number()),
  pairing: v.boolean(),
  nfc: v.optional(v.object({ request: v.string(), answer: v.string() })),
  network: v.optional(
    v.pipe(
      v.object({ appliedAt: v.pipe(v.string(), v.isoTimestamp()), commands: v.array(v.string()), error: v.optional(v.string()) }),
      v.description('What the simulated network manager was asked at the last start: the nmcli commands a Raspberry Pi would run'),
    ),
  ),
  site: v.optional(
    v.pipe(
      v.looseObject({ day: v.looseObject({ profile: v.string(), hour: v.number() }), gridW: v.array(v.number()), pvW: v.array(v.number()) }),
      v.description('The simulated house, PV system and grid meter (W per line, import positive) and the ripple-control contact'),
    ),
  ),
});

/** The named schemas of the document (components/schemas). */
export const COMPONENTS = {
  OperationFailed,
  OperationSucceeded,
  NotLoggedIn,
  User,
  WhitelistEntry,
  CompletedTransaction,
  SystemState,
  Message,
  SettingField,
  Settings,
  Account,
  SimView,
};
