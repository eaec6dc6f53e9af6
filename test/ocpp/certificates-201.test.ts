import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, verify as verifySignature } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { Certificate } from '@peculiar/asn1-x509';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createCertificates, MAX_ROOT_CERTIFICATES } from '../../services/ocpp/ocpp201/certificates.js';
import { ManualClock } from '../clock.js';
import { createRoot, createIssued, ecKeys, expectValid201, issue, readCsr, signCsr, type Issued } from './pki-201.js';

/**
 * OCPP 2.0.1 certificate management through the module's handlers, with a test PKI made at test time and a fake
 * CSMS (`call`). Every call and answer is checked by both 2.0.1 validators (ocpp-rpc strict, typed-ocpp). Use cases
 * M05 (InstallCertificate), M03 (GetInstalledCertificateIds), M04 (DeleteCertificate), A02 (SignCertificate and
 * CertificateSigned; the OCA test tool's TC_A_11 success and TC_A_14 invalid certificate). Independent peers:
 * openssl (the CSR's signature, the OCSP CertID that the hash data must equal) when it is installed, Node's X509
 * and TLS (a mutual-TLS handshake with the installed credentials).
 */

const NOW = Date.parse('2026-11-28T12:00:00Z');
const IDENTITY = 'CC-0001';
const ORGANIZATION = 'Example Charging';
const HAS_OPENSSL = spawnSync('openssl', ['version']).status === 0;

let dir: string;
let now: number;
let logs: string[];
let sent: { action: string; payload: Record<string, unknown> }[];
let events: { type: string; techInfo?: string }[];
let csms: Issued;

/** A real pino logger writing into `logs` (what the station logs is checked for secrets). */
const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(line) });

function station(dataDir = dir, signingRetry?: Parameters<typeof createCertificates>[0]['signingRetry']) {
  return createCertificates({
    dataDir,
    signingRetry,
    identity: () => IDENTITY,
    organization: () => ORGANIZATION,
    now: () => now,
    logger,
    securityEvent: (type, techInfo) => events.push({ type, ...(techInfo ? { techInfo } : {}) }),
    call: async (action, payload) => {
      const answer = { status: 'Accepted' };
      expectValid201(action, payload, answer);
      sent.push({ action, payload });
      return answer;
    },
  });
}
type Station = ReturnType<typeof station>;

/** The CSMS calls the station: both validators check the call and the answer. */
function ask<A extends keyof Station['calls']>(s: Station, action: A, payload: Parameters<Station['calls'][A]>[0]): Record<string, any> {
  const answer = (s.calls[action] as (p: typeof payload) => Record<string, unknown>)(payload);
  expectValid201(action, payload as Record<string, unknown>, answer);
  return answer;
}

const install = (
  s: Station,
  certificate: string,
  certificateType: 'CSMSRootCertificate' | 'ManufacturerRootCertificate' | 'V2GRootCertificate' = 'CSMSRootCertificate',
) => ask(s, 'InstallCertificate', { certificateType, certificate });

/** The station's CSR, sent with SignCertificate (A02). */
async function requestCertificate(s: Station): Promise<string> {
  expect(await s.signCertificate()).toBe('Accepted');
  const request = sent.filter((c) => c.action === 'SignCertificate').at(-1)!;
  expect(request.payload.certificateType).toBe('ChargingStationCertificate');
  return request.payload.csr as string;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'certificates-201-'));
  now = NOW;
  logs = [];
  sent = [];
  events = [];
  csms = createRoot({ O: 'CSMS Operator', CN: 'CSMS Root CA' }, NOW);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('M05/M03: root certificates', () => {
  test('an installed CSMS root is listed with the hash data of its OCSP CertID, kept in a 0600 file, and survives a restart', () => {
    const s = station();
    expect(install(s, csms.pem)).toEqual({ status: 'Accepted' });
    const manufacturer = createRoot({ CN: 'Manufacturer Root' }, NOW);
    expect(install(s, manufacturer.pem, 'ManufacturerRootCertificate')).toEqual({ status: 'Accepted' });

    const listed = ask(s, 'GetInstalledCertificateIds', {});
    expect(listed.status).toBe('Accepted');
    expect(listed.certificateHashDataChain.map((c: { certificateType: string }) => c.certificateType)).toEqual([
      'CSMSRootCertificate',
      'ManufacturerRootCertificate',
    ]);
    const hash = listed.certificateHashDataChain[0].certificateHashData;
    expect(hash).toMatchObject({ hashAlgorithm: 'SHA256', serialNumber: csms.cert.serialNumber.toLowerCase().replace(/^0+/, '') });
    expect(hash.issuerNameHash).toMatch(/^[0-9a-f]{64}$/);

    expect(statSync(join(dir, 'ocpp-certificates')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'ocpp-certificates', 'roots.json')).mode & 0o777).toBe(0o600);
    expect(ask(station(), 'GetInstalledCertificateIds', {})).toEqual(listed);
    expect(station().csmsRoots()).toEqual([csms.pem]);
  });

  test.skipIf(!HAS_OPENSSL)("the hash data equal openssl's OCSP CertID (issuer name and key hashes, serial number)", () => {
    const s = station();
    install(s, csms.pem);
    const hash = ask(s, 'GetInstalledCertificateIds', { certificateType: ['CSMSRootCertificate'] }).certificateHashDataChain[0].certificateHashData;
    writeFileSync(join(dir, 'root.pem'), csms.pem);
    const text = execFileSync('openssl', ['ocsp', '-sha256', '-issuer', join(dir, 'root.pem'), '-cert', join(dir, 'root.pem'), '-no_nonce', '-req_text'], {
      encoding: 'utf8',
    });
    const field = (label: string) => new RegExp(`${label}: ([0-9A-F]+)`).exec(text)![1]!.toLowerCase();
    expect(hash).toEqual({
      hashAlgorithm: 'SHA256',
      issuerNameHash: field('Issuer Name Hash'),
      issuerKeyHash: field('Issuer Key Hash'),
      serialNumber: field('Serial Number').replace(/^0+/, ''),
    });
  });

  test('a serial number is written in lowercase hexadecimal without leading zeroes', () => {
    const keys = ecKeys();
    const root = issue({
      subject: { CN: 'Serial' },
      publicKey: keys.publicKey,
      selfKey: keys.privateKey,
      ca: true,
      notBefore: NOW - 1000,
      notAfter: NOW + 1e10,
      serial: Uint8Array.from([0x00, 0x8f, 0x0a]),
    });
    const s = station();
    install(s, root.pem);
    expect(ask(s, 'GetInstalledCertificateIds', {}).certificateHashDataChain[0].certificateHashData.serialNumber).toBe('8f0a');
  });

  test('refused: not a certificate, two of them, not a CA, not self-signed, expired, not valid yet, a weak key, a V2G root; nothing is stored', () => {
    const s = station();
    const leaf = createIssued(csms, { CN: 'server' }, NOW);
    const cases: [string, string, string][] = [
      ['not a certificate', '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n', 'InvalidFormat'],
      ['text', 'hello', 'InvalidFormat'],
      ['two certificates', csms.pem + csms.pem, 'InvalidFormat'],
      ['a key', csms.key.export({ type: 'pkcs8', format: 'pem' }) as string, 'InvalidFormat'],
      ['not a CA', createRoot({ CN: 'not a CA' }, NOW, { ca: false }).pem, 'InvalidCertificate'],
      ['not self-signed', createIssued(csms, { CN: 'intermediate' }, NOW, { ca: true }).pem, 'InvalidCertificate'],
      ['expired', createRoot({ CN: 'old' }, NOW - 400 * 86_400_000, { days: 10 }).pem, 'InvalidCertificate'],
      ['not valid yet', createRoot({ CN: 'future' }, NOW, { notBefore: NOW + 86_400_000 }).pem, 'InvalidCertificate'],
      ['weak key', createRoot({ CN: 'weak' }, NOW, { curve: 'prime192v1' }).pem, 'InvalidCertificate'],
      ['server certificate', leaf.pem, 'InvalidCertificate'],
    ];
    for (const [what, pem, reasonCode] of cases) expect(install(s, pem), what).toMatchObject({ status: 'Rejected', statusInfo: { reasonCode } });
    expect(install(s, csms.pem, 'V2GRootCertificate')).toMatchObject({ status: 'Rejected', statusInfo: { reasonCode: 'NotSupported' } });
    expect(ask(s, 'GetInstalledCertificateIds', {})).toEqual({ status: 'NotFound' });
    expect(station().csmsRoots()).toEqual([]);
  });

  test('the same root installed twice is kept once; a full store answers Failed', () => {
    const s = station();
    install(s, csms.pem);
    expect(install(s, csms.pem)).toEqual({ status: 'Accepted' });
    expect(s.csmsRoots()).toHaveLength(1);
    for (let i = 1; i < MAX_ROOT_CERTIFICATES; i++) expect(install(s, createRoot({ CN: `Root ${i}` }, NOW).pem).status).toBe('Accepted');
    expect(install(s, createRoot({ CN: 'one too many' }, NOW).pem)).toMatchObject({ status: 'Failed', statusInfo: { reasonCode: 'OutOfStorage' } });
    expect(ask(s, 'GetInstalledCertificateIds', {}).certificateHashDataChain).toHaveLength(MAX_ROOT_CERTIFICATES);
  });

  test('a store that cannot be written answers Failed and changes nothing', () => {
    writeFileSync(join(dir, 'ocpp-certificates'), 'a file where the folder should be');
    const s = station();
    expect(install(s, csms.pem)).toMatchObject({ status: 'Failed', statusInfo: { reasonCode: 'InternalError' } });
    expect(ask(s, 'GetInstalledCertificateIds', {})).toEqual({ status: 'NotFound' });
  });

  test('GetInstalledCertificateIds by type: only those asked; NotFound when none of them is installed', () => {
    const s = station();
    install(s, createRoot({ CN: 'Manufacturer' }, NOW).pem, 'ManufacturerRootCertificate');
    expect(ask(s, 'GetInstalledCertificateIds', { certificateType: ['CSMSRootCertificate', 'V2GRootCertificate'] })).toEqual({ status: 'NotFound' });
    const answer = ask(s, 'GetInstalledCertificateIds', { certificateType: ['ManufacturerRootCertificate'] });
    expect(answer.certificateHashDataChain).toHaveLength(1);
  });
});

describe('M04: DeleteCertificate', () => {
  test('deletes the root its hash data name (SHA256 or SHA512, hex of any case); NotFound after that, and after a restart', () => {
    const s = station();
    const other = createRoot({ CN: 'Other Root' }, NOW);
    install(s, csms.pem);
    install(s, other.pem);
    const [first, second] = ask(s, 'GetInstalledCertificateIds', {}).certificateHashDataChain;
    const upper = { ...first.certificateHashData, issuerNameHash: first.certificateHashData.issuerNameHash.toUpperCase() };
    expect(ask(s, 'DeleteCertificate', { certificateHashData: upper })).toEqual({ status: 'Accepted' });
    expect(ask(s, 'DeleteCertificate', { certificateHashData: first.certificateHashData })).toEqual({ status: 'NotFound' });
    expect(s.csmsRoots()).toEqual([other.pem]);
    expect(ask(station(), 'DeleteCertificate', { certificateHashData: first.certificateHashData })).toEqual({ status: 'NotFound' });
    // The same certificate named with another hash algorithm's values is another name: not found.
    expect(ask(s, 'DeleteCertificate', { certificateHashData: { ...second.certificateHashData, hashAlgorithm: 'SHA512' } })).toEqual({ status: 'NotFound' });
  });

  test('SHA384 hash data, computed here from the certificate (hash of the DER issuer name and of the key bits), name a root', () => {
    const s = station();
    install(s, csms.pem);
    const sha384 = (data: Uint8Array) => createHash('sha384').update(data).digest('hex');
    const issuerName = new Uint8Array(AsnConvert.serialize(AsnConvert.parse(csms.cert.raw, Certificate).tbsCertificate.issuer));
    // A P-256 key's subjectPublicKey bits are its 65-byte point, the end of the SPKI.
    const keyBits = csms.cert.publicKey.export({ type: 'spki', format: 'der' }).subarray(-65);
    const hashData = {
      hashAlgorithm: 'SHA384' as const,
      issuerNameHash: sha384(issuerName),
      issuerKeyHash: sha384(keyBits),
      serialNumber: csms.cert.serialNumber,
    };
    expect(ask(s, 'DeleteCertificate', { certificateHashData: { ...hashData, serialNumber: '1234' } })).toEqual({ status: 'NotFound' });
    expect(ask(s, 'DeleteCertificate', { certificateHashData: hashData })).toEqual({ status: 'Accepted' });
    expect(s.csmsRoots()).toEqual([]);
  });

  test('the charging station certificate is not deleted (M04.FR.06: Failed)', async () => {
    const s = station();
    install(s, csms.pem);
    const signed = signCsr(await requestCertificate(s), csms, NOW);
    expect(ask(s, 'CertificateSigned', { certificateChain: signed.pem, certificateType: 'ChargingStationCertificate' }).status).toBe('Accepted');
    // Its hash data: issuer = the CSMS root, serial = the leaf's.
    const rootHash = ask(s, 'GetInstalledCertificateIds', {}).certificateHashDataChain[0].certificateHashData;
    const leafHash = { ...rootHash, serialNumber: signed.cert.serialNumber.toLowerCase().replace(/^0+/, '') };
    expect(ask(s, 'DeleteCertificate', { certificateHashData: leafHash })).toMatchObject({ status: 'Failed' });
    expect(s.tlsClient()?.cert).toBe(signed.pem);
  });
});

describe('A02: the charging station certificate', () => {
  test('TC_A_11: SignCertificate carries a valid CSR (O, CN, the new key); CertificateSigned installs the chain; the key never leaves the store', async () => {
    const s = station();
    install(s, csms.pem);
    const csr = await requestCertificate(s);
    expect(csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE REQUEST-----\n$/);

    // The CSR's own signature verifies with the key it carries (Node's crypto, independent of the builder).
    const base64 = csr.replace(/-----[A-Z ]+-----|\s/g, '');
    const request = AsnConvert.parse(Buffer.from(base64, 'base64'), CertificationRequest);
    const { publicKey } = readCsr(csr);
    expect(verifySignature('sha256', Buffer.from(AsnConvert.serialize(request.certificationRequestInfo)), publicKey, Buffer.from(request.signature))).toBe(
      true,
    );

    const station201 = readFileSync(join(dir, 'ocpp-certificates', 'station.json'), 'utf8');
    expect(statSync(join(dir, 'ocpp-certificates', 'station.json')).mode & 0o777).toBe(0o600);
    const pendingKey = (JSON.parse(station201) as { pendingKey: string }).pendingKey;
    expect(createPrivateKey(pendingKey).asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });

    // The CSMS's intermediate CA signs it; the chain (leaf, intermediate) ends at the installed root.
    const intermediate = createIssued(csms, { CN: 'CSMS Sub CA' }, NOW, { ca: true });
    const leaf = signCsr(csr, intermediate, NOW);
    expect(leaf.cert.subject).toBe(`O=${ORGANIZATION}\nCN=${IDENTITY}`);
    const answer = ask(s, 'CertificateSigned', { certificateChain: leaf.pem + intermediate.pem, certificateType: 'ChargingStationCertificate' });
    expect(answer).toEqual({ status: 'Accepted' });
    expect(events).toEqual([]);

    const tls = station().tlsClient();
    expect(tls?.cert).toBe(leaf.pem + intermediate.pem);
    expect(createPrivateKey(tls!.key).export({ type: 'pkcs8', format: 'pem' })).toBe(pendingKey);

    expect(logs.join('')).toContain('installed the charging station certificate');
    const everything = JSON.stringify([logs, sent]);
    expect(everything).not.toContain('PRIVATE KEY');
    expect(everything).not.toContain(pendingKey.split('\n')[1]);
  });

  test.skipIf(!HAS_OPENSSL)("openssl verifies the CSR's signature and reads its subject", async () => {
    const csr = await requestCertificate(station());
    const out = spawnSync('openssl', ['req', '-verify', '-noout', '-subject'], { input: csr, encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    expect(`${out.stdout}${out.stderr}`).toContain('verify OK');
    expect(out.stdout).toContain(`O = ${ORGANIZATION}, CN = ${IDENTITY}`);
  });

  test('security profile 3: the installed certificate and key make a mutual-TLS connection to a server of the CSMS PKI', async () => {
    now = Date.now(); // the TLS stack checks validity with the real clock
    const root = createRoot({ CN: 'CSMS Root CA' }, now);
    const s = station();
    install(s, root.pem);
    const signed = signCsr(await requestCertificate(s), root, now);
    ask(s, 'CertificateSigned', { certificateChain: signed.pem });
    const server = createIssued(root, { CN: 'localhost' }, now);
    const client = s.tlsClient()!;
    const tlsServer = createServer({
      key: server.key.export({ type: 'pkcs8', format: 'pem' }),
      cert: server.pem,
      ca: [root.pem],
      requestCert: true,
      rejectUnauthorized: true,
    });
    const peer = new Promise<string>((resolve) =>
      tlsServer.on('secureConnection', (socket: TLSSocket) => resolve(String(socket.getPeerCertificate().subject.CN))),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const port = (tlsServer.address() as { port: number }).port;
    const socket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: s.csmsRoots(), key: client.key, cert: client.cert });
    await new Promise<void>((resolve, reject) => socket.on('secureConnect', resolve).on('error', reject));
    expect(socket.authorized).toBe(true);
    expect(await peer).toBe(IDENTITY);
    socket.destroy();
    await new Promise((resolve) => tlsServer.close(resolve));
  });

  test('TC_A_14: an invalid certificate is Rejected, reported as InvalidChargingStationCertificate, and changes nothing', async () => {
    const s = station();
    install(s, csms.pem);
    const csr = await requestCertificate(s);
    const otherCa = createRoot({ CN: 'Not the CSMS' }, NOW);
    const cases: [string, string, string][] = [
      ['another key', signCsr(csr, csms, NOW, { publicKey: ecKeys().publicKey }).pem, 'InvalidCertificate'],
      ['another common name', signCsr(csr, csms, NOW, { subject: { O: ORGANIZATION, CN: 'CC-9999' } }).pem, 'InvalidCertificate'],
      ['another organization', signCsr(csr, csms, NOW, { subject: { O: 'Someone Else', CN: IDENTITY } }).pem, 'InvalidCertificate'],
      ['expired', signCsr(csr, csms, NOW, { notBefore: NOW - 20 * 86_400_000, notAfter: NOW - 86_400_000 }).pem, 'CertificateExpired'],
      ['an unknown CA', signCsr(csr, otherCa, NOW).pem, 'InvalidChain'],
      ['a chain in the wrong order', createIssued(csms, { CN: 'Sub' }, NOW, { ca: true }).pem + signCsr(csr, csms, NOW).pem, 'InvalidCertificate'],
      ['not PEM', 'garbage', 'InvalidFormat'],
    ];
    for (const [what, certificateChain, reasonCode] of cases) {
      events = [];
      expect(ask(s, 'CertificateSigned', { certificateChain, certificateType: 'ChargingStationCertificate' }), what).toMatchObject({
        status: 'Rejected',
        statusInfo: { reasonCode },
      });
      expect(
        events.map((e) => e.type),
        what,
      ).toEqual(['InvalidChargingStationCertificate']);
    }
    expect(s.tlsClient()).toBeUndefined();
    // The request still waits: the right certificate is accepted after all of them.
    expect(ask(s, 'CertificateSigned', { certificateChain: signCsr(csr, csms, NOW).pem }).status).toBe('Accepted');
    // And once used, the key's request is answered: another CertificateSigned has no request to answer.
    expect(ask(s, 'CertificateSigned', { certificateChain: signCsr(csr, csms, NOW).pem })).toMatchObject({
      status: 'Rejected',
      statusInfo: { reasonCode: 'NoSigningRequest' },
    });
  });

  test('a certificate without a CSMS root installed is Rejected; a V2G certificate is NotSupported', async () => {
    const s = station();
    const csr = await requestCertificate(s);
    expect(ask(s, 'CertificateSigned', { certificateChain: signCsr(csr, csms, NOW).pem })).toMatchObject({
      status: 'Rejected',
      statusInfo: { reasonCode: 'InvalidChain' },
    });
    expect(ask(s, 'CertificateSigned', { certificateChain: signCsr(csr, csms, NOW).pem, certificateType: 'V2GCertificate' })).toMatchObject({
      status: 'Rejected',
      statusInfo: { reasonCode: 'NotSupported' },
    });
  });

  test('power loss after SignCertificate: the key is kept, and the CertificateSigned that comes after the restart is accepted', async () => {
    install(station(), csms.pem);
    const csr = await requestCertificate(station());
    const restarted = station();
    expect(ask(restarted, 'CertificateSigned', { certificateChain: signCsr(csr, csms, NOW).pem })).toEqual({ status: 'Accepted' });
    expect(restarted.tlsClient()).toBeDefined();
  });

  test('A03 renewal: a new certificate not valid yet is kept; the current one is used until the new one is valid', async () => {
    const s = station();
    install(s, csms.pem);
    const first = signCsr(await requestCertificate(s), csms, NOW);
    ask(s, 'CertificateSigned', { certificateChain: first.pem });
    const later = NOW + 86_400_000;
    const second = signCsr(await requestCertificate(s), csms, NOW, { notBefore: later });
    expect(ask(s, 'CertificateSigned', { certificateChain: second.pem })).toEqual({ status: 'Accepted' });
    expect(s.tlsClient()?.cert).toBe(first.pem);
    now = later;
    expect(s.tlsClient()?.cert).toBe(second.pem);
    expect(station().tlsClient()?.cert).toBe(second.pem);
  });

  test('CertSigningWaitMinimum/RepeatTimes: an accepted request with no certificate is sent again (same key), the wait doubling, that many times', async () => {
    const clock = new ManualClock(NOW);
    const s = station(dir, { clock, waitMinimumS: () => 60, repeatTimes: () => 2 });
    install(s, csms.pem);
    const csr = await requestCertificate(s);
    const requests = () =>
      sent
        .filter((c) => c.action === 'SignCertificate')
        .map((c) =>
          readCsr(c.payload.csr as string)
            .publicKey.export({ type: 'spki', format: 'der' })
            .toString('hex'),
        );
    await clock.advance(59_000);
    expect(requests()).toHaveLength(1);
    await clock.advance(1_000);
    expect(requests()).toHaveLength(2);
    await clock.advance(119_000);
    expect(requests()).toHaveLength(2);
    await clock.advance(1_000);
    expect(requests()).toHaveLength(3);
    await clock.advance(3_600_000);
    expect(requests()).toHaveLength(3);
    expect(new Set(requests()).size).toBe(1);
    // A certificate for that key is still accepted, and stops the repetitions of a later request.
    expect(ask(s, 'CertificateSigned', { certificateChain: signCsr(csr, csms, NOW).pem }).status).toBe('Accepted');
    await requestCertificate(s);
    expect(ask(s, 'CertificateSigned', { certificateChain: signCsr(sent.at(-1)!.payload.csr as string, csms, NOW).pem }).status).toBe('Accepted');
    expect(clock.pending()).toBe(0);
    await clock.advance(3_600_000);
    expect(requests()).toHaveLength(4);
  });
});
