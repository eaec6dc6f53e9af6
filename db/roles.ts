/**
 * Login roles, lowest to highest (spec 5 item 9). A leaf: the accounts table stores them (db/schema.ts) and the
 * session machine carries them (machines/session.ts), which imports nothing else outside machines/.
 */
export const ROLES = ['user', 'operator', 'installer', 'manufacturer'] as const;
export type Role = (typeof ROLES)[number];
