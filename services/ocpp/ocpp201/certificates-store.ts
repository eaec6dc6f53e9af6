import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../field-service/slots.js';
import type { Logger } from '../../logger.js';

/** The root certificates a CSMS may install (InstallCertificateUseEnumType) that this station keeps. */
export type RootCertificateType = 'CSMSRootCertificate' | 'ManufacturerRootCertificate';

export interface StoredRoot {
  certificateType: RootCertificateType;
  /** One CERTIFICATE block. */
  pem: string;
}

/** A charging station certificate with its key (the key: PKCS#8 PEM, generated here, never sent anywhere). */
export interface StationCredentials {
  key: string;
  /** The chain as the CSMS sent it, leaf first (PEM blocks). */
  chain: string;
}

export interface StationFile {
  /** The key of the CSR sent with SignCertificate, waiting for its CertificateSigned. */
  pendingKey?: string;
  /** Installed certificates, oldest first: the newest valid one is used (an older one until a newer one is valid). */
  credentials: StationCredentials[];
}

/**
 * The certificate store in the data directory (`ocpp-certificates/`, mode 0700): `roots.json` (installed root
 * certificates) and `station.json` (the charging station's keys and certificates). Files are mode 0600 and each is
 * written whole, atomically and fsynced (temporary file, rename): a power cut leaves the old or the new content,
 * and a change that touches a key and its certificate together (CertificateSigned) is one write. A write that fails
 * throws, and the copy in memory stays as it was.
 */
export function openCertificateStore(dataDir: string, logger: Pick<Logger, 'error'>) {
  const dir = join(dataDir, 'ocpp-certificates');
  const rootsFile = join(dir, 'roots.json');
  const stationFile = join(dir, 'station.json');

  const read = <T>(file: string, empty: T, valid: (value: unknown) => boolean): T => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return empty; // none yet
    }
    try {
      const value = JSON.parse(text) as unknown;
      if (valid(value)) return value as T;
    } catch {
      // reported below
    }
    // Atomic writes leave no half file: this is damage from outside, reported and replaced at the next change.
    logger.error({ file }, 'OCPP: the certificate store file is unreadable, starting without its content');
    return empty;
  };

  let roots = read<StoredRoot[]>(rootsFile, [], (v) => Array.isArray(v));
  let station = read<StationFile>(
    stationFile,
    { credentials: [] },
    (v) => typeof v === 'object' && v !== null && Array.isArray((v as StationFile).credentials),
  );

  const write = (file: string, value: unknown) => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
  };

  return {
    roots: (): readonly StoredRoot[] => roots,
    setRoots(next: StoredRoot[]): void {
      write(rootsFile, next);
      roots = next;
    },
    station: (): Readonly<StationFile> => station,
    setStation(next: StationFile): void {
      write(stationFile, next);
      station = next;
    },
  };
}

export type CertificateStore = ReturnType<typeof openCertificateStore>;
