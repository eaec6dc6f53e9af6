import { createHash, sign, type KeyObject } from 'node:crypto';
import { CertificationRequest, CertificationRequestInfo } from '@peculiar/asn1-csr';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  Certificate,
  Name,
  RelativeDistinguishedName,
  SubjectPublicKeyInfo,
} from '@peculiar/asn1-x509';

/**
 * The DER side of OCPP 2.0.1's certificates (Node's crypto parses and verifies certificates but can neither build a
 * PKCS#10 request nor give a certificate's encoded issuer name): PEM blocks, the certificate hash data that names a
 * certificate in GetInstalledCertificateIds and DeleteCertificate, subject names, and the charging station's CSR.
 */

const OID = { commonName: '2.5.4.3', organizationName: '2.5.4.10', ecdsaWithSha256: '1.2.840.10045.4.3.2' } as const;

/** The hash algorithms of OCPP 2.0.1's CertificateHashDataType, as node:crypto names them. */
export const HASH_ALGORITHMS = { SHA256: 'sha256', SHA384: 'sha384', SHA512: 'sha512' } as const;
export type HashAlgorithm = keyof typeof HASH_ALGORITHMS;

/** CertificateHashDataType: the certificate's issuer and serial number, as an OCSP CertID (RFC 6960 4.1.1) has them. */
export interface CertificateHashData {
  hashAlgorithm: HashAlgorithm;
  issuerNameHash: string;
  issuerKeyHash: string;
  serialNumber: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n?-----END \1-----/g;

/**
 * The DER of each CERTIFICATE block of a PEM text, in order; undefined when the text holds anything else (another
 * kind of block, text between blocks, bad base64) or no block.
 */
export function certificateBlocks(pem: string): Buffer[] | undefined {
  const blocks: Buffer[] = [];
  let rest = pem;
  for (const m of pem.matchAll(PEM_BLOCK)) {
    if (m[1] !== 'CERTIFICATE') return undefined;
    const base64 = m[2]!.replace(/\s/g, '');
    const der = Buffer.from(base64, 'base64');
    if (der.length === 0 || der.toString('base64') !== base64) return undefined;
    blocks.push(der);
    rest = rest.replace(m[0], '');
  }
  return blocks.length > 0 && rest.trim() === '' ? blocks : undefined;
}

/** DER as a PEM block of `label` (64 characters a line, RFC 7468). */
export function toPem(der: Uint8Array, label: 'CERTIFICATE' | 'CERTIFICATE REQUEST'): string {
  const lines =
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

const hex = (data: Uint8Array | ArrayBuffer, algorithm: HashAlgorithm) =>
  createHash(HASH_ALGORITHMS[algorithm])
    .update(new Uint8Array(data as ArrayBuffer))
    .digest('hex');

/** A serial number as OCPP 2.0.1 (errata) writes it: lowercase hexadecimal without leading zeroes. */
export function serialHex(serial: ArrayBuffer | Uint8Array): string {
  return (
    Buffer.from(new Uint8Array(serial as ArrayBuffer))
      .toString('hex')
      .replace(/^0+/, '') || '0'
  );
}

/**
 * The hash data of the certificate `der` issued by `issuerDer` (itself for a root): the hash of the DER-encoded
 * issuer name, the hash of the issuer's public key (the subjectPublicKey bits, without tag and length) and the
 * serial number.
 */
export function certificateHashData(der: Uint8Array, issuerDer: Uint8Array, hashAlgorithm: HashAlgorithm = 'SHA256'): CertificateHashData {
  const cert = AsnConvert.parse(der, Certificate);
  const issuer = AsnConvert.parse(issuerDer, Certificate);
  return {
    hashAlgorithm,
    issuerNameHash: hex(AsnConvert.serialize(cert.tbsCertificate.issuer), hashAlgorithm),
    issuerKeyHash: hex(issuer.tbsCertificate.subjectPublicKeyInfo.subjectPublicKey, hashAlgorithm),
    serialNumber: serialHex(cert.tbsCertificate.serialNumber),
  };
}

/** Whether two hash data name the same certificate (hex compared without case; serial numbers without leading zeroes). */
export function sameHashData(a: CertificateHashData, b: CertificateHashData): boolean {
  const serial = (s: string) => s.toLowerCase().replace(/^0+/, '') || '0';
  return (
    a.hashAlgorithm === b.hashAlgorithm &&
    a.issuerNameHash.toLowerCase() === b.issuerNameHash.toLowerCase() &&
    a.issuerKeyHash.toLowerCase() === b.issuerKeyHash.toLowerCase() &&
    serial(a.serialNumber) === serial(b.serialNumber)
  );
}

/** The subject's common name and organization of a certificate (the first of each; undefined where it has none). */
export function subjectNames(der: Uint8Array): { commonName?: string; organization?: string } {
  const cert = AsnConvert.parse(der, Certificate);
  const names: { commonName?: string; organization?: string } = {};
  for (const rdn of cert.tbsCertificate.subject) {
    for (const attribute of rdn) {
      const value = attribute.value.toString();
      if (attribute.type === OID.commonName) names.commonName ??= value;
      if (attribute.type === OID.organizationName) names.organization ??= value;
    }
  }
  return names;
}

const rdn = (type: string, value: string) =>
  new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) })]);

/**
 * A PKCS#10 certificate signing request (RFC 2986, PEM) for an EC P-256 key pair: subject O = `organization` (left
 * out when empty) and CN = `commonName`, signed with the private key (ecdsa-with-SHA256) so the CA knows the requester
 * holds it. Only the public key is in it.
 */
export function buildCsr(keys: { publicKey: KeyObject; privateKey: KeyObject }, subject: { organization: string; commonName: string }): string {
  const spki = AsnConvert.parse(keys.publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
  const name = new Name([...(subject.organization ? [rdn(OID.organizationName, subject.organization)] : []), rdn(OID.commonName, subject.commonName)]);
  const info = new CertificationRequestInfo({ subject: name, subjectPKInfo: spki });
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(info)), keys.privateKey);
  const request = new CertificationRequest({
    certificationRequestInfo: info,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: OID.ecdsaWithSha256 }),
    signature: new Uint8Array(signature).buffer,
  });
  return toPem(new Uint8Array(AsnConvert.serialize(request)), 'CERTIFICATE REQUEST');
}
