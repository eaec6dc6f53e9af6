import { inLanguage, type LanguageKey } from '../i18n.js';
import type { EnumOption, FieldDef, Text } from './types.js';

/**
 * The settings' texts in one language: each field's, sub-group's and option's come from its declaration (every
 * language beside the English, services/settings/types.ts); here are the reasons a settings write is refused. Group
 * labels are not translated: spec 2.7 fixes them as an enum of English names (the web interface translates the
 * group keys itself). A test fails when a text lacks a language.
 */

/** Why a settings pair was refused, in each language (the causes of a settings 400). */
export interface Reasons {
  string: string;
  length(min: number, max: number): string;
  control: string;
  pattern(hint: string): string;
  integer: string;
  /** `max` carries the field's unit where it has one ("32 A"). */
  range(min: number, max: number | string): string;
  option(list: string): string;
  triple(min: number, max: number | string): string;
  readOnly: string;
  role(role: string): string;
  unknown: string;
  twice: string;
  /** Starts the cause of the 400: "No setting was changed: …". */
  none: string;
}

export const REASONS: Record<LanguageKey, Reasons> = {
  gb: {
    string: 'must be a string',
    length: (min, max) => `must be ${min} to ${max} characters long`,
    control: 'must not contain control characters',
    pattern: (hint) => `must be ${hint}`,
    integer: 'must be an integer',
    range: (min, max) => `must be from ${min} to ${max}`,
    option: (list) => `must be one of ${list}`,
    triple: (min, max) => `must be three integers from ${min} to ${max}`,
    readOnly: 'is read-only',
    role: (role) => `may not be changed by role ${role}`,
    unknown: 'does not exist',
    twice: 'appears more than once',
    none: 'No setting was changed',
  },
  de: {
    string: 'muss eine Zeichenkette sein',
    length: (min, max) => `muss ${min} bis ${max} Zeichen lang sein`,
    control: 'darf keine Steuerzeichen enthalten',
    pattern: (hint) => `hat nicht die erwartete Form: ${hint}`,
    integer: 'muss eine ganze Zahl sein',
    range: (min, max) => `muss zwischen ${min} und ${max} liegen`,
    option: (list) => `muss einer dieser Werte sein: ${list}`,
    triple: (min, max) => `muss aus drei ganzen Zahlen von ${min} bis ${max} bestehen`,
    readOnly: 'ist schreibgeschützt',
    role: (role) => `darf von der Rolle ${role} nicht geändert werden`,
    unknown: 'existiert nicht',
    twice: 'kommt mehr als einmal vor',
    none: 'Keine Einstellung wurde geändert',
  },
  nl: {
    string: 'moet een tekenreeks zijn',
    length: (min, max) => `moet ${min} tot ${max} tekens lang zijn`,
    control: 'mag geen stuurtekens bevatten',
    pattern: (hint) => `heeft niet de verwachte vorm: ${hint}`,
    integer: 'moet een geheel getal zijn',
    range: (min, max) => `moet tussen ${min} en ${max} liggen`,
    option: (list) => `moet een van deze waarden zijn: ${list}`,
    triple: (min, max) => `moet uit drie gehele getallen van ${min} tot ${max} bestaan`,
    readOnly: 'is alleen-lezen',
    role: (role) => `mag niet worden gewijzigd door de rol ${role}`,
    unknown: 'bestaat niet',
    twice: 'komt meer dan eens voor',
    none: 'Er is geen instelling gewijzigd',
  },
  fr: {
    string: 'doit être une chaîne de caractères',
    length: (min, max) => `doit comporter de ${min} à ${max} caractères`,
    control: 'ne doit pas contenir de caractères de contrôle',
    pattern: (hint) => `n'a pas la forme attendue : ${hint}`,
    integer: 'doit être un nombre entier',
    range: (min, max) => `doit être compris entre ${min} et ${max}`,
    option: (list) => `doit être l'une de ces valeurs : ${list}`,
    triple: (min, max) => `doit être composé de trois entiers de ${min} à ${max}`,
    readOnly: 'est en lecture seule',
    role: (role) => `ne peut pas être modifié par le rôle ${role}`,
    unknown: "n'existe pas",
    twice: "apparaît plus d'une fois",
    none: "Aucun paramètre n'a été modifié",
  },
};

/** The settings' texts in one language. */
export function settingsTexts(lang: LanguageKey) {
  return {
    lang,
    label: (field: { label: string; texts?: { label: Text } }) => inLanguage(lang, field.label, field.texts?.label),
    description: (field: { description: string; texts?: { description: Text } }) => inLanguage(lang, field.description, field.texts?.description),
    /** The form a field's pattern asks for (`{default}`: its default). */
    hint: (field: FieldDef) => {
      const english = field.type === 'string' ? (field.patternHint ?? 'in the documented form') : '';
      return inLanguage(lang, english, field.texts?.hint).replace('{default}', String(field.default));
    },
    subGroup: (subGroup: { label: string; texts?: Text }) => inLanguage(lang, subGroup.label, subGroup.texts),
    option: (option: EnumOption) => inLanguage(lang, option.label, option.text),
    reasons: REASONS[lang],
  };
}

export type SettingsTexts = ReturnType<typeof settingsTexts>;
