import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject, type X509Certificate } from 'node:crypto';
import { promisify } from 'node:util';
import type { OCPP20 } from 'typed-ocpp';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../logger.js';
import {
  checkFirmwareSigner,
  checkRoot,
  checkStationChain,
  issuedBy,
  parseCertificate,
  validAt,
  validFrom,
  validTo,
  type Verdict,
} from './certificates-check.js';
import { buildCsr, certificateBlocks, certificateHashData, sameHashData, toPem, type CertificateHashData } from './certificates-der.js';
import { openCertificateStore, type RootCertificateType, type StationCredentials, type StoredRoot } from './certificates-store.js';
import type { SecurityEventType } from './security-events.js';

const generateKeys = promisify(generateKeyPair);

/** A03: the station asks for a new certificate when its newest one expires within this. */
export const RENEW_BEFORE_MS = 30 * 86_400_000;

/** The most root certificates kept (SecurityCtrlr.CertificateEntries); one more is Failed (no room). */
export const MAX_ROOT_CERTIFICATES = 20;
const ROOT_TYPES: readonly string[] = ['CSMSRootCertificate', 'ManufacturerRootCertificate'] satisfies RootCertificateType[];

/** What the certificate management needs from the 2.0.1 adapter. */
export interface CertificatesDeps {
  /** The data directory (config.dataDir): the store is its `ocpp-certificates/`. */
  dataDir: string;
  /** The station's identity (OcppChargeBoxId): the CN of its certificate. */
  identity(): string;
  /** SecurityCtrlr.OrganizationName: the O of its certificate (empty: the CSR has none, and it is not checked). */
  organization(): string;
  /** Sends a call to the CSMS, resolving with its answer (rejects on a CALLERROR, a timeout or no connection). */
  call(action: string, payload: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Wall-clock time (ms): certificates' validity is checked against it. */
  now(): number;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Records a security event (security-events.ts `record`): a refused station certificate. */
  securityEvent(type: SecurityEventType, techInfo?: string): void;
  /**
   * SecurityCtrlr CertSigningWaitMinimum (s) and CertSigningRepeatTimes, read at each request, and the clock their
   * wait runs on: a SignCertificate the CSMS accepted is sent again (same key) when no certificate came within the
   * wait, the wait doubled each time, at most that many times. Without it the request is sent once.
   */
  signingRetry?: { clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>; waitMinimumS(): number; repeatTimes(): number } | undefined;
}

type Answer = Record<string, unknown>;
const status = (s: string, verdict?: Verdict & { ok: false }): Answer =>
  verdict ? { status: s, statusInfo: { reasonCode: verdict.reasonCode, additionalInfo: verdict.why.slice(0, 512) } } : { status: s };
const refusal = (reasonCode: string, why: string) => ({ ok: false as const, reasonCode, why });

/**
 * Certificate management of the OCPP 2.0.1 charging station: root certificates the CSMS installs, lists and deletes
 * (M05, M03, M04), and the charging station certificate (A02/A03: the key pair is generated here and never leaves
 * the store; the CSMS gets a CSR with SignCertificate and answers with CertificateSigned). `tlsClient()` and
 * `csmsRoots()` are what the transport needs for security profiles 2 and 3.
 */
export function createCertificates(deps: CertificatesDeps) {
  const { logger, signingRetry } = deps;
  const store = openCertificateStore(deps.dataDir, logger);
  let retryTimer: unknown;
  const stopRetrying = () => {
    if (retryTimer !== undefined) signingRetry?.clock.clearTimeout(retryTimer);
    retryTimer = undefined;
  };

  const parsedRoots = (type?: RootCertificateType) =>
    store
      .roots()
      .filter((r) => type === undefined || r.certificateType === type)
      .flatMap((r) => {
        const cert = parseCertificate(certificateBlocks(r.pem)?.[0] ?? Buffer.alloc(0));
        return cert ? [{ root: r, cert }] : [];
      });

  /** A chain's certificates, parsed (undefined: not a PEM chain of certificates). */
  const parseChain = (pem: string): X509Certificate[] | undefined => {
    const certs = (certificateBlocks(pem) ?? []).map(parseCertificate);
    return certs.length > 0 && certs.every((c) => c !== undefined) ? (certs as X509Certificate[]) : undefined;
  };

  /** The hash data of each installed station certificate (its issuer: the next in its chain, else a root). */
  const stationHashData = (algorithm: CertificateHashData['hashAlgorithm']): CertificateHashData[] =>
    store.station().credentials.flatMap(({ chain }) => {
      const [leaf, next] = parseChain(chain) ?? [];
      const issuer = next ?? (leaf && parsedRoots().find(({ cert }) => issuedBy(leaf, cert))?.cert);
      return leaf && issuer ? [certificateHashData(leaf.raw, issuer.raw, algorithm)] : [];
    });

  function installCertificate({ certificateType, certificate }: OCPP20.InstallCertificateRequest): Answer {
    if (!ROOT_TYPES.includes(certificateType))
      return status('Rejected', refusal('NotSupported', `${certificateType}: this station has no ISO 15118 communication`));
    const blocks = certificateBlocks(certificate);
    const cert = blocks?.length === 1 ? parseCertificate(blocks[0]!) : undefined;
    if (!cert) return status('Rejected', refusal('InvalidFormat', 'not one PEM-encoded X.509 certificate'));
    const verdict = checkRoot(cert, deps.now());
    if (!verdict.ok) {
      logger.warn({ certificateType, why: verdict.why }, 'OCPP: refused a root certificate');
      return status('Rejected', verdict);
    }
    const roots = store.roots();
    if (parsedRoots(certificateType as RootCertificateType).some((r) => r.cert.raw.equals(cert.raw))) return status('Accepted');
    if (roots.length >= MAX_ROOT_CERTIFICATES) return status('Failed', refusal('OutOfStorage', `${MAX_ROOT_CERTIFICATES} root certificates are installed`));
    try {
      store.setRoots([...roots, { certificateType: certificateType as RootCertificateType, pem: toPem(cert.raw, 'CERTIFICATE') }]);
    } catch (err) {
      logger.error({ err }, 'OCPP: a root certificate could not be stored');
      return status('Failed', refusal('InternalError', 'the certificate store could not be written'));
    }
    logger.info({ certificateType, subject: cert.subject, fingerprint: cert.fingerprint256 }, 'OCPP: installed a root certificate');
    return status('Accepted');
  }

  function getInstalledCertificateIds({ certificateType }: OCPP20.GetInstalledCertificateIdsRequest): Answer {
    const asked = certificateType ?? ROOT_TYPES;
    const chain = parsedRoots()
      .filter(({ root }) => (asked as readonly string[]).includes(root.certificateType))
      .map(({ root, cert }) => ({ certificateType: root.certificateType, certificateHashData: certificateHashData(cert.raw, cert.raw) }));
    return chain.length > 0 ? { status: 'Accepted', certificateHashDataChain: chain } : { status: 'NotFound' };
  }

  function deleteCertificate({ certificateHashData: asked }: OCPP20.DeleteCertificateRequest): Answer {
    const wanted = asked as CertificateHashData;
    // M04.FR.06: the charging station certificate is never deleted this way.
    if (stationHashData(wanted.hashAlgorithm).some((h) => sameHashData(h, wanted)))
      return status('Failed', refusal('NotSupported', 'the charging station certificate cannot be deleted'));
    const match = parsedRoots().find(({ cert }) => sameHashData(certificateHashData(cert.raw, cert.raw, wanted.hashAlgorithm), wanted));
    if (!match) return status('NotFound');
    try {
      store.setRoots(store.roots().filter((r) => r !== match.root));
    } catch (err) {
      logger.error({ err }, 'OCPP: a root certificate could not be deleted');
      return status('Failed', refusal('InternalError', 'the certificate store could not be written'));
    }
    logger.info({ certificateType: match.root.certificateType, subject: match.cert.subject }, 'OCPP: deleted a root certificate');
    return status('Accepted');
  }

  /** Sends SignCertificate with a CSR for `privateKey`; `attempt` 0 is the first, each later one a repetition. */
  async function requestSignature(privateKey: KeyObject, attempt: number): Promise<'Accepted' | 'Rejected'> {
    const csr = buildCsr({ privateKey, publicKey: createPublicKey(privateKey) }, { organization: deps.organization(), commonName: deps.identity() });
    const answer = await deps.call('SignCertificate', { csr, certificateType: 'ChargingStationCertificate' });
    logger.info({ status: answer.status, attempt }, 'OCPP: sent a certificate signing request');
    if (answer.status !== 'Accepted') return 'Rejected';
    if (signingRetry && attempt < signingRetry.repeatTimes()) {
      const key = store.station().pendingKey;
      retryTimer = signingRetry.clock.setTimeout(
        () => {
          retryTimer = undefined;
          // Only while that request still waits (no certificate came, no newer request).
          if (!key || store.station().pendingKey !== key) return;
          requestSignature(createPrivateKey(key), attempt + 1).catch((err: unknown) =>
            logger.warn({ err }, 'OCPP: a repeated certificate signing request failed'),
          );
        },
        signingRetry.waitMinimumS() * 1000 * 2 ** attempt,
      );
    }
    return 'Accepted';
  }

  /** A refused CertificateSigned: Rejected, logged and reported as a security event (A02, OCA TC_A_14). */
  function rejectSigned(verdict: Verdict & { ok: false }): Answer {
    logger.warn({ why: verdict.why }, 'OCPP: refused the charging station certificate the CSMS sent');
    deps.securityEvent('InvalidChargingStationCertificate', verdict.why);
    return status('Rejected', verdict);
  }

  function certificateSigned({ certificateChain, certificateType }: OCPP20.CertificateSignedRequest): Answer {
    if (certificateType === 'V2GCertificate') return status('Rejected', refusal('NotSupported', 'this station has no ISO 15118 communication'));
    const { pendingKey, credentials } = store.station();
    if (!pendingKey) return rejectSigned(refusal('NoSigningRequest', 'no signing request of this station is waiting for a certificate'));
    const chain = parseChain(certificateChain);
    if (!chain) return rejectSigned(refusal('InvalidFormat', 'not a PEM-encoded chain of X.509 certificates'));
    const verdict = checkStationChain(chain, {
      key: createPrivateKey(pendingKey),
      identity: deps.identity(),
      organization: deps.organization(),
      roots: parsedRoots('CSMSRootCertificate').map((r) => r.cert),
      now: deps.now(),
    });
    if (!verdict.ok) return rejectSigned(verdict);
    const installed: StationCredentials = { key: pendingKey, chain: chain.map((c) => toPem(c.raw, 'CERTIFICATE')).join('') };
    try {
      // The new one and the one before it (in use until the new one is valid).
      store.setStation({ credentials: [...credentials, installed].slice(-2) });
      stopRetrying();
    } catch (err) {
      logger.error({ err }, 'OCPP: the charging station certificate could not be stored');
      return status('Rejected', refusal('InternalError', 'the certificate store could not be written'));
    }
    logger.info({ subject: chain[0]!.subject, validFrom: chain[0]!.validFrom, validTo: chain[0]!.validTo }, 'OCPP: installed the charging station certificate');
    return status('Accepted');
  }

  return {
    calls: {
      InstallCertificate: installCertificate,
      GetInstalledCertificateIds: getInstalledCertificateIds,
      DeleteCertificate: deleteCertificate,
      CertificateSigned: certificateSigned,
    },

    /**
     * SignCertificate (A02 after TriggerMessage SignChargingStationCertificate, A03 on the station's own account): a
     * new EC P-256 key pair, kept in the store before the CSR goes out (its CertificateSigned may come after a
     * restart), and the CSMS's answer status. Rejects when the store cannot be written or the call fails.
     */
    async signCertificate(): Promise<'Accepted' | 'Rejected'> {
      stopRetrying();
      const keys = await generateKeys('ec', { namedCurve: 'prime256v1' });
      store.setStation({ ...store.station(), pendingKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string });
      return requestSignature(keys.privateKey, 0);
    },

    /**
     * Security profile 3's TLS client credentials (PEM): the newest installed station certificate valid now, with its
     * intermediate certificates, and its key; undefined when there is none.
     */
    tlsClient(): { key: string; cert: string } | undefined {
      const now = deps.now();
      const usable = store
        .station()
        .credentials.map((c) => ({ c, leaf: parseChain(c.chain)?.[0] }))
        .filter(({ leaf }) => leaf !== undefined && validAt(leaf, now))
        .sort((a, b) => validFrom(a.leaf!) - validFrom(b.leaf!));
      const newest = usable[usable.length - 1]?.c;
      return newest && { key: newest.key, cert: newest.chain };
    },

    /**
     * L01: the firmware's signing certificate (PEM, leaf first) checked against the installed manufacturer roots;
     * its public key when it passes (refused: a security event InvalidFirmwareSigningCertificate, and why).
     */
    firmwareSigner(pem: string): { ok: true; key: KeyObject } | (Verdict & { ok: false }) {
      const chain = parseChain(pem);
      const verdict = chain
        ? checkFirmwareSigner(
            chain,
            parsedRoots('ManufacturerRootCertificate').map((r) => r.cert),
            deps.now(),
          )
        : refusal('InvalidFormat', 'not a PEM-encoded chain of X.509 certificates');
      if (verdict.ok) return { ok: true, key: chain![0]!.publicKey };
      logger.warn({ why: verdict.why }, 'OCPP: refused the firmware signing certificate');
      deps.securityEvent('InvalidFirmwareSigningCertificate', verdict.why);
      return verdict;
    },

    /**
     * A03: whether the station should ask for a new certificate on its own account: its newest installed certificate
     * expires within RENEW_BEFORE_MS and no request waits for its answer.
     */
    renewalDue(): boolean {
      const { pendingKey, credentials } = store.station();
      if (pendingKey) return false;
      const expiries = credentials.flatMap(({ chain }) => {
        const leaf = parseChain(chain)?.[0];
        return leaf ? [validTo(leaf)] : [];
      });
      return expiries.length > 0 && Math.max(...expiries) - deps.now() < RENEW_BEFORE_MS;
    },

    /** SecurityCtrlr.CertificateEntries: the root certificates and charging station certificates installed. */
    installed: (): number => store.roots().length + store.station().credentials.length,

    /** The installed CSMS root certificates (PEM), the authorities the CSMS's server certificate is checked against (profiles 2 and 3). */
    csmsRoots: (): string[] =>
      store
        .roots()
        .filter((r: StoredRoot) => r.certificateType === 'CSMSRootCertificate')
        .map((r) => r.pem),
  };
}

export type Certificates = ReturnType<typeof createCertificates>;
