/**
 * The languages of the charge point (spec 2.7 ChargePointInfo.languages). The `Language` setting selects one for
 * the whole controller: the web interface, the app, and the texts the API answers (settings labels and
 * descriptions, enum option labels, the causes of a refused settings write, dashboard labels, messages). English is
 * written where a text is defined; the other languages sit beside it in a translations table, and a test fails when
 * one is missing.
 */
export const LANGUAGES = [
  { key: 'gb', value: 0, lang: 'en_GB', label: 'English' },
  { key: 'de', value: 1, lang: 'de_DE', label: 'Deutsch' },
  { key: 'nl', value: 2, lang: 'nl_NL', label: 'Nederlands' },
  { key: 'fr', value: 3, lang: 'fr_FR', label: 'Français' },
] as const;

/** A language by its spec key (`gb` is English). */
export type LanguageKey = (typeof LANGUAGES)[number]['key'];

/** The languages a text is translated into (English is the text itself). */
export const TRANSLATED = ['de', 'nl', 'fr'] as const;
export type Translations = Record<(typeof TRANSLATED)[number], string>;

/** The language of a `Language` setting value (English for an unknown one). */
export const languageOf = (value: unknown): LanguageKey => LANGUAGES.find((l) => l.value === value)?.key ?? 'gb';

/** `english`, or its translation into `lang` (English when there is none). */
export const inLanguage = (lang: LanguageKey, english: string, translations: Translations | undefined): string =>
  lang === 'gb' ? english : (translations?.[lang] ?? english);

/** The texts of `english` (key → English text) that lack a non-empty translation into any language. */
export function missingTranslations(english: Record<string, string>, translations: Record<string, Translations | undefined>): string[] {
  return Object.keys(english).flatMap((key) =>
    TRANSLATED.filter((lang) => !translations[key]?.[lang]?.trim()).map((lang) => `${lang}: ${key} (${JSON.stringify(english[key])})`),
  );
}
