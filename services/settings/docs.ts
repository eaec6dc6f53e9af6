import { CATALOGUE, GROUP_LABELS, type FieldDef } from './catalogue.js';

const cell = (text: string) => text.replace(/\|/g, '\\|');

function valueText(field: FieldDef): string {
  switch (field.type) {
    case 'string':
      return (
        `string, ${field.length[0]}–${field.length[1]} characters${field.patternHint ? `, ${field.patternHint}` : ''}` +
        `${field.writeOnly ? '; write-only (never shown: `value` empty, `isSet` 0 or 1)' : ''}`
      );
    case 'int':
      return `integer ${field.range[0]}–${field.range[1]}${field.unit ? ` ${field.unit}` : ''}`;
    case 'enum':
      return `enum: ${field.options.map((o) => `${o.value} = ${o.label}`).join(', ')}`;
    case 'triple':
      return `three integers ${field.range[0]}–${field.range[1]}${field.unit ? ` ${field.unit}` : ''}`;
  }
}

function defaultText(field: FieldDef): string {
  if (field.mode === 'ro') return 'computed';
  if (field.type === 'enum') return field.options.find((o) => o.value === field.default)?.label ?? String(field.default);
  if (field.type === 'triple') return field.default.join(', ');
  return field.type === 'string' ? (field.default === '' ? '(empty)' : field.default) : String(field.default);
}

/** docs/settings.md, generated from the catalogue (`npm run docs`); a test fails when the file is out of date. */
export function renderSettingsDocs(): string {
  const lines = [
    '# Settings catalogue',
    '',
    '<!-- Generated from services/settings/catalogue.ts by `npm run docs`. Do not edit. -->',
    '',
    'Every parameter of `/v1/settings` (spec 2.7, 4.2). **role**: the lowest role that sees it (user < operator <',
    'installer < manufacturer); **change**: the lowest role that may change it (a role that sees but may not change a',
    'field gets `isNotAuthorized: 1`); **app**: part of `/v1/app_settings`; **reboot**: a change takes effect after a',
    'restart and sets `reboot_required` until then (all others take effect at once). **shown when** lists `parents`.',
    '',
  ];
  for (const group of CATALOGUE) {
    lines.push(`## ${GROUP_LABELS[group.key]} (\`${group.key}\`)`, '');
    for (const sg of group.sub_groups) {
      lines.push(`### ${sg.label} (\`${sg.key}\`)`, '');
      lines.push('| key | label | value | default | mode | role | change | app | reboot | shown when | description |');
      lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
      for (const f of sg.fields) {
        const parents = (f.parents ?? []).map((p) => `${p.name} ∈ {${p.value.join(', ')}}`).join('; ');
        lines.push(
          `| \`${f.key}\` | ${cell(f.label)} | ${cell(valueText(f))} | ${cell(defaultText(f))} | ${f.mode} | ${f.role} | ` +
            `${f.mode === 'ro' ? '—' : (f.writeRole ?? f.role)} | ${f.app ? 'yes' : ''} | ${f.reboot ? 'yes' : ''} | ` +
            `${cell(parents)} | ${cell(f.description)} |`,
        );
      }
      lines.push('');
    }
  }
  return lines.join('\n');
}
