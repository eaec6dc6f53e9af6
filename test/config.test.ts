import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../services/config.js';

describe('loadConfig', () => {
  test('defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: resolve('./data'),
      databaseUrl: `file:${resolve('./data/controller.db')}`,
      defaultDatabaseFile: resolve('./data/controller.db'),
      hardware: 'sim',
      logLevel: 'info',
      logFormat: 'json',
      operatorPassword: undefined,
    });
    expect(loadConfig({}, { stdoutIsTTY: true }).logFormat).toBe('pretty');
  });

  test('every variable is read; empty counts as unset', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '::1',
      DATA_DIR: '/var/lib/cc',
      DATABASE_URL: 'libsql://db.example:8080',
      HARDWARE: 'rpi',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'pretty',
      OPERATOR_PASSWORD: 'long enough',
      LOG_UNRELATED: 'x',
    });
    expect(c).toMatchObject({ port: 9000, host: '::1', dataDir: '/var/lib/cc', databaseUrl: 'libsql://db.example:8080', defaultDatabaseFile: null, hardware: 'rpi', logLevel: 'debug', logFormat: 'pretty', operatorPassword: 'long enough' });
    expect(loadConfig({ PORT: '', HARDWARE: '' })).toMatchObject({ port: 8080, hardware: 'sim' });
  });

  test.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['HOST', 'bad host!'],
    ['DATABASE_URL', 'postgres://x'],
    ['HARDWARE', 'arduino'],
    ['LOG_LEVEL', 'verbose'],
    ['LOG_FORMAT', 'xml'],
    ['OPERATOR_PASSWORD', 'short'],
  ])('%s=%s is refused with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([expect.stringMatching(new RegExp(`^${name}: .+ \\(got "${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\)$`))]);
    }
  });

  test('several bad variables are all named', () => {
    expect(() => loadConfig({ PORT: 'x', HARDWARE: 'y' })).toThrow(/PORT: .*\n.*HARDWARE: /s);
  });
});
