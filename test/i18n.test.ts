import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { missingTranslations, type Translations } from '../services/i18n.js';
import { MESSAGES } from '../services/core/messages.js';
import { MESSAGE_TRANSLATIONS } from '../services/message-translations.js';
import { UPDATE_WAITING } from '../services/field-service/update-settings.js';
import { CATALOGUE } from '../services/settings/catalogue.js';
import { LIVE } from '../services/settings/dashboard.js';
import { NETWORK_REASONS } from '../services/network-settings.js';
import { REASONS } from '../services/settings/translations.js';
import { startHarness, type Harness } from './harness.js';

/** Every text the API answers exists in English, German, Dutch and French (the languages of spec 2.7). */

const fields = CATALOGUE.flatMap((g) => g.sub_groups.flatMap((sg) => sg.fields));
const texts = (pairs: Array<[string, string]>) => Object.fromEntries(pairs);
/** Each field's texts of one kind (declared beside the English, services/settings/types.ts), by key. */
const pick = (key: 'label' | 'description' | 'hint') =>
  Object.fromEntries(
    [...fields, ...LIVE].map((f) => [f.key, (f.texts as { label: unknown; description: unknown; hint?: unknown })[key] as Translations | undefined]),
  );

describe('translations of the API texts', () => {
  test('the check finds a missing or empty translation (so the tests below can fail)', () => {
    expect(missingTranslations({ a: 'A', b: 'B' }, { a: { de: 'A', nl: 'A', fr: 'A' }, b: { de: 'B', nl: ' ', fr: 'B' } })).toEqual(['nl: b ("B")']);
    expect(missingTranslations({ c: 'C' }, {})).toEqual(['de: c ("C")', 'nl: c ("C")', 'fr: c ("C")']);
  });

  test('every settings label and description, sub-group, option and pattern hint', () => {
    expect(missingTranslations(texts(fields.map((f) => [f.key, f.label])), pick('label'))).toEqual([]);
    expect(missingTranslations(texts(fields.map((f) => [f.key, f.description])), pick('description'))).toEqual([]);
    const subGroups = CATALOGUE.flatMap((g) => g.sub_groups);
    expect(missingTranslations(texts(subGroups.map((sg) => [sg.key, sg.label])), Object.fromEntries(subGroups.map((sg) => [sg.key, sg.texts])))).toEqual([]);
    const options = fields.flatMap((f) => (f.type === 'enum' ? f.options : []));
    expect(missingTranslations(texts(options.map((o) => [o.label, o.label])), Object.fromEntries(options.map((o) => [o.label, o.text])))).toEqual([]);
    expect(missingTranslations(texts(Object.entries(NETWORK_REASONS).map(([k, v]) => [k, v.gb])), NETWORK_REASONS)).toEqual([]);
    const patterned = fields.filter((f) => f.type === 'string' && f.pattern);
    for (const f of patterned) expect(f.type === 'string' && f.patternHint, f.key).toBeTruthy();
    expect(missingTranslations(texts(patterned.map((f) => [f.key, f.type === 'string' ? f.patternHint! : ''])), pick('hint'))).toEqual([]);
  });

  test('the dashboard fields, the messages and the reasons of a refused settings write', () => {
    expect(missingTranslations(texts(LIVE.map((f) => [f.key, f.label])), pick('label'))).toEqual([]);
    expect(missingTranslations(texts(LIVE.map((f) => [f.key, f.description])), pick('description'))).toEqual([]);
    const messages = [...Object.values(MESSAGES), UPDATE_WAITING];
    expect(
      missingTranslations(
        texts(messages.map((m) => [m.errorCode, m.message])),
        Object.fromEntries(Object.entries(MESSAGE_TRANSLATIONS).map(([k, v]) => [k, v.message])),
      ),
    ).toEqual([]);
    expect(
      missingTranslations(
        texts(messages.map((m) => [m.errorCode, m.correctiveActions])),
        Object.fromEntries(Object.entries(MESSAGE_TRANSLATIONS).map(([k, v]) => [k, v.correctiveActions])),
      ),
    ).toEqual([]);
    for (const lang of ['de', 'nl', 'fr'] as const) {
      expect(Object.keys(REASONS[lang]).sort()).toEqual(Object.keys(REASONS.gb).sort());
      // Each reason is its own text, not the English one.
      expect(REASONS[lang].none).not.toBe(REASONS.gb.none);
      expect(REASONS[lang].pattern('X')).toContain('X');
    }
  });

  test('no translation belongs to a text that no longer exists', () => {
    // The settings' translations sit in their declarations, so only the messages' table can hold a stale one.
    // The core's messages and the one the main thread adds (an update waiting for the running charge).
    const messages = [...Object.values(MESSAGES), UPDATE_WAITING];
    expect(Object.keys(MESSAGE_TRANSLATIONS).filter((k) => !messages.some((m) => m.errorCode === k))).toEqual([]);
  });
});

describe('the API answers in the language of the Language setting', () => {
  let h: Harness;
  let session: string;
  const call = (method: string, path: string, body?: unknown) => h.http(method, path, { session, body });
  const field = (settings: any, key: string) =>
    settings.groups.flatMap((g: any) => g.sub_groups.flatMap((sg: any) => sg.fields)).find((f: any) => f.key === key);

  beforeAll(async () => {
    h = await startHarness();
    session = await h.login();
  });
  afterAll(() => h.stop());

  test('English by default; Deutsch after Language = 1: labels, descriptions, options, causes, dashboard, messages', async () => {
    const english = (await call('GET', '/v1/settings')).json;
    expect(field(english, 'RFIDMode')).toMatchObject({ label: 'RFID Mode', value: { value: 0, label: 'RFID only' } });

    expect((await call('PATCH', '/v1/settings', { params: [{ key: 'Language', value: 1 }] })).status).toBe(200);
    const german = (await call('GET', '/v1/settings')).json;
    expect(german.ChargePointInfo.languages.filter((l: any) => l.active).map((l: any) => l.lang)).toEqual(['de_DE']);
    const authorization = german.groups.find((g: any) => g.key === 'authorization');
    expect(authorization.label).toBe('Authorization'); // spec 2.7: the group labels are a fixed enum
    expect(authorization.sub_groups.map((sg: any) => sg.label)).toEqual(['RFID-Einstellungen', 'Freies Laden']);
    expect(field(german, 'RFIDMode')).toMatchObject({
      label: 'RFID-Modus',
      description: expect.stringMatching(/^Nur RFID: Der Leser liest RFID-Karten/),
      value: { value: 0, label: 'Nur RFID' },
      default: { value: 0, label: 'Nur RFID' },
      options: [
        { value: 0, label: 'Nur RFID' },
        { value: 1, label: 'RFID/NFC-Hybrid' },
      ],
    });
    expect((await call('GET', '/v1/settings?params=FreeCharging')).json).toEqual({ params: [{ FreeCharging: { value: 0, label: 'Aus' } }] });

    // A refused write: the cause and each pair's own cause in German.
    const refused = await call('PATCH', '/v1/settings', {
      params: [
        { key: 'LanMode', value: 1 },
        { key: 'LanIpAddress', value: '192.168.1.300' },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.json.cause).toBe(
      'Keine Einstellung wurde geändert: "LanIpAddress" hat nicht die erwartete Form: eine IPv4-Adresse wie 192.168.1.50 (params[1])',
    );
    expect(refused.json.params).toEqual([
      { key: 'LanMode', success: false },
      { key: 'LanIpAddress', success: false, cause: 'hat nicht die erwartete Form: eine IPv4-Adresse wie 192.168.1.50' },
    ]);

    const dashboard = (await call('GET', '/v1/app_dashboard')).json;
    expect(dashboard.groups[0].fields.find((f: any) => f.key === 'Dashboard_Power')).toMatchObject({
      label: 'Leistung',
      description: 'Aktuell vom Fahrzeug bezogene Leistung.',
    });

    await h.sim('fault', { fault: 'meter-offline' });
    await h.step(3000);
    const messages = (await call('GET', '/v1/messages')).json.messages;
    expect(messages).toContainEqual({
      severity: 'WARNING',
      errorCode: 'METER_NOT_RESPONDING',
      message: 'Der Energiezähler antwortet nicht: Verbrauch und Leistung werden nicht aktualisiert',
      correctiveActions: 'Verkabelung (RS485) und Versorgung des Zählers prüfen; die Transaktion behält den letzten Zählerstand.',
    });

    expect((await call('PATCH', '/v1/settings', { params: [{ key: 'Language', value: 3 }] })).status).toBe(200);
    expect(field((await call('GET', '/v1/settings')).json, 'RFIDMode').label).toBe('Mode RFID');
    expect((await call('GET', '/v1/messages')).json.messages[0].message).toMatch(/^Le compteur d'énergie ne répond pas/);
  });
});
