import { createPublicKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  GeneralName,
  Name,
  RelativeDistinguishedName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  SubjectAlternativeName,
  Version,
  id_ce_basicConstraints,
  id_ce_subjectAltName,
} from '@peculiar/asn1-x509';
import { OCPP20 } from 'typed-ocpp';
import { expect } from 'vitest';

/**
 * A test PKI made at test time (nothing stored in the repository): a CSMS's root CA and intermediate, its server
 * certificate, and certificates signed from a station's CSR as a CSMS would. Certificates are built with the
 * ASN.1 schemas and signed with Node's crypto (ecdsa-with-SHA256); Node's X509 parser reads each back.
 */

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

export interface Issued {
  pem: string;
  cert: X509Certificate;
  /** The certificate's private key. */
  key: KeyObject;
}

export interface Subject {
  CN?: string;
  O?: string;
}

export const ecKeys = (namedCurve = 'prime256v1') => generateKeyPairSync('ec', { namedCurve });

const name = ({ O, CN }: Subject) =>
  new Name(
    [
      ['2.5.4.10', O],
      ['2.5.4.3', CN],
    ]
      .filter((pair): pair is [string, string] => pair[1] !== undefined)
      .map(([type, value]) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) })])),
  );

const pem = (der: ArrayBuffer) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(der)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END CERTIFICATE-----\n`;

export interface IssueOptions {
  subject: Subject | Name;
  publicKey: KeyObject;
  /** Signs it (absent: self-signed with `selfKey`). */
  issuer?: Issued;
  selfKey?: KeyObject;
  ca?: boolean;
  notBefore: number;
  notAfter: number;
  /** The serial number's DER content bytes (default: 8 random bytes, positive). */
  serial?: Uint8Array;
  /** A server's addresses (subjectAltName): TLS checks an IP address of the URL against these only. */
  hosts?: { ip?: string[]; dns?: string[] };
}

/** A certificate as a CA makes one. */
export function issue(o: IssueOptions): { pem: string; cert: X509Certificate } {
  const serial = o.serial ?? Uint8Array.from(randomBytes(8), (b, i) => (i === 0 ? (b & 0x7f) | 0x01 : b));
  const extensions = new Extensions([
    new Extension({
      extnID: id_ce_basicConstraints,
      critical: true,
      extnValue: new OctetString(AsnConvert.serialize(new BasicConstraints({ cA: o.ca ?? false }))),
    }),
    ...(o.hosts
      ? [
          new Extension({
            extnID: id_ce_subjectAltName,
            extnValue: new OctetString(
              AsnConvert.serialize(
                new SubjectAlternativeName([
                  ...(o.hosts.ip ?? []).map((iPAddress) => new GeneralName({ iPAddress })),
                  ...(o.hosts.dns ?? []).map((dNSName) => new GeneralName({ dNSName })),
                ]),
              ),
            ),
          }),
        ]
      : []),
  ]);
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: Uint8Array.from(serial).buffer,
    signature: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    issuer: o.issuer ? AsnConvert.parse(o.issuer.cert.raw, Certificate).tbsCertificate.subject : o.subject instanceof Name ? o.subject : name(o.subject),
    validity: new Validity({ notBefore: new Date(o.notBefore), notAfter: new Date(o.notAfter) }),
    subject: o.subject instanceof Name ? o.subject : name(o.subject),
    subjectPublicKeyInfo: AsnConvert.parse(o.publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions,
  });
  const signingKey = o.issuer?.key ?? o.selfKey!;
  const signature = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), signingKey);
  const certificate = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 }),
    signatureValue: Uint8Array.from(signature).buffer,
  });
  const text = pem(AsnConvert.serialize(certificate));
  return { pem: text, cert: new X509Certificate(text) };
}

const DAY = 86_400_000;

/** A self-signed CA certificate valid from a day before `now` for `days`. */
export function createRoot(subject: Subject, now: number, o: { days?: number; curve?: string; ca?: boolean; notBefore?: number } = {}): Issued {
  const keys = ecKeys(o.curve);
  const made = issue({
    subject,
    publicKey: keys.publicKey,
    selfKey: keys.privateKey,
    ca: o.ca ?? true,
    notBefore: o.notBefore ?? now - DAY,
    notAfter: now + (o.days ?? 3650) * DAY,
  });
  return { ...made, key: keys.privateKey };
}

/** A certificate signed by `issuer` for a new key pair (an intermediate CA, or a server certificate). */
export function createIssued(
  issuer: Issued,
  subject: Subject,
  now: number,
  o: { ca?: boolean; days?: number; notBefore?: number; hosts?: IssueOptions['hosts'] } = {},
): Issued {
  const keys = ecKeys();
  const made = issue({
    subject,
    publicKey: keys.publicKey,
    issuer,
    ca: o.ca ?? false,
    notBefore: o.notBefore ?? now - DAY,
    notAfter: now + (o.days ?? 365) * DAY,
    ...(o.hosts ? { hosts: o.hosts } : {}),
  });
  return { ...made, key: keys.privateKey };
}

/** The CSR's subject and public key, after checking its signature (as a CA does before signing). */
export function readCsr(csrPem: string): { subject: Name; publicKey: KeyObject } {
  const base64 = /-----BEGIN CERTIFICATE REQUEST-----([\s\S]+)-----END CERTIFICATE REQUEST-----/.exec(csrPem)![1]!.replace(/\s/g, '');
  const request = AsnConvert.parse(Buffer.from(base64, 'base64'), CertificationRequest);
  const info = request.certificationRequestInfo;
  const publicKey = createPublicKey({ key: Buffer.from(AsnConvert.serialize(info.subjectPKInfo)), format: 'der', type: 'spki' });
  return { subject: info.subject, publicKey };
}

/** What a CSMS's CA answers a CSR with: a certificate for the CSR's key and subject (or another subject), by `issuer`. */
export function signCsr(
  csrPem: string,
  issuer: Issued,
  now: number,
  o: { subject?: Subject; notBefore?: number; notAfter?: number; publicKey?: KeyObject } = {},
) {
  const csr = readCsr(csrPem);
  return issue({
    subject: o.subject ?? csr.subject,
    publicKey: o.publicKey ?? csr.publicKey,
    issuer,
    notBefore: o.notBefore ?? now - 60_000,
    notAfter: o.notAfter ?? now + 365 * DAY,
  });
}

const require = createRequire(import.meta.url);
const { createValidator } = require('ocpp-rpc/lib/validator.js') as {
  createValidator: (subprotocol: string, schemas: unknown) => { validate(schemaId: string, params: unknown): boolean };
};
const strict = createValidator('ocpp2.0.1', require('ocpp-rpc/lib/schemas/ocpp2_0_1.json'));

/**
 * Checks a call and its answer with both 2.0.1 validators: ocpp-rpc's strict one (the OCA JSON schemas, as the
 * transport uses them) and typed-ocpp's (its own schemas and ajv set-up, the answer checked against its call).
 */
export function expectValid201(action: string, request: Record<string, unknown>, response: Record<string, unknown>): void {
  expect(() => strict.validate(`urn:${action}.req`, request), `${action} request (ocpp-rpc)`).not.toThrow();
  expect(() => strict.validate(`urn:${action}.conf`, response), `${action} response (ocpp-rpc)`).not.toThrow();
  const call = [2, 'm1', action, request];
  const result = [3, 'm1', response];
  expect(OCPP20.validate(call), `${action} request (typed-ocpp): ${(OCPP20.validate.errors ?? []).join('; ')}`).toBe(true);
  expect(OCPP20.validate(result), `${action} response (typed-ocpp)`).toBe(true);
  expect(OCPP20.checkCallResult(result as never, call as never), `${action} response (typed-ocpp): ${(OCPP20.checkCallResult.errors ?? []).join('; ')}`).toBe(
    true,
  );
}
