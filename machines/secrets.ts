import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares two secrets in time independent of where they differ (lengths are not secret). */
export function secretEquals(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** The login proof of spec 5 item 3: hex SHA-256 of the plain password immediately followed by the token. */
export function loginProof(password: string, token: string): string {
  return createHash('sha256').update(password + token, 'utf8').digest('hex');
}

/**
 * Whether `proof` is the login proof for `password` and `token`. An unknown account (`password` null) costs the
 * same hash and comparison, so timing does not tell which user names exist.
 */
export function loginProofMatches(password: string | null, token: string, proof: string): boolean {
  const expected = loginProof(password ?? `\u0000unknown-account\u0000`, token);
  const matches = secretEquals(expected, proof.toLowerCase());
  return password !== null && matches;
}
