import { expect, it } from 'vitest';
import { loginProof, loginProofMatches } from '../../machines/secrets.js';

// Found by mutation testing (docs/mutation-testing.md): the stand-in password an unknown account is hashed with
// (so timing does not tell which user names exist) must never let anyone in.
it('an unknown account is refused even with the proof of the unknown-account stand-in password', () => {
  const token = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  expect(loginProofMatches(null, token, loginProof('\u0000unknown-account\u0000', token))).toBe(false);
  expect(loginProofMatches(null, token, loginProof('', token))).toBe(false);
  expect(loginProofMatches('pw', token, loginProof('pw', token))).toBe(true);
});
