import { inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { ROLES, settings as settingsTable, type Role } from '../../db/schema.js';
import { charCount, invalid, notFound } from '../errors.js';
import type { EventLog } from '../events.js';
import { LANGUAGES, languageOf, type LanguageKey } from '../i18n.js';
import { CATALOGUE, FIELDS, GROUP_LABELS, type SettingKey, type SettingValueOf } from './catalogue.js';
import type { ComputedValues } from './identity.js';
import { settingsTexts, type SettingsTexts } from './translations.js';
import type { FieldDef, SettingsCheck, SettingValue } from './types.js';

export { CATALOGUE, FIELDS, type FieldDef, type SettingKey, type SettingsCheck, type SettingValue, type SettingValueOf };
export { computedValues, FIRMWARE_VERSION, type ComputedValues } from './identity.js';

/** A limit with its unit, as a cause says it ("must be from 6 to 32 A"). */
const withUnit = (limit: number, unit: string | undefined) => (unit ? `${limit} ${unit}` : limit);
const rank = (role: Role) => ROLES.indexOf(role);
export const canSee = (user: Role, field: FieldDef) => rank(user) >= rank(field.role);
export const canChange = (user: Role, field: FieldDef) => field.mode === 'rw' && rank(user) >= rank(field.writeRole ?? field.role);

/** A field as the API shows it (spec 2.7 Field). */
export interface FieldView {
  role?: string;
  key: string;
  value: unknown;
  type: FieldDef['type'];
  mode: 'rw' | 'ro';
  validation?: { length: [number, number] } | { range: [number, number] };
  default: unknown;
  label: string;
  description?: string;
  parents?: { name: string; value: (string | number)[] }[];
  isNotAuthorized?: 1;
  unit?: string;
  /** Extension: an enum's choices, so a client can offer them (spec 2.7 shows only the current value). */
  options?: { value: number; label: string }[];
  /** Extension: a write-only field (a password); its `value` is always empty. */
  writeOnly?: 1;
  /** Extension, write-only fields: whether a value is stored (1) or the field is empty (0). */
  isSet?: 0 | 1;
}

/** One pair of a POST/PATCH request, as received. */
export interface SettingPair {
  key: string;
  value: unknown;
}

export interface SetResult {
  params: { key: string; success: boolean }[];
  reboot_required: boolean;
}

const ENGLISH = settingsTexts('gb');

/** The value a client sees: enums as `{value, label}` (the label in the texts' language), the rest as stored. */
export function presentValue(field: FieldDef, value: SettingValue, texts: SettingsTexts = ENGLISH): unknown {
  if (field.type === 'enum') {
    const option = field.options.find((o) => o.value === value);
    return { value, label: option === undefined ? String(value) : texts.option(option) };
  }
  return value;
}

/**
 * Checks a requested value against its field (step 4 of spec 4.2); returns the value to store or a reason (in the
 * texts' language).
 */
export function checkValue(field: FieldDef, raw: unknown, texts: SettingsTexts = ENGLISH): { ok: true; value: SettingValue } | { ok: false; reason: string } {
  const { reasons } = texts;
  switch (field.type) {
    case 'string': {
      if (typeof raw !== 'string') return { ok: false, reason: reasons.string };
      const n = charCount(raw);
      const [min, max] = field.length;
      if (n < min || n > max) return { ok: false, reason: reasons.length(min, max) };
      // eslint-disable-next-line no-control-regex -- control characters are what it refuses
      if (/[\u0000-\u001f\u007f]/.test(raw)) return { ok: false, reason: reasons.control };
      if ((field.pattern && !field.pattern.test(raw)) || (field.accepts && !field.accepts(raw)))
        return { ok: false, reason: reasons.pattern(texts.hint(field)) };
      return { ok: true, value: raw };
    }
    case 'int': {
      if (typeof raw !== 'number' || !Number.isInteger(raw)) return { ok: false, reason: reasons.integer };
      const [min, max] = field.range;
      if (raw < min || raw > max) return { ok: false, reason: reasons.range(min, withUnit(max, field.unit)) };
      return { ok: true, value: raw };
    }
    case 'enum': {
      const v = typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'value' in raw ? (raw as { value: unknown }).value : raw;
      const option = field.options.find((o) => o.value === v);
      if (!option) return { ok: false, reason: reasons.option(field.options.map((o) => `${o.value} (${texts.option(o)})`).join(', ')) };
      return { ok: true, value: option.value };
    }
    case 'triple': {
      const [min, max] = field.range;
      if (!Array.isArray(raw) || raw.length !== 3 || !raw.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= min && x <= max)) {
        return { ok: false, reason: reasons.triple(min, withUnit(max, field.unit)) };
      }
      return { ok: true, value: [raw[0], raw[1], raw[2]] as [number, number, number] };
    }
  }
}

/** How a group or sub-group's role reads: its lowest visible level, with `+` when it also holds higher ones. */
function spanRole(fields: FieldDef[]): string {
  const ranks = fields.map((f) => rank(f.role));
  const low = Math.min(...ranks);
  return `${ROLES[low]}${Math.max(...ranks) > low ? '+' : ''}`;
}

/**
 * The settings: values persisted in the database (only those that differ from the default are stored), read from
 * memory, written all-or-nothing. Listeners apply a change at once; fields marked `reboot` set `reboot_required`
 * until the next start instead.
 */
export async function createSettings(
  database: Database,
  opts: { now: () => number; computed: () => ComputedValues; events?: Pick<EventLog, 'record'>; check?: SettingsCheck },
) {
  const values = new Map<string, SettingValue>();
  for (const [key, field] of FIELDS) if (field.mode === 'rw') values.set(key, field.default);
  for (const row of await database.db.select().from(settingsTable)) {
    const field = FIELDS.get(row.key);
    if (!field || field.mode !== 'rw') continue; // a key a later firmware dropped
    const checked = checkValue(field, JSON.parse(row.value));
    if (checked.ok) values.set(row.key, checked.value);
  }
  let rebootRequired = false;
  /** The keys changed since the start whose change waits for a restart (named by the web interface's banner). */
  const rebootPending = new Set<string>();
  /** Bumped on every change, so each client can be told whether settings changed since it last read them. */
  let version = 0;
  const seenBy = new Map<string, number>();
  const listeners: Array<(changed: ReadonlyMap<string, SettingValue>) => void> = [];

  /** The texts in the language the `Language` setting selects (it applies to every answer at once). */
  const texts = (): SettingsTexts => settingsTexts(languageOf(values.get('Language')));

  const valueOf = (field: FieldDef): SettingValue => {
    if (field.mode === 'ro') return (opts.computed() as unknown as Record<string, string>)[field.key] ?? field.default;
    return values.get(field.key) ?? field.default;
  };
  /** The value as the API shows it: a write-only field's never (its default is empty). */
  const shownValue = (field: FieldDef): SettingValue => (field.writeOnly ? field.default : valueOf(field));

  function fieldView(field: FieldDef, role: Role, descriptions = true, t: SettingsTexts = texts()): FieldView {
    const view: FieldView = {
      role: field.role,
      key: field.key,
      value: presentValue(field, shownValue(field), t),
      type: field.type,
      mode: field.mode,
      default: presentValue(field, field.default, t),
      label: t.label(field),
    };
    if (field.type === 'string') view.validation = { length: field.length };
    if (field.type === 'int') view.validation = { range: field.range };
    if (descriptions) view.description = t.description(field);
    if (field.parents) view.parents = field.parents;
    if (field.mode === 'rw' && !canChange(role, field)) view.isNotAuthorized = 1;
    if (field.unit) view.unit = field.unit;
    if (field.type === 'enum') view.options = field.options.map((o) => ({ value: o.value, label: t.option(o) }));
    if (field.writeOnly) {
      view.writeOnly = 1;
      view.isSet = valueOf(field) === field.default ? 0 : 1;
    }
    return view;
  }

  function groupsFor(role: Role, include: (f: FieldDef) => boolean) {
    const t = texts();
    return CATALOGUE.flatMap((g) => {
      const subGroups = g.sub_groups.flatMap((sg) => {
        const fields = sg.fields.filter((f) => canSee(role, f) && include(f));
        return fields.length ? [{ key: sg.key, label: t.subGroup(sg), role: spanRole(fields), fields: fields.map((f) => fieldView(f, role, true, t)) }] : [];
      });
      if (!subGroups.length) return [];
      const fields = g.sub_groups.flatMap((sg) => sg.fields.filter((f) => canSee(role, f) && include(f)));
      return [{ role: spanRole(fields), key: g.key, label: GROUP_LABELS[g.key], sub_groups: subGroups }];
    });
  }

  function chargePointInfo() {
    const language = values.get('Language');
    return {
      languages: LANGUAGES.map((l) => ({ ...l, active: l.value === language })),
      MultipleConnectors: false,
      ControllerHemX2: false,
      OCPPWLEnabled: values.get('OCPPWLEnabled') === 1,
      FLLEnabled: values.get('FLLEnabled') === 1,
    };
  }

  return {
    /** A stored or computed value, typed by its key's declaration. */
    get<K extends SettingKey>(key: K): SettingValueOf<K> {
      const field = FIELDS.get(key);
      if (!field) throw new Error(`no setting ${key}`);
      // The stored value passed the field's own check (checkValue), so it has the declared type.
      return valueOf(field) as SettingValueOf<K>;
    },

    /** Spec 2.7 for a role; `appOnly` limits it to the fields designated for the app. Marks the account as up to date. */
    all(role: Role, username: string, appOnly = false) {
      seenBy.set(username, version);
      return {
        name: 'settings' as const,
        result: rebootRequired
          ? { reboot_required: true, reboot_pending: [...rebootPending].filter((k) => canSee(role, FIELDS.get(k)!)) }
          : { reboot_required: false },
        groups: groupsFor(role, (f) => !appOnly || f.app === true),
        ChargePointInfo: chargePointInfo(),
      };
    },

    /** GET /settings?params=: `{params: [{key: value}]}`; 404 naming the keys that do not exist for this role. */
    some(role: Role, keys: string[]) {
      const missing = keys.filter((k) => {
        const f = FIELDS.get(k);
        return !f || !canSee(role, f);
      });
      if (missing.length) throw notFound(`Unknown setting ${missing.map((k) => JSON.stringify(k)).join(', ')}`);
      const t = texts();
      return { params: keys.map((k) => ({ [k]: presentValue(FIELDS.get(k)!, shownValue(FIELDS.get(k)!), t) })) };
    },

    /**
     * POST/PATCH /settings: every pair is checked first, in the spec's order (form, permission, existence, value);
     * when any fails nothing is written and the 400 names each failing key. Otherwise the changed values are written
     * in one transaction and applied, and the event log records which keys the account changed (never the values).
     */
    async set({ role, username }: { role: Role; username: string }, pairs: SettingPair[]): Promise<SetResult> {
      const t = texts();
      const { reasons } = t;
      /** Why each refused pair was refused, by its index in `pairs` (`value`: its value was the problem). */
      const refused = new Map<number, { reason: string; value?: true }>();
      const accepted = new Map<string, SettingValue>();
      const seen = new Set<string>();
      pairs.forEach((pair, i) => {
        const field = FIELDS.get(pair.key);
        if (seen.has(pair.key)) return refused.set(i, { reason: reasons.twice });
        seen.add(pair.key);
        if (field && !canChange(role, field)) return refused.set(i, { reason: field.mode === 'ro' ? reasons.readOnly : reasons.role(role) });
        if (!field) return refused.set(i, { reason: reasons.unknown });
        const checked = checkValue(field, pair.value, t);
        if (!checked.ok) return refused.set(i, { reason: checked.reason, value: true });
        accepted.set(pair.key, checked.value);
      });
      /** The 400 naming every refused pair (and each pair's own cause: an extension, so a form shows it beside the field). */
      const refuse = () => {
        const causes = [...refused].map(([i, r]) => `${JSON.stringify(pairs[i]!.key)} ${r.reason}${r.value ? ` (params[${i}])` : ''}`);
        return invalid(`${reasons.none}: ${causes.join('; ')}`, {
          params: pairs.map((p, i) => {
            const r = refused.get(i);
            return r ? { key: p.key, success: false, cause: r.reason } : { key: p.key, success: false };
          }),
          reboot_required: rebootRequired,
        });
      };
      if (refused.size) {
        // The write-wide check judges the accepted values too, so every cause of this Save is said at once (a
        // refused value is left out: it cannot be judged with the others).
        if (opts.check) {
          const next = new Map(values);
          for (const i of refused.keys()) next.delete(pairs[i]!.key);
          for (const [k, v] of accepted) next.set(k, v);
          for (const { key, reason } of await opts.check(next, new Set(accepted.keys()))) {
            const i = pairs.findIndex((p) => p.key === key);
            if (!refused.has(i)) refused.set(i, { reason: reason(t.lang), value: true });
          }
        }
        throw refuse();
      }
      // Compared and written inside the serialised write, so concurrent requests apply one after the other.
      let before = new Map<string, SettingValue>();
      const changed = await database
        .write(async (tx) => {
          // The write as a whole, against the values as they are now (a concurrent write may have changed them).
          if (opts.check) {
            const next = new Map(values);
            for (const [k, v] of accepted) next.set(k, v);
            for (const { key, reason } of await opts.check(next, seen))
              refused.set(
                pairs.findIndex((p) => p.key === key),
                { reason: reason(t.lang), value: true },
              );
            if (refused.size) throw refuse();
          }
          before = new Map([...accepted.keys()].map((k) => [k, values.get(k)!] as const));
          const diff = new Map([...accepted].filter(([k, v]) => JSON.stringify(values.get(k)) !== JSON.stringify(v)));
          if (diff.size === 0) return diff;
          const at = opts.now();
          const reset = [...diff].filter(([k, v]) => JSON.stringify(FIELDS.get(k)!.default) === JSON.stringify(v)).map(([k]) => k);
          if (reset.length) await tx.delete(settingsTable).where(inArray(settingsTable.key, reset));
          for (const [key, value] of diff) {
            if (reset.includes(key)) continue;
            const json = JSON.stringify(value);
            await tx
              .insert(settingsTable)
              .values({ key, value: json, updatedAt: at })
              .onConflictDoUpdate({ target: settingsTable.key, set: { value: json, updatedAt: at } });
          }
          for (const [k, v] of diff) values.set(k, v);
          return diff;
        })
        .catch((err: unknown) => {
          for (const [k, v] of before) values.set(k, v); // the transaction did not commit: neither does memory
          throw err;
        });
      if (changed.size) {
        opts.events?.record({ kind: 'settings_changed', keys: [...changed.keys()], username });
        version++;
        for (const k of changed.keys()) if (FIELDS.get(k)!.reboot) rebootPending.add(k);
        if (rebootPending.size) rebootRequired = true;
        const live = new Map([...changed].filter(([k]) => !FIELDS.get(k)!.reboot));
        if (live.size) for (const l of listeners) l(live);
      }
      return { params: pairs.map((p) => ({ key: p.key, success: true })), reboot_required: rebootRequired };
    },

    /** The language the `Language` setting selects, for every text the API answers. */
    language: (): LanguageKey => languageOf(values.get('Language')),

    /** The settings' texts in that language. */
    texts,

    /** Whether settings changed since this account last read them all (`settings_changed` of 2.15). */
    changedFor(username: string): boolean {
      const seen = seenBy.get(username);
      return seen === undefined || seen < version;
    },

    fieldView,
    field: (key: string): FieldDef | undefined => FIELDS.get(key),
    visible: canSee,

    /** Called with the values that changed (and take effect at once), after they are stored. */
    onChange(listener: (changed: ReadonlyMap<string, SettingValue>) => void): void {
      listeners.push(listener);
    },
  };
}

export type Settings = Awaited<ReturnType<typeof createSettings>>;
