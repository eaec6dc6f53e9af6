import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loginProof, loginProofMatches, secretEquals } from '../../machines/secrets.js';

describe('secretEquals', () => {
  it('is string equality', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => secretEquals(a, b) === (a === b)));
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (a) => secretEquals(a, a)));
  });

  it('tells apart a difference at any position, a prefix, an extension and the empty string', () => {
    const secret = '6f1c2a4e-93b7-4d8e-a1f0-5c2d7e9b3a10';
    for (let i = 0; i < secret.length; i++) {
      const changed = secret.slice(0, i) + (secret[i] === '0' ? '1' : '0') + secret.slice(i + 1);
      expect(secretEquals(secret, changed)).toBe(false);
    }
    expect(secretEquals(secret, secret.slice(0, -1))).toBe(false);
    expect(secretEquals(secret, `${secret}0`)).toBe(false);
    expect(secretEquals(secret, '')).toBe(false);
    expect(secretEquals('', secret)).toBe(false);
    expect(secretEquals('', '')).toBe(true);
    expect(secretEquals('pässwort\u{1F600}', 'pässwort\u{1F600}')).toBe(true);
    expect(secretEquals('pässwort\u{1F600}', 'passwort\u{1F600}')).toBe(false);
  });

  it('checks login proofs, in either hex case, and refuses unknown accounts', () => {
    const proof = loginProof('secret', 'a'.repeat(32));
    expect(loginProofMatches('secret', 'a'.repeat(32), proof)).toBe(true);
    expect(loginProofMatches('secret', 'a'.repeat(32), proof.toUpperCase())).toBe(true);
    expect(loginProofMatches('secret', 'b'.repeat(32), proof)).toBe(false);
    expect(loginProofMatches(null, 'a'.repeat(32), proof)).toBe(false);
  });
});
