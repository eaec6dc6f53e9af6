import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import * as v from 'valibot';

/**
 * The signed update file (docs/field-service.md#update-files): a header line, the manifest as one JSON line, its
 * Ed25519 signature (base64) on the next, then the payload (a tar.gz of what `npm start` runs). The signature covers
 * the manifest's bytes, and the manifest the payload's SHA-256 and length, so one check covers the whole file.
 * Verification only reads; nothing is installed here.
 */

export const UPDATE_MAGIC = 'CCUPDATE1';
export const UPDATE_FORMAT = 'charge-controller-update';
/**
 * Largest update file taken in, by any way (the web upload, OCPP's download). An update file with its production
 * dependencies is tens of MB; the installer holds the file in memory once (it verifies and unpacks it from there),
 * so this also bounds what an install takes of a Raspberry Pi's memory.
 */
export const MAX_UPDATE_FILE_BYTES = 256 * 1024 * 1024;

const Version = v.pipe(v.string(), v.regex(/^\d+\.\d+\.\d+$/, 'a version is MAJOR.MINOR.PATCH'));
const ManifestSchema = v.object({
  format: v.literal(UPDATE_FORMAT),
  version: Version,
  minimumVersion: Version,
  /** Every database migration the new version brings, in order (the running database's must be its first ones). */
  migrations: v.array(v.string()),
  /** `linux-arm64`, `linux-x64`, … (the production dependencies hold native code), or `any`. */
  architecture: v.string(),
  createdAt: v.pipe(v.string(), v.isoTimestamp()),
  payloadBytes: v.pipe(v.number(), v.integer(), v.minValue(0)),
  payloadSha256: v.pipe(v.string(), v.hexadecimal(), v.length(64)),
  /** The first 16 hex digits of the signing public key's SHA-256 (which key to try; the signature decides). */
  keyId: v.string(),
});
export type UpdateManifest = v.InferOutput<typeof ManifestSchema>;

/** Why an update file is refused. */
export class UpdateRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpdateRefused';
  }
}

export const keyIdOf = (publicKey: Uint8Array) => createHash('sha256').update(publicKey).digest('hex').slice(0, 16);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/*
 * Ed25519 through Node's own crypto (OpenSSL): a JavaScript implementation loaded at start held 1.5 MB of the
 * controller's heap for a check made once per update (docs/performance.md). Keys travel raw (RFC 8032's 32 bytes);
 * OpenSSL takes them wrapped in the fixed DER prefixes of PKCS #8 and SubjectPublicKeyInfo (RFC 8410).
 */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const privateKeyOf = (secretKey: Uint8Array): KeyObject => createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, secretKey]), format: 'der', type: 'pkcs8' });
const rawPublicKey = (key: KeyObject): Uint8Array =>
  Uint8Array.from(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length));

/** A new signing key pair (32-byte secret seed, 32-byte public key). */
export function newSigningKey(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const secretKey = Uint8Array.from(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519.length));
  return { secretKey, publicKey: rawPublicKey(privateKey) };
}

/** The update file of `payload`, signed with `secretKey`. */
export function writeUpdateFile(
  manifest: Omit<UpdateManifest, 'format' | 'payloadBytes' | 'payloadSha256' | 'keyId'>,
  payload: Uint8Array,
  secretKey: Uint8Array,
): Buffer {
  const full: UpdateManifest = {
    format: UPDATE_FORMAT,
    ...manifest,
    payloadBytes: payload.length,
    payloadSha256: sha256(payload),
    keyId: keyIdOf(rawPublicKey(privateKeyOf(secretKey))),
  };
  const line = Buffer.from(JSON.stringify(full));
  const signature = sign(null, line, privateKeyOf(secretKey)).toString('base64');
  return Buffer.concat([Buffer.from(`${UPDATE_MAGIC}\n`), line, Buffer.from(`\n${signature}\n`), payload]);
}

/** Numeric comparison of MAJOR.MINOR.PATCH. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}

export interface RunningController {
  /** The running firmware's version. */
  version: string;
  /** The migrations the running database has, in order. */
  migrations: readonly string[];
  /** `${process.platform}-${process.arch}`. */
  architecture: string;
}

/**
 * Checks an update file against the trusted public keys and the running controller; answers its manifest and
 * payload, or throws UpdateRefused with the reason: unsigned or signed by no trusted key, tampered (the payload
 * does not match the signed manifest), older or the same version, too old a running version, another database
 * lineage, another architecture.
 */
export function verifyUpdateFile(
  file: Uint8Array,
  trustedKeys: readonly Uint8Array[],
  running: RunningController,
): { manifest: UpdateManifest; payload: Buffer } {
  const bytes = Buffer.from(file);
  const header = Buffer.from(`${UPDATE_MAGIC}\n`);
  if (!bytes.subarray(0, header.length).equals(header)) throw new UpdateRefused(`Not an update file (it does not start with ${UPDATE_MAGIC})`);
  const manifestEnd = bytes.indexOf(0x0a, header.length);
  const signatureEnd = manifestEnd < 0 ? -1 : bytes.indexOf(0x0a, manifestEnd + 1);
  if (signatureEnd < 0) throw new UpdateRefused('The update file is unsigned or cut short (no manifest and signature lines)');
  const line = bytes.subarray(header.length, manifestEnd);
  const signature = Buffer.from(bytes.subarray(manifestEnd + 1, signatureEnd).toString('latin1'), 'base64');
  if (trustedKeys.length === 0) throw new UpdateRefused('No public key is trusted: configure the trusted update keys first (docs/field-service.md)');
  if (signature.length !== 64) throw new UpdateRefused('The update file is unsigned (no Ed25519 signature)');
  if (!trustedKeys.some((key) => safeVerify(signature, line, key))) {
    throw new UpdateRefused('The signature does not verify with any trusted key: the file is tampered with or signed by an untrusted key');
  }
  let manifest: UpdateManifest;
  try {
    manifest = v.parse(ManifestSchema, JSON.parse(line.toString('utf8')));
  } catch {
    throw new UpdateRefused('The signed manifest is not one this controller reads (a newer update format?)');
  }
  const payload = bytes.subarray(signatureEnd + 1);
  if (payload.length !== manifest.payloadBytes || sha256(payload) !== manifest.payloadSha256) {
    throw new UpdateRefused('The payload does not match its signed checksum: the file is damaged or tampered with');
  }
  if (compareVersions(manifest.version, running.version) <= 0) {
    throw new UpdateRefused(`The update is version ${manifest.version}, not newer than the running ${running.version}: older versions are refused`);
  }
  if (compareVersions(running.version, manifest.minimumVersion) < 0) {
    throw new UpdateRefused(`Version ${manifest.version} updates from ${manifest.minimumVersion} or later; this controller runs ${running.version}`);
  }
  if (running.migrations.some((m, i) => manifest.migrations[i] !== m)) {
    throw new UpdateRefused("The update's database migrations do not continue this controller's: it is built from another line of the firmware");
  }
  if (manifest.architecture !== 'any' && manifest.architecture !== running.architecture) {
    throw new UpdateRefused(`The update is built for ${manifest.architecture}; this controller is ${running.architecture}`);
  }
  return { manifest, payload };
}

function safeVerify(signature: Uint8Array, message: Uint8Array, key: Uint8Array): boolean {
  try {
    if (key.length !== 32 || signature.length !== 64) return false;
    return verify(null, message, createPublicKey({ key: Buffer.concat([SPKI_ED25519, key]), format: 'der', type: 'spki' }), signature);
  } catch {
    return false;
  }
}

/** Public keys from a trusted-keys file: one hex key (64 digits) a line; `#` starts a comment. */
export function parseTrustedKeys(text: string): Uint8Array[] {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((hex, i) => {
      if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new UpdateRefused(`Trusted key ${i + 1} is not 64 hex digits (an Ed25519 public key)`);
      return Uint8Array.from(Buffer.from(hex, 'hex'));
    });
}
