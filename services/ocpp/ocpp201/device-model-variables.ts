import type { Settings } from '../../settings/index.js';
import { LOCAL_LIST_MAX } from '../authorization.js';
import { CHARGE_POINT_MODEL, CHARGE_POINT_VENDOR } from '../boot.js';
import { changeSetting, MAPPED, type Configuration } from '../configuration.js';
import { MAX_PERIODS, MAX_PROFILES, MAX_STACK_LEVEL } from '../smart-charging.js';
import type { StoredKeys } from '../stored-keys.js';
import { checkPriority, NETWORK_SLOTS } from './network-profiles.js';
import { checkPoints, DEFAULT_TX_POINT, TX_START_POINTS, TX_STOP_POINTS } from './transaction-points.js';

/** The OCPP 2.0.1 device model's components and variables (issue 31, B05–B08), and where each value lives. */

export type Mutability = 'ReadOnly' | 'ReadWrite' | 'WriteOnly';
export type AttributeType = 'Actual' | 'Target' | 'MinSet' | 'MaxSet';
export type DataType = 'string' | 'decimal' | 'integer' | 'dateTime' | 'boolean' | 'OptionList' | 'SequenceList' | 'MemberList';
export type SetStatus = 'Accepted' | 'Rejected' | 'RebootRequired';
/** 2.0.1's connector and station states. */
export type AvailabilityState = 'Available' | 'Occupied' | 'Reserved' | 'Unavailable' | 'Faulted';

export interface ComponentRef {
  name: string;
  instance?: string;
  evse?: { id: number; connectorId?: number };
}

export interface Characteristics {
  dataType: DataType;
  unit?: string;
  minLimit?: number;
  maxLimit?: number;
  valuesList?: string;
}

export interface VariableDef {
  component: ComponentRef;
  variable: { name: string; instance?: string };
  mutability: Mutability;
  characteristics: Characteristics;
  /** Survives a restart (a setting or a stored key); false: what the station is or measures now. */
  persistent: boolean;
  /** Never changes (vendor, model, limits of this firmware). */
  constant: boolean;
  /** The Actual value (undefined for a WriteOnly one). */
  actual: () => string | undefined;
  /** Other attributes this variable has (EVSE Power's MaxSet). */
  more?: Partial<Record<Exclude<AttributeType, 'Actual'>, () => string>>;
  /** Writes an Actual value already checked against the characteristics (ReadWrite and WriteOnly only). */
  write?: (value: string) => Promise<SetStatus>;
}

/** Items and bytes a GetReport, GetVariables, SetVariables request may carry (DeviceDataCtrlr); NotifyReport parts hold ITEMS.GetReport. */
export const ITEMS_PER_MESSAGE = { GetReport: 20, GetVariables: 50, SetVariables: 50 } as const;
export const BYTES_PER_MESSAGE = 32768;
/** How long a call waits for its answer (services/ocpp/transport.ts's call timeout). */
const MESSAGE_TIMEOUT_S = 30;
/** The measurands 2.0.1 has of those the meter gives (2.0.1 dropped Temperature: NotifyEvent carries that). */
const MEASURANDS_201 = 'Energy.Active.Import.Register,Power.Active.Import,Current.Import,Voltage,Current.Offered,Power.Offered';
/** A socket with a cable lock (the lock output opens it at every transaction's end). */
const CONNECTOR_TYPE = 'sType2';
const NOMINAL_VOLTAGE = 230;

/** What the variables read from outside the settings: the station's state now. */
export interface StationState {
  availability(): AvailabilityState;
  /** Active power now (W). */
  power(): number;
  /** A fault is active. */
  problem(): boolean;
  /** Tags in the local authorization list. */
  localListEntries(): number;
  /** Charging profiles installed (either version's: one store). */
  chargingProfiles(): number;
  /** The security profile in force, the network profile slot in use, the certificates installed (security.ts). */
  securityProfile(): number;
  activeNetworkProfile(): number;
  certificateEntries(): number;
}

/** A decimal integer within [min, max], as stored. */
function integerIn(min: number, max: number) {
  return (raw: string) => (/^\d{1,6}$/.test(raw.trim()) && Number(raw) >= min && Number(raw) <= max ? String(Number(raw)) : undefined);
}

/** Variables of the device model without a setting or a 1.6 key: kept in `ocpp_state` (`dm:<Component>.<Variable>`). */
export const STORED_VARIABLES = {
  // The O of the certificate signing request (A02 SignCertificate).
  'SecurityCtrlr.OrganizationName': { default: 'ChargeController', check: (raw: string) => (/^[\x20-\x7e]{1,64}$/.test(raw) ? raw : undefined) },
  // A SignCertificate the CSMS accepted and answered with no certificate is sent again after this wait, doubled each time.
  'SecurityCtrlr.CertSigningWaitMinimum': { default: '60', check: integerIn(1, 86_400) },
  'SecurityCtrlr.CertSigningRepeatTimes': { default: '3', check: integerIn(0, 10) },
  // B10: the network profiles tried in order, and the failed attempts with one before the next is tried.
  'OCPPCommCtrlr.NetworkConfigurationPriority': { default: '0', check: checkPriority },
  'OCPPCommCtrlr.NetworkProfileConnectionAttempts': { default: '3', check: integerIn(1, 100) },
  // E01/E06: when the 2.0.1 transaction starts and ends (transaction-points.ts).
  'TxCtrlr.TxStartPoint': { default: DEFAULT_TX_POINT, check: checkPoints(TX_START_POINTS) },
  'TxCtrlr.TxStopPoint': { default: DEFAULT_TX_POINT, check: checkPoints(TX_STOP_POINTS) },
};
export const STORED_VARIABLES_ROW = 'dm:';

const fixed = (value: string) => () => value;

/** The catalogue, built on the controller's settings, the 1.6 configuration keys and the state now. */
export function deviceModelVariables(deps: {
  settings: Settings;
  configuration: Configuration;
  stored: StoredKeys;
  /** The device model's own stored variables (STORED_VARIABLES). */
  stored201: StoredKeys;
  station: StationState;
  now: () => number;
}): VariableDef[] {
  const { settings, configuration, stored, stored201, station } = deps;
  const defs: VariableDef[] = [];
  const key16 = (key: string) => configuration.get([key]).configurationKey[0]?.value;
  const phases = () => String(settings.get('Phases') === 1 ? 1 : 3);
  const maxPower = () => settings.get('MaxCurrent') * Number(phases()) * NOMINAL_VOLTAGE;
  const maxCurrentField = settings.field('MaxCurrent');
  const maxCurrentLimit = maxCurrentField?.type === 'int' ? maxCurrentField.range[1] : settings.get('MaxCurrent');

  type Where = ComponentRef | string;
  const ref = (c: Where): ComponentRef => (typeof c === 'string' ? { name: c } : c);
  /** Read-only: `constant` never changes, `persistent` false for what the station measures now. */
  const readOnly = (
    c: Where,
    name: string,
    characteristics: Characteristics,
    actual: () => string,
    flags: { constant?: boolean; persistent?: boolean; instance?: string } = {},
  ) =>
    defs.push({
      component: ref(c),
      variable: { name, ...(flags.instance ? { instance: flags.instance } : {}) },
      mutability: 'ReadOnly',
      characteristics,
      persistent: flags.persistent ?? true,
      constant: flags.constant ?? false,
      actual,
    });
  const constant = (c: Where, name: string, characteristics: Characteristics, value: string, instance?: string) =>
    readOnly(c, name, characteristics, fixed(value), { constant: true, ...(instance ? { instance } : {}) });
  const live = (c: Where, name: string, characteristics: Characteristics, actual: () => string) =>
    readOnly(c, name, characteristics, actual, { persistent: false });

  /** A variable that is a 1.6 configuration key mapped on a setting: its range and unit are the setting's. */
  const mapped = (c: Where, name: string, key: string, instance?: string) => {
    const { setting, kind } = MAPPED[key]!;
    const field = settings.field(setting);
    const characteristics: Characteristics =
      kind === 'bool'
        ? { dataType: 'boolean' }
        : {
            dataType: 'integer',
            ...(field?.type === 'int' ? { minLimit: field.range[0], maxLimit: field.range[1] } : {}),
            ...(field?.unit ? { unit: field.unit } : {}),
          };
    defs.push({
      component: ref(c),
      variable: { name, ...(instance ? { instance } : {}) },
      mutability: 'ReadWrite',
      characteristics,
      persistent: true,
      constant: false,
      actual: () => key16(key),
      write: async (value) => {
        const status = await configuration.change(key, value);
        return status === 'NotSupported' ? 'Rejected' : status;
      },
    });
  };
  /** A measurand list that is a 1.6 stored key (MeterValuesSampledData …): only the measurands 2.0.1 has are shown and accepted. */
  const measurands = (c: Where, name: string, key: string) =>
    defs.push({
      component: ref(c),
      variable: { name },
      mutability: 'ReadWrite',
      characteristics: { dataType: 'MemberList', valuesList: MEASURANDS_201 },
      persistent: true,
      constant: false,
      actual: () =>
        (stored.get(key) ?? '')
          .split(',')
          .filter((m) => MEASURANDS_201.split(',').includes(m))
          .join(','),
      write: async (value) => ((await stored.set(key, value)) ? 'Accepted' : 'Rejected'),
    });
  /** A setting of its own (not a 1.6 key): Identity, BasicAuthPassword. */
  const setting = (c: Where, name: string, key: 'OcppChargeBoxId' | 'OcppPassword', characteristics: Characteristics, mutability: 'ReadWrite' | 'WriteOnly') =>
    defs.push({
      component: ref(c),
      variable: { name },
      mutability,
      characteristics,
      persistent: true,
      constant: false,
      actual: () => (mutability === 'WriteOnly' ? undefined : String(settings.get(key))),
      write: (value) => changeSetting(settings, key, value),
    });
  /** A variable of the device model's own store (STORED_VARIABLES). */
  const storedVariable = (c: string, name: string, characteristics: Characteristics) =>
    defs.push({
      component: ref(c),
      variable: { name },
      mutability: 'ReadWrite',
      characteristics,
      persistent: true,
      constant: false,
      actual: () => stored201.get(`${c}.${name}`),
      write: async (value) => ((await stored201.set(`${c}.${name}`, value)) ? 'Accepted' : 'Rejected'),
    });
  const bool = { dataType: 'boolean' } as const;
  const int = (unit?: string, minLimit?: number, maxLimit?: number): Characteristics => ({
    dataType: 'integer',
    ...(unit ? { unit } : {}),
    ...(minLimit !== undefined ? { minLimit } : {}),
    ...(maxLimit !== undefined ? { maxLimit } : {}),
  });
  const availability: Characteristics = { dataType: 'OptionList', valuesList: 'Available,Occupied,Reserved,Unavailable,Faulted' };
  const evse = { name: 'EVSE', evse: { id: 1 } };
  const connector = { name: 'Connector', evse: { id: 1, connectorId: 1 } };

  // The station, its one EVSE and its one connector.
  for (const c of ['ChargingStation', evse, connector] as Where[]) {
    live(c, 'AvailabilityState', availability, () => station.availability());
    constant(c, 'Available', bool, 'true');
    readOnly(c, 'SupplyPhases', int(undefined, 1, 3), phases);
  }
  constant('ChargingStation', 'Model', { dataType: 'string' }, CHARGE_POINT_MODEL);
  constant('ChargingStation', 'VendorName', { dataType: 'string' }, CHARGE_POINT_VENDOR);
  live('ChargingStation', 'Problem', bool, () => String(station.problem()));
  defs.push({
    component: evse,
    variable: { name: 'Power' },
    mutability: 'ReadOnly',
    // maxLimit: what the hardware allows (MaxCurrent's range); MaxSet: what the installation is set to.
    characteristics: { dataType: 'decimal', unit: 'W', maxLimit: maxCurrentLimit * Number(phases()) * NOMINAL_VOLTAGE },
    persistent: false,
    constant: false,
    actual: () => String(station.power()),
    more: { MaxSet: () => String(maxPower()) },
  });
  constant(connector, 'ConnectorType', { dataType: 'OptionList', valuesList: 'cType2,sType2' }, CONNECTOR_TYPE);

  mapped('OCPPCommCtrlr', 'HeartbeatInterval', 'HeartbeatInterval');
  mapped('OCPPCommCtrlr', 'WebSocketPingInterval', 'WebSocketPingInterval');
  mapped('OCPPCommCtrlr', 'MessageAttempts', 'TransactionMessageAttempts', 'TransactionEvent');
  mapped('OCPPCommCtrlr', 'MessageAttemptInterval', 'TransactionMessageRetryInterval', 'TransactionEvent');
  constant('OCPPCommCtrlr', 'MessageTimeout', int('s'), String(MESSAGE_TIMEOUT_S), 'Default');
  constant('OCPPCommCtrlr', 'FileTransferProtocols', { dataType: 'MemberList', valuesList: 'HTTP,HTTPS' }, 'HTTP,HTTPS');
  // One connection, the settings' (SetNetworkProfile adds more).
  storedVariable('OCPPCommCtrlr', 'NetworkConfigurationPriority', { dataType: 'SequenceList', valuesList: NETWORK_SLOTS.join(',') });
  storedVariable('OCPPCommCtrlr', 'NetworkProfileConnectionAttempts', int(undefined, 1, 100));
  live('OCPPCommCtrlr', 'ActiveNetworkProfile', int(undefined, 0, 3), () => String(station.activeNetworkProfile()));
  constant('OCPPCommCtrlr', 'ResetRetries', int(), key16('ResetRetries')!);
  // Every (re)connection sends the current status: no threshold.
  constant('OCPPCommCtrlr', 'OfflineThreshold', int('s'), '0');

  for (const [instance, items] of Object.entries(ITEMS_PER_MESSAGE)) {
    constant('DeviceDataCtrlr', 'ItemsPerMessage', int(), String(items), instance);
    constant('DeviceDataCtrlr', 'BytesPerMessage', int(), String(BYTES_PER_MESSAGE), instance);
  }

  live('AuthCtrlr', 'Enabled', bool, () => String(settings.get('FreeCharging') !== 1));
  constant('AuthCtrlr', 'AuthorizeRemoteStart', bool, key16('AuthorizeRemoteTxRequests')!);
  mapped('AuthCtrlr', 'LocalAuthorizeOffline', 'LocalAuthorizeOffline');
  mapped('AuthCtrlr', 'LocalPreAuthorize', 'LocalPreAuthorize');
  mapped('AuthCtrlr', 'OfflineTxForUnknownIdEnabled', 'AllowOfflineTxForUnknownId');

  constant('AuthCacheCtrlr', 'Available', bool, 'true');
  mapped('AuthCacheCtrlr', 'Enabled', 'AuthorizationCacheEnabled');
  // The cache keeps the most recent answers and drops the oldest.
  constant('AuthCacheCtrlr', 'Policy', { dataType: 'OptionList', valuesList: 'LRU' }, 'LRU');

  constant('LocalAuthListCtrlr', 'Available', bool, 'true');
  mapped('LocalAuthListCtrlr', 'Enabled', 'LocalAuthListEnabled');
  live('LocalAuthListCtrlr', 'Entries', int(undefined, 0, LOCAL_LIST_MAX), () => String(station.localListEntries()));
  constant('LocalAuthListCtrlr', 'ItemsPerMessage', int(), String(LOCAL_LIST_MAX));
  constant('LocalAuthListCtrlr', 'BytesPerMessage', int(), String(BYTES_PER_MESSAGE));

  // The points this controller detects: no parking bay sensor, no signing meter (ParkingBayOccupancy, DataSigned refused).
  storedVariable('TxCtrlr', 'TxStartPoint', { dataType: 'MemberList', valuesList: TX_START_POINTS.join(',') });
  storedVariable('TxCtrlr', 'TxStopPoint', { dataType: 'MemberList', valuesList: TX_STOP_POINTS.join(',') });
  mapped('TxCtrlr', 'EVConnectionTimeOut', 'ConnectionTimeOut');
  mapped('TxCtrlr', 'StopTxOnInvalidId', 'StopTransactionOnInvalidId');
  constant('TxCtrlr', 'StopTxOnEVSideDisconnect', bool, key16('StopTransactionOnEVSideDisconnect')!);
  // The charge cycle never waits for the CSMS: a transaction starts before the boot is accepted, and is queued.
  constant('TxCtrlr', 'TxBeforeAcceptedEnabled', bool, 'true');

  constant('SampledDataCtrlr', 'Enabled', bool, 'true');
  mapped('SampledDataCtrlr', 'TxUpdatedInterval', 'MeterValueSampleInterval');
  measurands('SampledDataCtrlr', 'TxUpdatedMeasurands', 'MeterValuesSampledData');
  // Started and Ended carry the register (at the start, at the end), nothing else.
  constant('SampledDataCtrlr', 'TxStartedMeasurands', { dataType: 'MemberList', valuesList: MEASURANDS_201 }, 'Energy.Active.Import.Register');
  constant('SampledDataCtrlr', 'TxEndedMeasurands', { dataType: 'MemberList', valuesList: MEASURANDS_201 }, 'Energy.Active.Import.Register');
  constant('SampledDataCtrlr', 'TxEndedInterval', int('s'), '0');

  constant('AlignedDataCtrlr', 'Enabled', bool, 'true');
  mapped('AlignedDataCtrlr', 'Interval', 'ClockAlignedDataInterval');
  measurands('AlignedDataCtrlr', 'Measurands', 'MeterValuesAlignedData');
  constant('AlignedDataCtrlr', 'TxEndedInterval', int('s'), '0');
  constant('AlignedDataCtrlr', 'TxEndedMeasurands', { dataType: 'MemberList', valuesList: MEASURANDS_201 }, '');

  constant('SmartChargingCtrlr', 'Available', bool, 'true');
  constant('SmartChargingCtrlr', 'Enabled', bool, 'true');
  readOnly('SmartChargingCtrlr', 'Entries', int(undefined, 0, MAX_PROFILES), () => String(station.chargingProfiles()), {
    persistent: false,
    instance: 'ChargingProfiles',
  });
  // L2 and L3 switch together: a profile's phaseToUse is refused.
  constant('SmartChargingCtrlr', 'ACPhaseSwitchingSupported', bool, 'false');
  constant('SmartChargingCtrlr', 'RateUnit', { dataType: 'MemberList', valuesList: 'A,W' }, 'A,W');
  constant('SmartChargingCtrlr', 'PeriodsPerSchedule', int(), String(MAX_PERIODS));
  constant('SmartChargingCtrlr', 'ProfileStackLevel', int(), String(MAX_STACK_LEVEL));
  // Every change of the composite limit is applied (none skipped as insignificant).
  constant('SmartChargingCtrlr', 'LimitChangeSignificance', { dataType: 'decimal' }, '0');

  live('SecurityCtrlr', 'SecurityProfile', int(undefined, 0, 3), () => String(station.securityProfile()));
  live('SecurityCtrlr', 'CertificateEntries', int(), () => String(station.certificateEntries()));
  storedVariable('SecurityCtrlr', 'CertSigningWaitMinimum', int('s', 1, 86_400));
  storedVariable('SecurityCtrlr', 'CertSigningRepeatTimes', int(undefined, 0, 10));
  setting('SecurityCtrlr', 'BasicAuthPassword', 'OcppPassword', { dataType: 'string', maxLimit: 40 }, 'WriteOnly');
  setting('SecurityCtrlr', 'Identity', 'OcppChargeBoxId', { dataType: 'string', maxLimit: 48 }, 'ReadWrite');
  storedVariable('SecurityCtrlr', 'OrganizationName', { dataType: 'string', maxLimit: 64 });

  live('ClockCtrlr', 'DateTime', { dataType: 'dateTime' }, () => new Date(deps.now()).toISOString());
  // The CSMS's time (BootNotification, Heartbeat) sets the controller's clock.
  constant('ClockCtrlr', 'TimeSource', { dataType: 'SequenceList', valuesList: 'Heartbeat' }, 'Heartbeat');

  return defs;
}
