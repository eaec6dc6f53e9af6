import type { Logger } from '../logger.js';
import type { SettingKey, Settings } from '../settings/index.js';
import { LOCAL_LIST_MAX } from './authorization.js';
import type { IncomingCalls } from './context.js';
import { MAX_PERIODS, MAX_PROFILES, MAX_STACK_LEVEL } from './smart-charging.js';
import { MEASURAND_MAX_LENGTH, STORED_KEYS, type StoredKeys } from './stored-keys.js';

/** What ChangeConfiguration answers. */
export type ConfigurationStatus = 'Accepted' | 'Rejected' | 'RebootRequired' | 'NotSupported';

/** Keys GetConfiguration answers at most per request. */
export const GET_CONFIGURATION_MAX_KEYS = 50;

/** Who changes settings for the central system (ChangeConfiguration, ChangeAvailability), as the event log shows it. */
export const CENTRAL_SYSTEM = { role: 'manufacturer', username: 'ocpp' } as const;

/**
 * Standard OCPP 1.6 configuration keys mapped onto the settings catalogue where they mean the same thing (a change
 * from the central system is a settings change like any other: stored, checked, applied, shown in the web
 * interface): `setting` names the catalogue key, `kind` how the value is written in OCPP.
 */
export const MAPPED: Record<string, { setting: SettingKey; kind: 'int' | 'bool'; writeOnly?: true }> = {
  HeartbeatInterval: { setting: 'OcppHeartbeatInterval', kind: 'int' },
  WebSocketPingInterval: { setting: 'OcppWebSocketPingInterval', kind: 'int' },
  ConnectionTimeOut: { setting: 'AuthTimeout', kind: 'int' },
  MeterValueSampleInterval: { setting: 'OcppMeterValueSampleInterval', kind: 'int' },
  ClockAlignedDataInterval: { setting: 'OcppClockAlignedDataInterval', kind: 'int' },
  TransactionMessageAttempts: { setting: 'OcppTransactionMessageAttempts', kind: 'int' },
  TransactionMessageRetryInterval: { setting: 'OcppTransactionMessageRetryInterval', kind: 'int' },
  LocalAuthListEnabled: { setting: 'OCPPWLEnabled', kind: 'bool' },
  AuthorizationCacheEnabled: { setting: 'OcppAuthorizationCacheEnabled', kind: 'bool' },
  LocalPreAuthorize: { setting: 'OcppLocalPreAuthorize', kind: 'bool' },
  LocalAuthorizeOffline: { setting: 'OcppLocalAuthorizeOffline', kind: 'bool' },
  AllowOfflineTxForUnknownId: { setting: 'OcppAllowOfflineTxForUnknownId', kind: 'bool' },
  StopTransactionOnInvalidId: { setting: 'OcppStopTransactionOnInvalidId', kind: 'bool' },
};

/** Keys this charge point reports read-only: what it is and does, which the central system cannot change. */
const READ_ONLY: Record<string, string> = {
  AuthorizeRemoteTxRequests: 'false',
  NumberOfConnectors: '1',
  SupportedFeatureProfiles: 'Core,LocalAuthListManagement,RemoteTrigger,SmartCharging,Reservation',
  ReserveConnectorZeroSupported: 'false',
  GetConfigurationMaxKeys: String(GET_CONFIGURATION_MAX_KEYS),
  LocalAuthListMaxLength: String(LOCAL_LIST_MAX),
  SendLocalListMaxLength: String(LOCAL_LIST_MAX),
  ChargeProfileMaxStackLevel: String(MAX_STACK_LEVEL),
  ChargingScheduleAllowedChargingRateUnit: 'Current,Power',
  ChargingScheduleMaxPeriods: String(MAX_PERIODS),
  MaxChargingProfilesInstalled: String(MAX_PROFILES),
  MeterValuesSampledDataMaxLength: String(MEASURAND_MAX_LENGTH),
  MeterValuesAlignedDataMaxLength: String(MEASURAND_MAX_LENGTH),
  StopTxnSampledDataMaxLength: '1',
  StopTxnAlignedDataMaxLength: '0',
  ConnectorPhaseRotationMaxLength: '2',
  // Read from the installation (phaseSwitchSupported below); listed here for its place and its read-only flag.
  ConnectorSwitch3to1PhaseSupported: 'false',
  // A reset is the controller's restart in its process: it happens or the process is gone; nothing to retry.
  ResetRetries: '0',
};

/** AuthorizationKey (security profile 1): write-only, hex-encoded as the OCPP security whitepaper has it. */
const AUTHORIZATION_KEY = 'AuthorizationKey';

/** The keys a GetConfiguration without keys answers, in this order. */
export const CONFIGURATION_KEYS = [...Object.keys(MAPPED), 'SecurityProfile', ...Object.keys(STORED_KEYS), ...Object.keys(READ_ONLY)];

export interface ConfigurationKeyValue {
  key: string;
  readonly: boolean;
  value?: string;
}

/**
 * GetConfiguration and ChangeConfiguration on the settings and the charge point's stored keys. `phaseSwitchSupported`
 * answers ConnectorSwitch3to1PhaseSupported: whether a profile's numberPhases can switch the phases now.
 * `firmwareManagement`: UpdateFirmware is answered (under the launcher), so SupportedFeatureProfiles lists the profile.
 */
export function createConfiguration(settings: Settings, stored: StoredKeys, phaseSwitchSupported: () => boolean = () => false, firmwareManagement = false) {
  const value = (key: string): string | undefined => {
    if (key === 'ConnectorSwitch3to1PhaseSupported') return String(phaseSwitchSupported());
    if (key === 'SupportedFeatureProfiles') return `${READ_ONLY[key]}${firmwareManagement ? ',FirmwareManagement' : ''}`;
    const mapped = MAPPED[key];
    if (mapped) {
      const v = settings.get(mapped.setting);
      return mapped.kind === 'bool' ? String(v === 1) : String(v);
    }
    if (key === 'SecurityProfile') return settings.get('OcppPassword') ? (settings.get('OcppUrl').startsWith('wss:') ? '2' : '1') : '0';
    return stored.get(key) ?? READ_ONLY[key];
  };

  return {
    /** GetConfiguration: the keys asked for (all without `keys`), and those this charge point does not know. */
    get(keys?: string[]): { configurationKey: ConfigurationKeyValue[]; unknownKey?: string[] } {
      const asked = keys && keys.length > 0 ? keys : CONFIGURATION_KEYS;
      const known = asked.filter((k) => value(k) !== undefined);
      const unknown = asked.filter((k) => value(k) === undefined);
      return {
        configurationKey: known
          .slice(0, GET_CONFIGURATION_MAX_KEYS)
          .map((key) => ({ key, readonly: !(key in MAPPED) && !(key in STORED_KEYS), value: value(key)! })),
        ...(unknown.length ? { unknownKey: unknown } : {}),
      };
    },

    /** ChangeConfiguration: mapped keys change their setting, stored keys are stored (refused values Rejected); read-only ones Rejected. */
    async change(key: string, raw: string): Promise<ConfigurationStatus> {
      if (key === AUTHORIZATION_KEY) {
        if (!/^([0-9a-fA-F]{2}){16,40}$/.test(raw)) return 'Rejected';
        const password = Buffer.from(raw, 'hex').toString('latin1');
        return changeSetting(settings, 'OcppPassword', password);
      }
      if (key in STORED_KEYS) return (await stored.set(key, raw)) ? 'Accepted' : 'Rejected';
      const mapped = MAPPED[key];
      if (!mapped) return key in READ_ONLY || key === 'SecurityProfile' ? 'Rejected' : 'NotSupported';
      let v: number;
      if (mapped.kind === 'bool') {
        if (raw !== 'true' && raw !== 'false') return 'Rejected';
        v = raw === 'true' ? 1 : 0;
      } else {
        if (!/^\d{1,9}$/.test(raw)) return 'Rejected';
        v = Number(raw);
      }
      return changeSetting(settings, mapped.setting, v);
    },
  };
}

/** A setting changed by the central system: Accepted, RebootRequired (applied at the next start), or Rejected (refused, unchanged). */
export async function changeSetting(settings: Settings, setting: string, v: string | number): Promise<'Accepted' | 'RebootRequired' | 'Rejected'> {
  try {
    const result = await settings.set(CENTRAL_SYSTEM, [{ key: setting, value: v }]);
    return settings.field(setting)?.reboot && result.reboot_required ? 'RebootRequired' : 'Accepted';
  } catch {
    return 'Rejected';
  }
}

export type Configuration = ReturnType<typeof createConfiguration>;

/** GetConfiguration and ChangeConfiguration, as the central system calls them. */
export function configurationCalls(configuration: Configuration, logger: Logger): IncomingCalls {
  return {
    GetConfiguration: (p) => configuration.get(p.key),
    ChangeConfiguration: async (p) => {
      const status = await configuration.change(p.key, p.value);
      logger.info({ key: p.key, status }, 'OCPP: ChangeConfiguration');
      return { status };
    },
  };
}
