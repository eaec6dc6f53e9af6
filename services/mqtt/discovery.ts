import { AUTH_STATES, CONNECTION_STATES, OCPP_STATES, SYSTEM_STATES, TYPE2_STATES } from '../core/system-state.js';
import { FIELDS } from '../settings/catalogue.js';
import { LOAD_LIMIT_FIELD, MODE_COMMAND } from './commands.js';
import { ENERGY_REASONS, SOLAR_MODES } from './energy-topics.js';
import type { MqttOptions } from './options.js';

/**
 * Home Assistant MQTT discovery (docs/mqtt.md): one retained configuration message per entity on
 * `<prefix>/<component>/<device id>/<object id>/config`, all under one device, available while `<base>/status` says
 * `online`. Entities that the settings do not offer (commands without control, tag ids not published, a second and
 * third phase on one phase) get an empty retained message instead, which removes them from Home Assistant.
 */

type Component = 'sensor' | 'binary_sensor' | 'switch' | 'number' | 'select' | 'text';

/** What the controller offers besides its settings: energy management runs (an `EnergyControl` is wired). */
export interface Features {
  energy: boolean;
}
/** The options and features an entity is offered with. */
type Offer = MqttOptions & Features;

interface Entity {
  object: string;
  component: Component;
  name: string;
  /** The topic below the base topic it shows. */
  state: string;
  config: Record<string, unknown>;
  /** Offered with these options (default: always). */
  when?: (o: Offer) => boolean;
  /** Shown among the device's diagnostics (entity_category). */
  diagnostic?: boolean;
}

const binarySensor = (object: string, name: string, state: string, deviceClass: string): Entity => ({
  object,
  component: 'binary_sensor',
  name,
  state,
  config: { device_class: deviceClass, payload_on: '1', payload_off: '0' },
});

const enumSensor = (object: string, name: string, state: string, options: readonly string[]): Entity => ({
  object,
  component: 'sensor',
  name,
  state,
  config: { device_class: 'enum', options: [...options] },
});

const measurement = (
  object: string,
  name: string,
  state: string,
  deviceClass: string,
  unit: string,
  stateClass = 'measurement',
  when?: Entity['when'],
): Entity => ({
  object,
  component: 'sensor',
  name,
  state,
  config: { device_class: deviceClass, state_class: stateClass, unit_of_measurement: unit },
  ...(when ? { when } : {}),
});

const rangeOf = (key: string): [number, number] => {
  const field = FIELDS.get(key);
  if (field?.type !== 'int') throw new Error(`${key} is not an integer setting`);
  return field.range;
};

/** A number entity writing an integer setting with its range (0: off for the session goals). */
const settingNumber = (object: string, name: string, key: string, unit: string, icon: string): Entity => ({
  object,
  component: 'number',
  name,
  state: key.charAt(0).toLowerCase() + key.slice(1),
  config: { command: key, unit_of_measurement: unit, min: rangeOf(key)[0], max: rangeOf(key)[1], step: 1, mode: 'box', icon },
  when: energyControlled,
});

/** A text entity writing a string setting with its length and pattern; commands take JSON (`"07:30"`). */
function settingText(object: string, name: string, key: string, icon: string): Entity {
  const field = FIELDS.get(key);
  if (field?.type !== 'string') throw new Error(`${key} is not a text setting`);
  return {
    object,
    component: 'text',
    name,
    state: key.charAt(0).toLowerCase() + key.slice(1),
    config: {
      command: key,
      command_template: '{{ value | tojson }}',
      min: field.length[0],
      max: field.length[1],
      ...(field.pattern ? { pattern: field.pattern.source } : {}),
      icon,
    },
    when: energyControlled,
  };
}

const threePhases = (o: Offer) => o.phases === 3;
const controlled = (o: Offer) => o.control;
const loadManaged = (o: Offer) => o.control && o.loadManagement;
const energy = (o: Offer) => o.energy;
const energyControlled = (o: Offer) => o.energy && o.control;

/** Every entity the charger can announce. */
export const ENTITIES: readonly Entity[] = [
  enumSensor('system_state', 'State', 'systemState', SYSTEM_STATES),
  enumSensor('connection_state', 'Connection', 'connectionState', CONNECTION_STATES),
  enumSensor('auth_state', 'Authorization', 'authState', AUTH_STATES),
  enumSensor('ocpp_state', 'Connector status', 'ocppState', OCPP_STATES),
  enumSensor('type2_state', 'Control pilot state', 'type2State', TYPE2_STATES),
  measurement('power', 'Power', 'power', 'power', 'W'),
  measurement('session_energy', 'Session energy', 'sessionEnergy', 'energy', 'Wh', 'total_increasing'),
  measurement('meter_energy', 'Meter energy', 'meterEnergy', 'energy', 'Wh', 'total_increasing'),
  measurement('current_l1', 'Current L1', 'currentL1', 'current', 'A'),
  measurement('current_l2', 'Current L2', 'currentL2', 'current', 'A', 'measurement', threePhases),
  measurement('current_l3', 'Current L3', 'currentL3', 'current', 'A', 'measurement', threePhases),
  measurement('voltage_l1', 'Voltage L1', 'voltageL1', 'voltage', 'V'),
  measurement('voltage_l2', 'Voltage L2', 'voltageL2', 'voltage', 'V', 'measurement', threePhases),
  measurement('voltage_l3', 'Voltage L3', 'voltageL3', 'voltage', 'V', 'measurement', threePhases),
  measurement('temperature', 'Temperature', 'temperature', 'temperature', '°C'),
  measurement('transaction_duration', 'Charging time', 'transactionDuration', 'duration', 's'),
  {
    object: 'transaction_active',
    component: 'binary_sensor',
    name: 'Transaction',
    state: 'transactionActive',
    config: { device_class: 'running', payload_on: '1', payload_off: '0' },
  },
  {
    object: 'messages',
    component: 'sensor',
    name: 'Messages',
    state: 'messages',
    // A cleared (empty) retained value is no JSON: value_json is undefined then.
    config: {
      icon: 'mdi:alert-circle-outline',
      value_template: '{{ value_json | count if value_json is defined else 0 }}',
      json_attributes_topic: 'messages',
      json_attributes_template: '{{ {"messages": value_json if value_json is defined else []} | tojson }}',
    },
  },
  enumSensor('load_limit_state', 'Load limit state', 'loadLimitState', ['off', 'fallback', 'fresh']),
  measurement('offered_current', 'Offered current', 'offeredCurrent', 'current', 'A'),
  binarySensor('plugged_in', 'Plugged in', 'pluggedIn', 'plug'),
  binarySensor('charging', 'Charging', 'charging', 'battery_charging'),
  binarySensor('problem', 'Problem', 'problem', 'problem'),
  // Home Assistant's lock class: on means unlocked.
  { ...binarySensor('cable_lock', 'Cable lock', 'cableLocked', 'lock'), config: { device_class: 'lock', payload_on: '0', payload_off: '1' } },
  { object: 'session_start', component: 'sensor', name: 'Session start', state: 'transactionStart', config: { device_class: 'timestamp' } },
  // Energy of one session: no state class (its value falls at the next session's end; statistics come from the meter).
  {
    object: 'last_session_energy',
    component: 'sensor',
    name: 'Last session energy',
    state: 'lastSessionEnergy',
    config: { device_class: 'energy', unit_of_measurement: 'Wh' },
  },
  { ...binarySensor('backend_connection', 'OCPP backend', 'backendConnected', 'connectivity'), diagnostic: true },
  { object: 'started', component: 'sensor', name: 'Started', state: 'startedAt', config: { device_class: 'timestamp' }, diagnostic: true },
  { object: 'ip_address', component: 'sensor', name: 'IP address', state: 'ipAddress', config: { icon: 'mdi:ip-network' }, diagnostic: true },
  { object: 'tag_id', component: 'sensor', name: 'Tag', state: 'tagId', config: { icon: 'mdi:card-account-details-outline' }, when: (o) => o.publishTagIds },
  {
    object: 'charging_enabled',
    component: 'switch',
    name: 'Charging enabled',
    state: 'chargingEnabled',
    config: { command: 'ChargingEnabled', payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
    when: controlled,
  },
  {
    object: 'max_current',
    component: 'number',
    name: 'Maximum current',
    state: 'maxCurrent',
    config: {
      command: 'MaxCurrent',
      device_class: 'current',
      unit_of_measurement: 'A',
      min: rangeOf('MaxCurrent')[0],
      max: rangeOf('MaxCurrent')[1],
      step: 1,
      mode: 'box',
    },
    when: controlled,
  },
  {
    object: 'load_limit',
    component: 'number',
    name: 'Load limit',
    state: 'loadLimit',
    config: {
      command: 'LoadLimit',
      device_class: 'current',
      unit_of_measurement: 'A',
      min: LOAD_LIMIT_FIELD.range[0],
      max: LOAD_LIMIT_FIELD.range[1],
      step: 1,
      mode: 'box',
    },
    when: loadManaged,
  },
  {
    object: 'charge',
    component: 'switch',
    name: 'Charge',
    state: 'transactionActive',
    config: { command: 'Charge', icon: 'mdi:ev-station', payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
    when: controlled,
  },
  {
    object: 'pause',
    component: 'switch',
    name: 'Pause',
    state: 'paused',
    config: { command: 'Pause', icon: 'mdi:pause', payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
    when: controlled,
  },
  // Energy management (docs/energy.md), when it runs.
  {
    object: 'charging_mode',
    component: 'select',
    name: 'Charging mode',
    state: 'chargingMode',
    // A select sends the option as it is; commands take JSON (`"solar"`).
    config: { command: MODE_COMMAND, options: [...SOLAR_MODES], command_template: '{{ value | tojson }}', icon: 'mdi:solar-power-variant' },
    when: energyControlled,
  },
  // The schedule and the session's goals: settings, written through the goal commands (services/mqtt/commands.ts).
  settingText('charging_schedule', 'Charging schedule', 'ChargingSchedule', 'mdi:calendar-clock'),
  settingText('departure_time', 'Departure time', 'DepartureTime', 'mdi:clock-end'),
  settingNumber('departure_energy', 'Departure energy', 'DepartureEnergy', 'kWh', 'mdi:battery-clock'),
  settingNumber('session_energy_limit', 'Session energy limit', 'SessionEnergyLimit', 'kWh', 'mdi:battery-lock'),
  settingNumber('session_duration_limit', 'Session duration limit', 'SessionDurationLimit', 'min', 'mdi:timer-lock'),
  { ...enumSensor('limiting_reason', 'Limiting reason', 'energyReason', ENERGY_REASONS), when: energy },
  {
    object: 'energy_description',
    component: 'sensor',
    name: 'Energy management',
    state: 'energyDescription',
    config: { icon: 'mdi:transmission-tower' },
    when: energy,
  },
  {
    object: 'phase_count',
    component: 'sensor',
    name: 'Phase count',
    state: 'energyPhases',
    config: { state_class: 'measurement', icon: 'mdi:sine-wave' },
    when: energy,
  },
  measurement('grid_power', 'Grid power', 'gridPower', 'power', 'W', 'measurement', energy),
  measurement('surplus', 'Solar surplus', 'surplus', 'power', 'W', 'measurement', energy),
  // Today's energy: back to 0 at midnight, which total_increasing takes as a new cycle.
  measurement('solar_energy_today', 'Solar energy today', 'solarEnergyToday', 'energy', 'Wh', 'total_increasing', energy),
  measurement('grid_energy_today', 'Grid energy today', 'gridEnergyToday', 'energy', 'Wh', 'total_increasing', energy),
];

/** The retained discovery messages for these options: config topic → payload (empty: not offered, removed). */
export function discoveryMessages(options: MqttOptions, announce: boolean, features: Features = { energy: false }): Map<string, string> {
  const o: Offer = { ...options, ...features };
  const base = o.baseTopic;
  const device = {
    identifiers: [o.deviceId],
    name: 'Charge controller',
    manufacturer: 'charge-controller',
    model: 'AC charge controller (type 2)',
    serial_number: o.serialNumber,
    sw_version: o.firmwareVersion,
  };
  const messages = new Map<string, string>();
  for (const e of ENTITIES) {
    const topic = `${o.discoveryPrefix}/${e.component}/${o.deviceId}/${e.object}/config`;
    if (!announce || (e.when && !e.when(o))) {
      messages.set(topic, '');
      continue;
    }
    const { command, json_attributes_topic, ...rest } = e.config as { command?: string; json_attributes_topic?: string };
    const config: Record<string, unknown> = {
      name: e.name,
      unique_id: `${o.deviceId}_${e.object}`,
      // The entity id (`<domain>.<id>`): the one the deprecated object_id gave, so ids stay as they were.
      default_entity_id: `${e.component}.${o.deviceId}_${e.object}`,
      state_topic: `${base}/${e.state}`,
      ...rest,
      ...(e.diagnostic ? { entity_category: 'diagnostic' } : {}),
      availability: [{ topic: `${base}/status`, payload_available: 'online', payload_not_available: 'offline' }],
      device,
      origin: { name: 'charge-controller', sw_version: o.firmwareVersion },
      qos: o.qos,
    };
    if (command) config.command_topic = `${base}/set/${command}`;
    if (json_attributes_topic) config.json_attributes_topic = `${base}/${json_attributes_topic}`;
    messages.set(topic, JSON.stringify(config));
  }
  return messages;
}
