import type { OCPP20 } from 'typed-ocpp';
import type { Database } from '../../../db/client.js';
import type { Logger } from '../../logger.js';
import type { OcppProtocol } from '../rpc-library.js';
import { loadStoredKeys } from '../stored-keys.js';
import type { Endpoint } from '../transport.js';
import type { SecurityEventType } from './security-events.js';

/** Slot 0 is the installer's connection (the OcppUrl, OcppPassword and OcppCaFile settings); the CSMS sets 1 to 3. */
export const INSTALLER_SLOT = 0;
export const CSMS_SLOTS = [1, 2, 3] as const;
export const NETWORK_SLOTS = [INSTALLER_SLOT, ...CSMS_SLOTS];

/** OCPPCommCtrlr.NetworkConfigurationPriority: the slots tried in order, at least one, none twice. */
export function checkPriority(raw: string): string | undefined {
  const slots = raw.split(',').map((s) => s.trim());
  if (!slots.every((s) => /^\d$/.test(s) && NETWORK_SLOTS.includes(Number(s)))) return undefined;
  return new Set(slots).size === slots.length ? slots.join(',') : undefined;
}

/** A slot's connection data as the CSMS sent it (kept as JSON in `ocpp_state`, `net:slot<N>`). */
type ConnectionData = OCPP20.SetNetworkProfileRequest['connectionData'];
const checkConnectionData = (raw: string) => {
  try {
    const data = JSON.parse(raw) as Partial<ConnectionData>;
    return typeof data.ocppCsmsUrl === 'string' && typeof data.securityProfile === 'number' ? raw : undefined;
  } catch {
    return undefined;
  }
};
const SLOT_KEYS = Object.fromEntries(CSMS_SLOTS.map((n) => [`slot${n}`, { default: '', check: checkConnectionData }]));

const PROTOCOL_OF: Partial<Record<ConnectionData['ocppVersion'], OcppProtocol>> = { OCPP20: 'ocpp2.0.1', OCPP16: 'ocpp1.6' };

/** The endpoint of an attempt, with the slot and security profile it comes from. */
export type ProfileEndpoint = Endpoint & { slot: number; securityProfile: number };

export interface NetworkProfilesDeps {
  database: Database;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** Slot 0, from the settings. */
  installer(): ProfileEndpoint;
  /** OCPPCommCtrlr NetworkConfigurationPriority and NetworkProfileConnectionAttempts, read at each attempt. */
  priority(): string;
  attempts(): number;
  /** SecurityCtrlr.BasicAuthPassword (OcppPassword): profiles 1 and 2 send it. */
  password(): string | undefined;
  /** The authorities the CSMS's certificate is checked against (installed CSMS roots, OcppCaFile), and the station's certificate. */
  tls(): { ca: string[]; client: { cert: string; key: string } | undefined };
  securityEvent(type: SecurityEventType, techInfo?: string): void;
}

type Answer = OCPP20.SetNetworkProfileResponse;
const rejected = (reasonCode: string, additionalInfo: string): Answer => ({ status: 'Rejected', statusInfo: { reasonCode, additionalInfo } });

/**
 * The 2.0.1 network connection profiles (B09 SetNetworkProfile, B10 migration to a new CSMS): the slots, and which
 * one each connection attempt uses. Attempts follow NetworkConfigurationPriority; after NetworkProfileConnectionAttempts
 * failed attempts with one slot the next is tried (the last wraps to the first): a new profile put first that cannot
 * connect falls back to the one after it, the previous. A changed priority starts over at its first slot.
 */
export async function createNetworkProfiles(deps: NetworkProfilesDeps) {
  const { logger } = deps;
  const stored = await loadStoredKeys(deps.database, SLOT_KEYS, 'net:');
  const dataOf = (slot: number): ConnectionData | undefined => {
    const raw = slot === INSTALLER_SLOT ? '' : (stored.get(`slot${slot}`) ?? '');
    return raw ? (JSON.parse(raw) as ConnectionData) : undefined;
  };
  /** The priority's slots that hold a profile (slot 0 always does). */
  const usable = () =>
    (checkPriority(deps.priority()) ?? '0')
      .split(',')
      .map(Number)
      .filter((slot) => slot === INSTALLER_SLOT || dataOf(slot) !== undefined);

  let priorityRead = '';
  let index = 0;
  let failures = 0;
  let attempting: ProfileEndpoint | undefined;
  let active: ProfileEndpoint | undefined;

  function endpointOf(slot: number): ProfileEndpoint {
    const data = dataOf(slot);
    if (!data) return deps.installer();
    const tls = deps.tls();
    const wss = data.ocppCsmsUrl.startsWith('wss:');
    return {
      slot,
      securityProfile: data.securityProfile,
      url: data.ocppCsmsUrl,
      protocols: [PROTOCOL_OF[data.ocppVersion] ?? 'ocpp2.0.1'],
      callTimeoutMs: data.messageTimeout * 1000,
      password: data.securityProfile === 1 || data.securityProfile === 2 ? deps.password() : undefined,
      ca: wss && tls.ca.length ? tls.ca : undefined,
      client: data.securityProfile === 3 ? tls.client : undefined,
    };
  }

  /** The security profile in force: the open connection's, else the one being tried, else the first slot's. */
  const securityProfile = () => (active ?? attempting ?? endpointOf(usable()[0] ?? INSTALLER_SLOT)).securityProfile;

  function setNetworkProfile({ configurationSlot: slot, connectionData: data }: OCPP20.SetNetworkProfileRequest): Promise<Answer> | Answer {
    if (!(CSMS_SLOTS as readonly number[]).includes(slot))
      return rejected('InvalidConfSlot', `configurationSlot ${slot}: the CSMS sets slots ${CSMS_SLOTS.join(', ')} (0 is the installer's)`);
    if (active?.slot === slot) return rejected('InvalidConfSlot', `slot ${slot} is the connection in use`);
    if (!PROTOCOL_OF[data.ocppVersion]) return rejected('UnsupportedVersion', `${data.ocppVersion}: this station speaks OCPP 2.0.1 and 1.6`);
    if (data.ocppTransport !== 'JSON') return rejected('UnsupportedTransport', 'only OCPP-J (JSON over WebSocket)');
    if (data.apn || data.vpn) return rejected('UnsupportedParam', 'this station has no cellular modem and no VPN client');
    let url: URL;
    try {
      url = new URL(data.ocppCsmsUrl);
    } catch {
      return rejected('InvalidURL', 'ocppCsmsUrl is not a URL');
    }
    const profile = data.securityProfile;
    if (profile < 0 || profile > 3) return rejected('InvalidSecurityProfile', `security profile ${profile} does not exist`);
    const inForce = securityProfile();
    if (profile < inForce) return rejected('NoSecurityDowngrade', `security profile ${profile} is lower than the one in force (${inForce})`);
    const tlsWanted = profile >= 2;
    if (url.protocol !== (tlsWanted ? 'wss:' : 'ws:')) return rejected('InvalidURL', `security profile ${profile} needs ${tlsWanted ? 'wss://' : 'ws://'}`);
    if (url.username || url.password) return rejected('InvalidURL', 'the URL must not carry credentials');
    const tls = deps.tls();
    if (tlsWanted && tls.ca.length === 0) return rejected('NoRootCertificate', 'security profiles 2 and 3 need an installed CSMSRootCertificate');
    if (profile === 3 && !tls.client) return rejected('NoCertificate', 'security profile 3 needs a charging station certificate (SignCertificate)');
    if ((profile === 1 || profile === 2) && !deps.password()) return rejected('NoPassword', 'security profiles 1 and 2 need SecurityCtrlr.BasicAuthPassword');
    return store(slot, data);
  }

  async function store(slot: number, data: ConnectionData): Promise<Answer> {
    try {
      await stored.set(`slot${slot}`, JSON.stringify(data));
    } catch (err) {
      logger.warn({ err }, 'OCPP: a network profile could not be stored');
      return { status: 'Failed', statusInfo: { reasonCode: 'InternalError', additionalInfo: 'the profile could not be stored' } };
    }
    logger.info({ slot, url: data.ocppCsmsUrl, securityProfile: data.securityProfile }, 'OCPP: network profile set');
    deps.securityEvent('ReconfigurationOfSecurityParameters', `network profile ${slot} set: ${data.ocppCsmsUrl}, security profile ${data.securityProfile}`);
    return { status: 'Accepted' };
  }

  return {
    calls: { SetNetworkProfile: setNetworkProfile },

    /** The endpoint of the next connection attempt. */
    endpoint(): ProfileEndpoint {
      const priority = deps.priority();
      if (priority !== priorityRead) {
        priorityRead = priority;
        index = 0;
        failures = 0;
      }
      const slots = usable();
      attempting = endpointOf(slots[index % slots.length] ?? INSTALLER_SLOT);
      return attempting;
    },
    /** The attempt connected: its profile is the one in force. */
    opened(): void {
      failures = 0;
      active = attempting;
    },
    /** The attempt failed: after NetworkProfileConnectionAttempts failures the next slot of the priority is tried. */
    failed(): void {
      active = undefined;
      const slots = usable();
      if (++failures < deps.attempts() || slots.length < 2) return;
      failures = 0;
      const from = slots[index % slots.length];
      index = (index + 1) % slots.length;
      logger.warn({ from, to: slots[index] }, 'OCPP: the network profile could not connect: trying the next one of NetworkConfigurationPriority');
    },
    /** The connection closed: no profile is in force until the next attempt opens. */
    closed(): void {
      active = undefined;
    },
    /** SecurityCtrlr.SecurityProfile and OCPPCommCtrlr.ActiveNetworkProfile. */
    securityProfile,
    activeSlot: () => (active ?? attempting)?.slot ?? INSTALLER_SLOT,
  };
}

export type NetworkProfiles = Awaited<ReturnType<typeof createNetworkProfiles>>;
