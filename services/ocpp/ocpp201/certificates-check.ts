import { X509Certificate, type KeyObject } from 'node:crypto';
import { subjectNames } from './certificates-der.js';

/**
 * The checks a certificate passes before this station keeps it (OCPP 2.0.1 A00 certificate properties, A02/A03
 * CertificateSigned, M05 InstallCertificate). Node's X509 parser reads and verifies; a refusal says why, with a
 * StatusInfo reason code for the CSMS.
 */
export type Verdict = { ok: true } | { ok: false; reasonCode: string; why: string };

const refuse = (reasonCode: string, why: string): Verdict => ({ ok: false, reasonCode, why });

/** A certificate parsed, or undefined for bytes that are not one. */
export function parseCertificate(der: Uint8Array): X509Certificate | undefined {
  try {
    return new X509Certificate(der);
  } catch {
    return undefined;
  }
}

export const validFrom = (cert: X509Certificate) => Date.parse(cert.validFrom);
export const validTo = (cert: X509Certificate) => Date.parse(cert.validTo);
/** Whether `cert` is valid at `now` (its notBefore and notAfter included). */
export const validAt = (cert: X509Certificate, now: number) => validFrom(cert) <= now && now <= validTo(cert);

/** EC curves of at least 224 bits (OCPP 2.0.1 A00's key sizes: RSA at least 2048 bits, ECDSA at least 224). */
const STRONG_CURVES = new Set(['secp224r1', 'prime256v1', 'secp384r1', 'secp521r1']);

/** Whether the certificate's key is as strong as OCPP 2.0.1's security profiles ask. */
function strongKey(cert: X509Certificate): boolean {
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') return (details.modulusLength ?? 0) >= 2048;
  if (key.asymmetricKeyType === 'ec') return STRONG_CURVES.has(details.namedCurve ?? '');
  return false;
}

/** Whether `cert` was issued and signed by `issuer` (names and signature). */
export const issuedBy = (cert: X509Certificate, issuer: X509Certificate) => cert.checkIssued(issuer) && cert.verify(issuer.publicKey);

/** A root certificate to install: a self-signed CA certificate, valid now, with a strong key. */
export function checkRoot(cert: X509Certificate, now: number): Verdict {
  if (!cert.ca) return refuse('InvalidCertificate', 'not a CA certificate');
  if (!issuedBy(cert, cert)) return refuse('InvalidCertificate', 'not self-signed: a root certificate signs itself');
  if (!validAt(cert, now)) return refuse('InvalidCertificate', `not valid now (valid ${cert.validFrom} to ${cert.validTo})`);
  if (!strongKey(cert)) return refuse('InvalidCertificate', 'its key is weaker than RSA 2048 or EC 224 bits');
  return { ok: true };
}

export interface StationChainContext {
  /** The key of the CSR this certificate answers. */
  key: KeyObject;
  identity: string;
  /** SecurityCtrlr.OrganizationName (empty: not checked, as the CSR carried none). */
  organization: string;
  /** Installed CSMS root certificates: the chain ends at one of them. */
  roots: readonly X509Certificate[];
  now: number;
}

/**
 * A charging station certificate chain (leaf first): the leaf holds the CSR's key, names this station (CN the
 * identity, O the organization name), is no CA and not expired (a leaf not valid yet is kept, and used from its
 * notBefore on); each certificate is signed by the next, a CA valid now; the last is an
 * installed CSMS root or signed by one.
 */
export function checkStationChain(chain: readonly X509Certificate[], c: StationChainContext): Verdict {
  const [leaf] = chain;
  if (!leaf) return refuse('InvalidCertificate', 'no certificate');
  if (!leaf.checkPrivateKey(c.key)) return refuse('InvalidCertificate', "its key is not the one of this station's signing request");
  const names = subjectNames(leaf.raw);
  if (names.commonName !== c.identity) return refuse('InvalidCertificate', `its common name ${JSON.stringify(names.commonName ?? '')} is not the identity`);
  if (c.organization && names.organization !== c.organization)
    return refuse('InvalidCertificate', `its organization ${JSON.stringify(names.organization ?? '')} is not the OrganizationName`);
  if (leaf.ca) return refuse('InvalidCertificate', 'a CA certificate cannot be the station certificate');
  if (validTo(leaf) < c.now) return refuse('CertificateExpired', `expired at ${leaf.validTo}`);
  if (!strongKey(leaf)) return refuse('InvalidCertificate', 'its key is weaker than RSA 2048 or EC 224 bits');
  return checkChainToRoots(chain, c.roots, c.now, 'CSMS root certificate');
}

/**
 * A chain's links above its leaf: each certificate signed by the next, a CA valid now; the last one of `roots` or
 * signed by one valid now (`rootName` says which kind of root, for the refusal).
 */
function checkChainToRoots(chain: readonly X509Certificate[], roots: readonly X509Certificate[], now: number, rootName: string): Verdict {
  for (let i = 1; i < chain.length; i++) {
    const issuer = chain[i]!;
    if (!issuer.ca || !issuedBy(chain[i - 1]!, issuer)) return refuse('InvalidChain', `certificate ${i} of the chain is not signed by certificate ${i + 1}`);
    if (!validAt(issuer, now)) return refuse('CertificateExpired', `certificate ${i + 1} of the chain is not valid now`);
  }
  const last = chain[chain.length - 1]!;
  const anchored = roots.some((root) => root.raw.equals(last.raw) || (validAt(root, now) && issuedBy(last, root)));
  return anchored ? { ok: true } : refuse('InvalidChain', `the chain does not end at an installed ${rootName}`);
}

/**
 * L01's firmware signing certificate (leaf first, intermediates after it): valid now, a strong key; each certificate
 * signed by the next, a CA valid now; the last an installed manufacturer root or signed by one.
 */
export function checkFirmwareSigner(chain: readonly X509Certificate[], roots: readonly X509Certificate[], now: number): Verdict {
  const [leaf] = chain;
  if (!leaf) return refuse('InvalidCertificate', 'no certificate');
  if (!validAt(leaf, now)) return refuse('CertificateExpired', `not valid now (valid ${leaf.validFrom} to ${leaf.validTo})`);
  if (!strongKey(leaf)) return refuse('InvalidCertificate', 'its key is weaker than RSA 2048 or EC 224 bits');
  return checkChainToRoots(chain, roots, now, 'ManufacturerRootCertificate');
}
