// The login proof of spec 5 item 3, computed in the browser: hex SHA-256 of the plain password immediately followed
// by the one-time token. Browsers offer crypto.subtle only on HTTPS and localhost, and a charger is reached over
// plain HTTP on its LAN address, so the hash comes from @noble/hashes (audited, maintained, no dependencies).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Hex SHA-256 of `password` + `token` (UTF-8). */
export function loginProof(password, token) {
  return bytesToHex(sha256(utf8ToBytes(password + token)));
}
