import type { OcppContext } from '../context.js';
import type { Endpoint } from '../transport.js';
import { createCertificates } from './certificates.js';
import { openSecurityLog } from './security-log.js';
import { createNetworkProfiles, INSTALLER_SLOT, type ProfileEndpoint } from './network-profiles.js';
import { connectionSecurityEvent, createSecurityEvents } from './security-events.js';

/** How often the station looks at its certificate's expiry (A03). */
const RENEWAL_CHECK_MS = 86_400_000;

/** What the security block reads of the device model (its stored variables). */
export interface SecurityVariables {
  organization(): string;
  priority(): string;
  attempts(): number;
  certSigningWaitMinimumS(): number;
  certSigningRepeatTimes(): number;
}

/**
 * Functional block A of the 2.0.1 station: certificates (A02/A03, M03–M05), security events (A04), the network
 * profiles with their security profiles 1–3 (A05, B09, B10). The transport asks it for each attempt's endpoint
 * and tells it how the attempt went; a refused server certificate or password becomes a security event.
 */
export async function createSecurity201(
  ctx: OcppContext,
  deps: {
    dataDir: string;
    /** The installer's connection (slot 0) from the settings: URL, password, OcppCaFile's authority. */
    installer(): Endpoint;
    /** Whether the open connection speaks 2.0.1 with its boot accepted (only then are security events sent). */
    online(): boolean;
    variables: SecurityVariables;
  },
) {
  const { logger } = ctx;
  const log = openSecurityLog(deps.dataDir, logger);
  const events = createSecurityEvents({ dataDir: deps.dataDir, call: (a, p) => ctx.call(a, p), now: ctx.now, online: deps.online, logger, log });
  const certificates = createCertificates({
    dataDir: deps.dataDir,
    identity: () => ctx.setting('OcppChargeBoxId'),
    organization: deps.variables.organization,
    call: (a, p) => ctx.call(a, p),
    now: ctx.now,
    logger,
    securityEvent: events.record,
    signingRetry: { clock: ctx.clock, waitMinimumS: deps.variables.certSigningWaitMinimumS, repeatTimes: deps.variables.certSigningRepeatTimes },
  });
  /** The authorities for wss://: OcppCaFile's if set (`base`: the installer's endpoint, read once), else the installed CSMS roots (none: the system's). */
  const tls = (base: Endpoint = deps.installer()) => {
    const fromFile = base.ca ?? [];
    return { ca: fromFile.length ? fromFile : certificates.csmsRoots(), client: certificates.tlsClient() };
  };
  const installer = (): ProfileEndpoint => {
    const base = deps.installer();
    const wss = base.url.startsWith('wss:');
    const { ca, client } = tls(base);
    // Without a password, a wss:// connection shows the station's certificate when it has one (security profile 3).
    const mutual = wss && !base.password && client !== undefined;
    return {
      ...base,
      slot: INSTALLER_SLOT,
      securityProfile: mutual ? 3 : base.password ? (wss ? 2 : 1) : 0,
      ca: wss && ca.length ? ca : undefined,
      client: mutual ? client : undefined,
    };
  };
  const network = await createNetworkProfiles({
    database: ctx.database,
    logger,
    installer,
    priority: deps.variables.priority,
    attempts: deps.variables.attempts,
    password: () => ctx.setting('OcppPassword') || undefined,
    tls: () => tls(),
    securityEvent: events.record,
  });
  // Every start of the controller (A04: StartupOfTheDevice is critical), sent once the CSMS accepted the boot.
  events.record('StartupOfTheDevice');

  /** A03: once a day, and whenever the boot is accepted, a certificate near its expiry is renewed. */
  const renew = () => {
    if (!deps.online() || !certificates.renewalDue()) return;
    logger.info({}, 'OCPP: the charging station certificate expires soon: asking the CSMS for a new one');
    ctx.fire(certificates.signCertificate());
  };
  const daily = () =>
    ctx.after(RENEWAL_CHECK_MS, () => {
      renew();
      daily();
    });
  daily();

  return {
    calls: { ...certificates.calls, ...network.calls },
    endpoint: network.endpoint,
    opened: network.opened,
    closed: network.closed,
    /** A failed attempt: counted for the fallback, and a security event when the TLS handshake or the password was refused. */
    failed(cause: unknown): void {
      network.failed();
      const event = connectionSecurityEvent(cause);
      if (event) events.record(event.type, event.techInfo);
    },
    /** The boot was accepted: the queued security events go (after the link's transition: `online()` holds then). */
    online: () =>
      ctx.later(() => {
        renew();
        return events.pump();
      }),
    record: events.record,
    /** TriggerMessage SignChargingStationCertificate (A02). */
    signCertificate: () => certificates.signCertificate(),
    securityProfile: network.securityProfile,
    activeSlot: network.activeSlot,
    certificateEntries: certificates.installed,
    /** N01: GetLog SecurityLog's file. */
    securityLog: log.source(ctx.now),
    /** L01: the firmware signing certificate checked against the installed manufacturer roots. */
    firmwareSigner: certificates.firmwareSigner,
  };
}

export type Security201 = Awaited<ReturnType<typeof createSecurity201>>;
