// The settings as GET /v1/settings answers them (spec 2.7, in the language the Language setting selects), shared by
// the settings views, the navigation (which groups the role sees) and the reboot banner.
import { batch, computed, signal } from '@preact/signals';
import { call } from './api.js';
import { setLanguage } from './i18n.js';

export const settings = signal(null);
/** True when a changed setting waits for a restart: from the last GET, or the last write's answer. */
export const rebootRequired = signal(false);
/** The keys whose change waits for the restart (the last GET's `reboot_pending`). */
export const rebootPending = signal([]);

/** The group keys of spec 2.7, in its order. */
export const GROUP_KEYS = ['network', 'backend', 'authorization', 'whitelists', 'loadmanagement', 'installation', 'system', 'devel'];

/** The groups the session's role sees. */
export const visibleGroups = computed(() => new Set((settings.value ? settings.value.groups : []).map((g) => g.key)));

/** Loads the settings; the page follows the Language setting (ChargePointInfo.languages marks it active). */
export async function loadSettings() {
  const data = await call('GET', '/v1/settings');
  const active = data.ChargePointInfo.languages.find((l) => l.active);
  batch(() => {
    settings.value = data;
    rebootRequired.value = data.result.reboot_required;
    rebootPending.value = data.result.reboot_pending || [];
    if (active) setLanguage(active.key);
  });
  return data;
}

/** Writes settings (PATCH, all-or-nothing); answers the set result, or throws ApiError with per-key causes. */
export async function saveSettings(params) {
  const result = await call('PATCH', '/v1/settings', { params });
  rebootRequired.value = result.reboot_required;
  return result;
}

/** Every field by key, over all groups. */
export const fieldsByKey = computed(() => {
  const map = new Map();
  for (const g of settings.value ? settings.value.groups : []) for (const sg of g.sub_groups) for (const f of sg.fields) map.set(f.key, f);
  return map;
});

/** A field's value as it is written back: enums as their integer. */
export const rawValue = (field) => (field.type === 'enum' ? field.value.value : field.value);

export function clearSettings() {
  batch(() => {
    settings.value = null;
    rebootRequired.value = false;
    rebootPending.value = [];
  });
}
