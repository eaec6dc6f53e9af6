import type { Role } from '../../db/schema.js';
import type { ChargePoint } from '../core/system-state.js';
import type { FieldView, Settings } from './index.js';

/** The live values of /v1/app_dashboard (2.15): read-only fields in the shape of 2.7, computed when asked. */
interface LiveField {
  key: string;
  label: string;
  description: string;
  type: 'string' | 'int' | 'triple';
  unit?: string;
  value: (cp: ReturnType<ChargePoint['state']>) => string | number | number[];
}

export const LIVE: LiveField[] = [
  { key: 'Dashboard_SystemState', label: 'State', description: 'State of the charge point (spec 2.13 systemState).', type: 'string', value: (s) => s.systemState },
  { key: 'Dashboard_OcppState', label: 'Connector status', description: 'OCPP status of the connector.', type: 'string', value: (s) => s.ocppState },
  { key: 'Dashboard_Power', label: 'Power', description: 'Power drawn by the vehicle now.', type: 'int', unit: 'W', value: (s) => s.transaction?.power ?? 0 },
  { key: 'Dashboard_Energy', label: 'Energy', description: 'Energy charged in the running transaction.', type: 'int', unit: 'Wh', value: (s) => s.transaction?.consumption ?? 0 },
  {
    key: 'Dashboard_Currents',
    label: 'Currents',
    description: 'Current on L1, L2, L3 (-1 when the meter gives no value).',
    type: 'triple',
    unit: 'A',
    value: (s) => {
      const m = s.transaction?.OCPPMeterCurrent;
      return [m?.L1 ?? 0, m?.L2 ?? (m?.L1 === -1 ? -1 : 0), m?.L3 ?? (m?.L1 === -1 ? -1 : 0)].map((a) => Math.round(a));
    },
  },
  { key: 'Dashboard_Duration', label: 'Charging time', description: 'Time since the transaction started.', type: 'int', unit: 's', value: (s) => s.transaction?.transactionDuration ?? 0 },
  { key: 'Dashboard_Temperature', label: 'Temperature', description: 'Temperature inside the charge point.', type: 'int', unit: '°C', value: (s) => Math.round(s.ambientTemp ?? 0) },
];

/** What the app's graphic dashboard draws, by key. */
const GRAPHIC = ['Dashboard_Power', 'Dashboard_Energy', 'Dashboard_Currents', 'Dashboard_Duration', 'MaxCurrent'];

export function createDashboard(settings: Settings, chargePoint: ChargePoint, now: () => number) {
  return (role: Role, username: string, descriptions: boolean) => {
    const state = chargePoint.state();
    const t = settings.texts();
    const live: FieldView[] = LIVE.map((f) => {
      const view: FieldView = { key: f.key, value: f.value(state), type: f.type, mode: 'ro', default: f.type === 'string' ? '' : f.type === 'int' ? 0 : [0, 0, 0], label: t.label(f.key, f.label) };
      if (descriptions) view.description = t.description(f.key, f.description);
      if (f.unit) view.unit = f.unit;
      return view;
    });
    const limits = ['MaxCurrent', 'FreeCharging', 'ChargingEnabled'].flatMap((key) => {
      const field = settings.field(key);
      return field && settings.visible(role, field) ? [settings.fieldView(field, role, descriptions, t)] : [];
    });
    const groups = [{ key: 'installation', label: 'Installation', fields: live }];
    if (limits.length) groups.push({ key: 'loadmanagement', label: 'Load Management', fields: limits });
    const shown = new Set(groups.flatMap((g) => g.fields.map((f) => f.key)));
    return {
      name: 'dashboard' as const,
      settings_changed: settings.changedFor(username),
      ControllerTime_custom: new Date(now()).toISOString(),
      groups,
      GraphicDashboard: GRAPHIC.filter((k) => shown.has(k)).map((key) => ({ key })),
    };
  };
}

export type Dashboard = ReturnType<typeof createDashboard>;
