import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { HARDWARE_BACKENDS } from '../drivers/index.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;

const port = v.pipe(
  v.string(),
  v.regex(/^\d{1,5}$/, 'must be a whole number from 0 to 65535'),
  v.transform(Number),
  v.maxValue(65535, 'must be a whole number from 0 to 65535'),
);
const databaseUrl = v.pipe(
  v.string(),
  v.regex(/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/, 'must start with file:, libsql://, http://, https://, ws:// or wss://'),
);

/** The environment variables the controller reads; empty values count as unset. */
const EnvSchema = v.object({
  PORT: v.optional(port, '8080'),
  HOST: v.optional(v.pipe(v.string(), v.regex(/^[\w.:-]+$/, 'must be a host name or an IP address')), '0.0.0.0'),
  DATA_DIR: v.optional(v.string(), './data'),
  DATABASE_URL: v.optional(databaseUrl),
  HARDWARE: v.optional(v.picklist(HARDWARE_BACKENDS, `must be one of ${HARDWARE_BACKENDS.join(', ')}`), 'sim'),
  LOG_LEVEL: v.optional(v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(', ')}`), 'info'),
  LOG_FORMAT: v.optional(v.picklist(LOG_FORMATS, `must be one of ${LOG_FORMATS.join(', ')}`)),
  OPERATOR_PASSWORD: v.optional(
    v.pipe(v.string(), v.minLength(8, 'must be at least 8 characters'), v.maxLength(255, 'must be at most 255 characters')),
  ),
});

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  /** `file:<DATA_DIR>/controller.db` unless DATABASE_URL names another database. */
  databaseUrl: string;
  /** The database file when it is the default one in DATA_DIR (created owner-only), else null. */
  defaultDatabaseFile: string | null;
  hardware: (typeof HARDWARE_BACKENDS)[number];
  logLevel: (typeof LOG_LEVELS)[number];
  logFormat: (typeof LOG_FORMATS)[number];
  /** Initial password of the built-in `operator` account on a fresh database; random when unset. */
  operatorPassword: string | undefined;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Reads and validates the configuration; throws ConfigError naming every bad variable and its problem. */
export function loadConfig(env: NodeJS.ProcessEnv, opts: { stdoutIsTTY?: boolean } = {}): Config {
  const present = Object.fromEntries(
    Object.keys(EnvSchema.entries)
      .map((name) => [name, env[name]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = v.safeParse(EnvSchema, present);
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => {
        const name = issue.path?.map((p) => String(p.key)).join('.') ?? '?';
        return `${name}: ${issue.message} (got ${JSON.stringify(present[name])})`;
      }),
    );
  }
  const e = result.output;
  const dataDir = resolve(e.DATA_DIR);
  const defaultDatabaseFile = e.DATABASE_URL === undefined ? join(dataDir, 'controller.db') : null;
  const databaseUrl = e.DATABASE_URL ?? `file:${defaultDatabaseFile}`;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl,
    defaultDatabaseFile,
    hardware: e.HARDWARE,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (opts.stdoutIsTTY ? 'pretty' : 'json'),
    operatorPassword: e.OPERATOR_PASSWORD,
  };
}
