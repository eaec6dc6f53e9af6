import { createHash } from 'node:crypto';

/**
 * Compares a secret with a candidate in constant time: every UTF-16 unit of the secret is XORed with the
 * candidate's, with no early exit, so the time depends on the secret's length only (which is not secret), never on
 * where the strings differ. (Node's timingSafeEqual needs both as buffers; encoding them cost more than the
 * comparison on every API call.)
 */
export function secretEquals(secret: string, candidate: string): boolean {
  let diff = secret.length ^ candidate.length;
  // Past the candidate's end charCodeAt gives NaN, which XOR treats as 0; the length difference is already in diff.
  // one step further XORs NaN (past the secret's end) with the candidate's
  // unit there, which is NaN (0) for an equal length and adds to a diff already non-zero otherwise.
  // Stryker disable next-line EqualityOperator: see above
  for (let i = 0; i < secret.length; i++) diff |= secret.charCodeAt(i) ^ candidate.charCodeAt(i);
  return diff === 0;
}

/** The login proof of spec 5 item 3: hex SHA-256 of the plain password immediately followed by the token. */
export function loginProof(password: string, token: string): string {
  return createHash('sha256')
    .update(password + token, 'utf8')
    .digest('hex');
}

/**
 * Whether `proof` is the login proof for `password` and `token`. An unknown account (`password` null) costs the
 * same hash and comparison, so timing does not tell which user names exist.
 */
export function loginProofMatches(password: string | null, token: string, proof: string): boolean {
  // Stryker disable next-line StringLiteral: the stand-in only makes an unknown account cost the same; `password !== null` below refuses it whatever its proof.
  const expected = loginProof(password ?? `\u0000unknown-account\u0000`, token);
  const matches = secretEquals(expected, proof.toLowerCase());
  return password !== null && matches;
}
