import type { Role } from '../../db/schema.js';
import type { LanguageKey } from '../i18n.js';

/**
 * How a feature declares its settings (the leaf every feature's settings file imports): key, type, default,
 * validation, roles and its texts in the four languages, beside the feature's code. services/settings/catalogue.ts
 * gathers the declarations in the order the API shows them; the value a setting reads as is typed from here.
 */

/** A text in every language of the controller (`gb`: English). */
export type Text = Readonly<Record<LanguageKey, string>>;

/** Shown only when each parent parameter has one of the listed values (enums: option values). */
export type Parents = readonly { readonly name: string; readonly value: readonly (string | number)[] }[];

interface DeclarationBase {
  label: Text;
  description: Text;
  /** Lowest role that sees the field. */
  role: Role;
  /** Lowest role that may change it (default: `role`); read-only fields cannot be changed by anyone. */
  writeRole?: Role;
  /** Default `rw`; `ro`: computed when asked (services/settings/identity.ts). */
  mode?: 'rw' | 'ro';
  parents?: Parents;
  unit?: string;
  /** A change takes effect after a restart (`reboot_required`). */
  reboot?: boolean;
  /** Part of /v1/app_settings (the smartphone app's view). */
  app?: boolean;
  /**
   * Write-only (a password): the API never shows the value (`value` and `default` are empty; the extension `isSet`
   * says whether one is stored), and nothing else shows or logs it.
   */
  writeOnly?: boolean;
}

/**
 * One setting as its feature declares it. `hint`: the form a pattern asks for (`{default}`: the default); `accepts`: a
 * check beyond the pattern's (a time zone the runtime knows), refused with the same hint.
 */
export type Declaration =
  | (DeclarationBase & {
      type: 'string';
      default: string;
      length: readonly [number, number];
      pattern?: RegExp;
      accepts?: (value: string) => boolean;
      hint?: Text;
    })
  | (DeclarationBase & { type: 'int'; default: number; range: readonly [number, number] })
  | (DeclarationBase & { type: 'enum'; default: number; options: readonly { readonly value: number; readonly label: Text }[] })
  | (DeclarationBase & { type: 'triple'; default: readonly [number, number, number]; range: readonly [number, number] });

/**
 * A feature's settings by key, in the order of their sub-group. The declarations keep their literal types, so a
 * setting's value is typed by its key (an enum's value is the union of its option values).
 */
export const declare = <const T extends Record<string, Declaration>>(settings: T): T => settings;

/** The value of a declared setting, as stored and read. */
export type ValueOf<D> = D extends { type: 'string' }
  ? string
  : D extends { type: 'triple' }
    ? [number, number, number]
    : D extends { type: 'enum'; options: readonly { value: infer V }[] }
      ? V
      : number;

export const OFF_ON = [
  { value: 0, label: { gb: 'Off', de: 'Aus', nl: 'Uit', fr: 'Désactivé' } },
  { value: 1, label: { gb: 'On', de: 'Ein', nl: 'Aan', fr: 'Activé' } },
] as const;

/** An Off/On switch (enum 0/1). */
export const onOff = <const T extends Omit<DeclarationBase, 'mode'> & { default: 0 | 1 }>(f: T) => ({ ...f, type: 'enum' as const, options: OFF_ON });

/** Any value a setting holds. */
export type SettingValue = string | number | [number, number, number];

/** An enum's choice as the mechanism uses it: the English label, and every language's. */
export interface EnumOption {
  value: number;
  label: string;
  text?: Text;
}

interface FieldBase extends Omit<DeclarationBase, 'label' | 'description' | 'mode' | 'parents'> {
  key: string;
  /** English. */
  label: string;
  /** English. */
  description: string;
  mode: 'rw' | 'ro';
  parents?: { name: string; value: (string | number)[] }[];
  /** Every language's texts (a field the catalogue has; one made elsewhere, such as MQTT's load limit, is English only). */
  texts?: { label: Text; description: Text; hint?: Text };
}

/** A setting as the mechanism checks, stores and shows it. `patternHint`: English, `{default}` filled in. */
export type FieldDef =
  | (FieldBase & { type: 'string'; default: string; length: [number, number]; pattern?: RegExp; accepts?: (value: string) => boolean; patternHint?: string })
  | (FieldBase & { type: 'int'; default: number; range: [number, number] })
  | (FieldBase & { type: 'enum'; default: number; options: EnumOption[] })
  | (FieldBase & { type: 'triple'; default: [number, number, number]; range: [number, number] });

/**
 * A check of a settings write as a whole, after each value passed its own (for example a static LAN configuration
 * that must hold together): given the values as they would be and the keys the request names, the refused keys and
 * why, in the request's language.
 */
export type SettingsCheck = (
  next: ReadonlyMap<string, SettingValue>,
  requested: ReadonlySet<string>,
) => Promise<Array<{ key: string; reason: (language: LanguageKey) => string }>>;
