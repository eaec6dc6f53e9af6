import type { Role } from '../../db/schema.js';
import type { ChargePoint } from '../core/system-state.js';
import type { FieldView, Settings } from './index.js';
import type { Text } from './types.js';

/** The live values of /v1/app_dashboard (2.15): read-only fields in the shape of 2.7, computed when asked. */
interface LiveField {
  key: string;
  /** English (the API's shape); `texts`: every language. */
  label: string;
  description: string;
  texts: { label: Text; description: Text };
  type: 'string' | 'int' | 'triple';
  unit?: string;
  value: (cp: ReturnType<ChargePoint['state']>) => string | number | number[];
}

const live = (key: string, label: Text, description: Text, f: Pick<LiveField, 'type' | 'unit' | 'value'>): LiveField => ({
  key,
  label: label.gb,
  description: description.gb,
  texts: { label, description },
  ...f,
});

export const LIVE: LiveField[] = [
  live(
    'Dashboard_SystemState',
    { gb: 'State', de: 'Zustand', nl: 'Toestand', fr: 'État' },
    {
      gb: 'State of the charge point (spec 2.13 systemState).',
      de: 'Zustand des Ladepunkts (Spezifikation 2.13 systemState).',
      nl: 'Toestand van het laadpunt (specificatie 2.13 systemState).',
      fr: 'État du point de charge (spécification 2.13 systemState).',
    },
    { type: 'string', value: (s) => s.systemState },
  ),
  live(
    'Dashboard_OcppState',
    { gb: 'Connector status', de: 'Status des Ladeanschlusses', nl: 'Status connector', fr: 'État du connecteur' },
    { gb: 'OCPP status of the connector.', de: 'OCPP-Status des Ladeanschlusses.', nl: 'OCPP-status van de connector.', fr: 'État OCPP du connecteur.' },
    { type: 'string', value: (s) => s.ocppState },
  ),
  live(
    'Dashboard_Power',
    { gb: 'Power', de: 'Leistung', nl: 'Vermogen', fr: 'Puissance' },
    {
      gb: 'Power drawn by the vehicle now.',
      de: 'Aktuell vom Fahrzeug bezogene Leistung.',
      nl: 'Vermogen dat het voertuig nu afneemt.',
      fr: 'Puissance absorbée actuellement par le véhicule.',
    },
    { type: 'int', unit: 'W', value: (s) => s.transaction?.power ?? 0 },
  ),
  live(
    'Dashboard_Energy',
    { gb: 'Energy', de: 'Energie', nl: 'Energie', fr: 'Énergie' },
    {
      gb: 'Energy charged in the running transaction.',
      de: 'In der laufenden Transaktion geladene Energie.',
      nl: 'Geladen energie in de lopende transactie.',
      fr: 'Énergie chargée pendant la transaction en cours.',
    },
    { type: 'int', unit: 'Wh', value: (s) => s.transaction?.consumption ?? 0 },
  ),
  live(
    'Dashboard_Currents',
    { gb: 'Currents', de: 'Ströme', nl: 'Stromen', fr: 'Courants' },
    {
      gb: 'Current on L1, L2, L3 (-1 when the meter gives no value).',
      de: 'Strom auf L1, L2, L3 (-1, wenn der Zähler keinen Wert liefert).',
      nl: 'Stroom op L1, L2, L3 (-1 als de meter geen waarde geeft).',
      fr: 'Courant sur L1, L2, L3 (-1 lorsque le compteur ne donne pas de valeur).',
    },
    {
      type: 'triple',
      unit: 'A',
      value: (s) => {
        const m = s.transaction?.OCPPMeterCurrent;
        return [m?.L1 ?? 0, m?.L2 ?? (m?.L1 === -1 ? -1 : 0), m?.L3 ?? (m?.L1 === -1 ? -1 : 0)].map((a) => Math.round(a));
      },
    },
  ),
  live(
    'Dashboard_Duration',
    { gb: 'Charging time', de: 'Ladedauer', nl: 'Laadduur', fr: 'Durée de charge' },
    {
      gb: 'Time since the transaction started.',
      de: 'Zeit seit Beginn der Transaktion.',
      nl: 'Tijd sinds het begin van de transactie.',
      fr: 'Temps écoulé depuis le début de la transaction.',
    },
    { type: 'int', unit: 's', value: (s) => s.transaction?.transactionDuration ?? 0 },
  ),
  live(
    'Dashboard_Temperature',
    { gb: 'Temperature', de: 'Temperatur', nl: 'Temperatuur', fr: 'Température' },
    {
      gb: 'Temperature inside the charge point.',
      de: 'Temperatur im Inneren des Ladepunkts.',
      nl: 'Temperatuur binnen in het laadpunt.',
      fr: "Température à l'intérieur du point de charge.",
    },
    { type: 'int', unit: '°C', value: (s) => Math.round(s.ambientTemp ?? 0) },
  ),
];

/** What the app's graphic dashboard draws, by key. */
const GRAPHIC = ['Dashboard_Power', 'Dashboard_Energy', 'Dashboard_Currents', 'Dashboard_Duration', 'MaxCurrent'];

export function createDashboard(settings: Settings, chargePoint: ChargePoint, now: () => number) {
  return (role: Role, username: string, descriptions: boolean) => {
    const state = chargePoint.state();
    const t = settings.texts();
    const live: FieldView[] = LIVE.map((f) => {
      const view: FieldView = {
        key: f.key,
        value: f.value(state),
        type: f.type,
        mode: 'ro',
        default: f.type === 'string' ? '' : f.type === 'int' ? 0 : [0, 0, 0],
        label: t.label(f),
      };
      if (descriptions) view.description = t.description(f);
      if (f.unit) view.unit = f.unit;
      return view;
    });
    const limits = (['MaxCurrent', 'FreeCharging', 'ChargingEnabled'] as const).flatMap((key) => {
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
