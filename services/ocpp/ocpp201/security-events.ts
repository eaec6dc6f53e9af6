import type { Logger } from '../../logger.js';
import { openSecurityEventQueue, type QueuedSecurityEvent } from './security-events-queue.js';

/**
 * OCPP 2.0.1's security events (appendix "Security Events") this station can observe, with whether the spec calls
 * each critical (A04.FR.02: critical ones must reach the CSMS; the others are sent too, as the OCA test tool expects
 * InvalidChargingStationCertificate after a refused CertificateSigned). Not listed: what the station cannot see
 * (TamperDetectionActivated: no tamper switch; AttemptedReplayAttacks; InvalidTLSVersion/CipherSuite: Node's TLS
 * refuses those before any code here runs).
 */
export const SECURITY_EVENTS = {
  FirmwareUpdated: true,
  FailedToAuthenticateAtCsms: false,
  SettingSystemTime: true,
  StartupOfTheDevice: true,
  ResetOrReboot: true,
  SecurityLogWasCleared: true,
  ReconfigurationOfSecurityParameters: true,
  MemoryExhaustion: true,
  InvalidMessages: false,
  InvalidFirmwareSignature: false,
  InvalidFirmwareSigningCertificate: false,
  InvalidCsmsCertificate: false,
  InvalidChargingStationCertificate: false,
} as const;
export type SecurityEventType = keyof typeof SECURITY_EVENTS;

/** Node's TLS codes for a CSMS server certificate the handshake refused (path validation, host name). */
const CSMS_CERTIFICATE_ERRORS = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * The security event of a failed connection attempt (the error ocpp-rpc's connect rejected with), for the transport
 * to record: the CSMS's server certificate refused by the TLS handshake (InvalidCsmsCertificate), or HTTP 401 to the
 * station's credentials (FailedToAuthenticateAtCsms); undefined for anything else (an unreachable CSMS is no
 * security event).
 */
export function connectionSecurityEvent(err: unknown): { type: SecurityEventType; techInfo: string } | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CSMS_CERTIFICATE_ERRORS.has(code)) return { type: 'InvalidCsmsCertificate', techInfo: `${code}: ${String(message)}` };
  if (code === 401) return { type: 'FailedToAuthenticateAtCsms', techInfo: 'HTTP 401 to the connection request' };
  return undefined;
}

/** SecurityEventNotificationRequest's techInfo is at most 255 characters. */
const TECH_INFO_MAX = 255;

/** What the security events need from the 2.0.1 adapter. */
export interface SecurityEventsDeps {
  /** The data directory (config.dataDir): the queue of unsent events is kept there. */
  dataDir: string;
  /** Sends a call to the CSMS, resolving with its answer; rejects on a CALLERROR (error with `rpcErrorCode`), a timeout or no connection. */
  call(action: string, payload: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Wall-clock time (ms): the event's timestamp. */
  now(): number;
  /** Whether the CSMS accepted the boot and the connection is open: only then are events sent. */
  online(): boolean;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The security log every recorded event is written to (GetLog SecurityLog). */
  log?: { append(event: QueuedSecurityEvent): void } | undefined;
}

/** An answer from the CSMS (CALLERROR) or ocpp-rpc's own refusal of an invalid frame: sending it again changes nothing. */
const refused = (err: unknown) => typeof (err as { rpcErrorCode?: unknown } | undefined)?.rpcErrorCode === 'string';

/**
 * SecurityEventNotification (use case A04): `record` writes the event to the station's security log (the logger)
 * and to a persistent queue before it returns, then sends the queue in order while `online()`. The adapter calls
 * `pump()` when the boot is accepted. An event the CSMS refuses (CALLERROR) is dropped, logged; one that could not
 * be sent (no connection, timeout) stays first in the queue for the next `pump()`.
 */
export function createSecurityEvents(deps: SecurityEventsDeps) {
  const { logger } = deps;
  const queue = openSecurityEventQueue(deps.dataDir, logger);

  async function drain(): Promise<void> {
    for (let event = queue.head(); event && deps.online(); event = queue.head()) {
      try {
        await deps.call('SecurityEventNotification', { ...event });
      } catch (err) {
        if (!refused(err)) return; // not sent: stays queued
        logger.error({ type: event.type, error: (err as Error).message }, 'OCPP: the CSMS refused a security event; it is dropped');
      }
      queue.shift(event);
    }
  }

  let sending: Promise<void> | undefined;
  let again = false;
  /** Sends the queued events in order; one sender at a time (a call while it runs makes it look again before it ends). */
  function pump(): Promise<void> {
    if (sending) {
      again = true;
      return sending;
    }
    sending = (async () => {
      try {
        do {
          again = false;
          await drain();
        } while (again && deps.online());
      } finally {
        sending = undefined;
      }
    })();
    return sending;
  }

  return {
    /** No call of the CSMS belongs to this feature (SecurityEventNotification goes the other way). */
    calls: {},
    /**
     * Records a security event now (`techInfo`: what happened, for people; cut to 255 characters, never a secret).
     * Stored before it returns; a store that fails is logged, and the event is still tried once online.
     */
    record(type: SecurityEventType, techInfo?: string): void {
      const event: QueuedSecurityEvent = {
        type,
        timestamp: new Date(deps.now()).toISOString(),
        ...(techInfo ? { techInfo: techInfo.slice(0, TECH_INFO_MAX) } : {}),
      };
      logger.info({ securityEvent: type, techInfo: event.techInfo }, 'OCPP: security event');
      deps.log?.append(event);
      try {
        queue.push(event);
      } catch (err) {
        logger.error({ err, securityEvent: type }, 'OCPP: a security event could not be stored');
        if (deps.online()) void deps.call('SecurityEventNotification', { ...event }).catch(() => undefined);
        return;
      }
      void pump();
    },
    pump,
    /** Events recorded and not sent yet. */
    pending: () => queue.size(),
  };
}

export type SecurityEvents = ReturnType<typeof createSecurityEvents>;
