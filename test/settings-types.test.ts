import { expectTypeOf, test } from 'vitest';
import type { SettingKey, SettingValueOf } from '../services/settings/catalogue.js';
import type { Settings } from '../services/settings/index.js';

/**
 * Reading a setting is typed by its key, from the feature's declaration (services/settings/types.ts): checked by
 * `npm run typecheck` (at run time these assertions do nothing).
 */
test('a setting reads as the type its declaration gives it', () => {
  expectTypeOf<SettingValueOf<'MaxCurrent'>>().toEqualTypeOf<number>();
  expectTypeOf<SettingValueOf<'OcppUrl'>>().toEqualTypeOf<string>();
  expectTypeOf<SettingValueOf<'PhaseCurrentLimits'>>().toEqualTypeOf<[number, number, number]>();
  // An enum reads as the union of its options' values.
  expectTypeOf<SettingValueOf<'FreeCharging'>>().toEqualTypeOf<0 | 1>();
  expectTypeOf<SettingValueOf<'MqttQos'>>().toEqualTypeOf<0 | 1 | 2>();
  expectTypeOf<SettingValueOf<'Phases'>>().toEqualTypeOf<1 | 3>();
  expectTypeOf<SettingValueOf<'Language'>>().toEqualTypeOf<0 | 1 | 2 | 3>();
  expectTypeOf((settings: Settings) => settings.get('MqttQos')).returns.toEqualTypeOf<0 | 1 | 2>();
  expectTypeOf<Parameters<Settings['get']>[0]>().toEqualTypeOf<SettingKey>();
  expectTypeOf<'NoSuchKey'>().not.toMatchTypeOf<SettingKey>();
});
