import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, logRequest, LogBuffer, MAX_PENDING_CHARS, WRITE_AT_CHARS } from '../services/logger.js';
import { startHarness } from './harness.js';

/** A stdout stand-in: records each write; while `full`, write() answers false until the test emits 'drain'. */
class FakeStdout extends EventEmitter {
  writes: string[] = [];
  full = false;
  write(text: string): boolean {
    this.writes.push(text);
    return !this.full;
  }
}

const line = (n: number, pad = 0) => `{"n":${n}${' '.repeat(pad)}}\n`;

/** A buffer whose stream took line(0) and then reported itself full: it is draining. */
function draining(): { out: FakeStdout; buffer: LogBuffer } {
  const out = new FakeStdout();
  const buffer = new LogBuffer(out);
  out.full = true;
  buffer.write(line(0));
  buffer.writePending();
  return { out, buffer };
}

describe('LogBuffer', () => {
  it('keeps short lines until written, then writes them in order in one write', () => {
    const out = new FakeStdout();
    const buffer = new LogBuffer(out);
    for (let n = 0; n < 5; n++) buffer.write(line(n));
    expect(out.writes).toEqual([]);
    buffer.writePending();
    expect(out.writes).toEqual([[0, 1, 2, 3, 4].map((n) => line(n)).join('')]);
    buffer.writePending();
    expect(out.writes).toHaveLength(1);
  });

  it(`writes at once when ${WRITE_AT_CHARS} characters are pending`, () => {
    const out = new FakeStdout();
    const buffer = new LogBuffer(out);
    const long = line(0, 1000);
    const count = Math.ceil(WRITE_AT_CHARS / long.length);
    for (let n = 0; n < count - 1; n++) buffer.write(long);
    expect(out.writes).toEqual([]);
    buffer.write(long);
    expect(out.writes).toEqual([long.repeat(count)]);
  });

  it('holds lines while the stream drains and writes them, in order, on drain', () => {
    const { out, buffer } = draining();
    buffer.write(line(2));
    buffer.write(line(3));
    buffer.writePending();
    expect(out.writes).toEqual([line(0)]);
    out.full = false;
    out.emit('drain');
    expect(out.writes).toEqual([line(0), line(2) + line(3)]);
  });

  it('drops lines beyond the limit while the stream is stuck, and then reports how many', () => {
    const { out, buffer } = draining();
    const long = line(1, 4000);
    let accepted = 0;
    while (buffer.write(long)) accepted++;
    expect(accepted).toBe(Math.floor(MAX_PENDING_CHARS / long.length));
    expect(buffer.write(long)).toBe(false);
    out.full = false;
    out.emit('drain');
    const written = out.writes.slice(1).join('').trimEnd().split('\n');
    expect(written).toHaveLength(accepted + 1);
    expect(JSON.parse(written.at(-1)!)).toMatchObject({ level: 40, dropped: 2, msg: expect.stringContaining('dropped') });
  });

  it('stops writing, without throwing, once the stream fails (its reader has gone)', () => {
    const out = new FakeStdout();
    const buffer = new LogBuffer(out);
    buffer.write(line(1));
    out.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(buffer.write(line(2))).toBe(false);
    buffer.writePending();
    buffer.writePending(true);
    expect(out.writes).toEqual([]);
  });

  it('at exit writes what is pending even while the stream drains', () => {
    const { out, buffer } = draining();
    buffer.write(line(2));
    buffer.writePending(true);
    expect(out.writes).toEqual([line(0), line(2)]);
  });
});

describe('request log line', () => {
  const capture = async (level: 'debug' | 'info') => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).trimEnd().split('\n'));
        done();
      },
    });
    return { lines, logger: await createLogger({ logLevel: level, logFormat: 'json' }, sink) };
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("is the line pino writes for logger.debug({ method, path, status, ms }, 'request'), in order with other lines", async () => {
    const { lines, logger } = await capture('debug');
    const paths = ['/v1/system_state', '/v1/users/"quoted"\\back', '/v1/caf%C3%A9/é\u2028\u0001', `/v1/${'x'.repeat(300)}`];
    for (const path of paths) {
      logger.debug({ method: 'DELETE', path, status: 404, ms: 12.5 }, 'request');
      logRequest(logger, 'DELETE', path, 404, 12.5);
    }
    logger.warn('after');
    await settle();
    expect(lines).toHaveLength(2 * paths.length + 1);
    for (let i = 0; i < paths.length; i++) {
      const [fromPino, fromLogRequest] = [lines[2 * i]!, lines[2 * i + 1]!].map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(Object.keys(fromLogRequest!)).toEqual(Object.keys(fromPino!));
      expect({ ...fromLogRequest, time: 0 }).toEqual({ ...fromPino, time: 0 });
      expect(fromLogRequest!.path).toBe(paths[i]);
    }
    expect(JSON.parse(lines.at(-1)!).msg).toBe('after');
  });

  it('is debug: not written at the default level info; follows the level when it changes at run time', async () => {
    const { lines, logger } = await capture('info');
    logRequest(logger, 'GET', '/v1/messages', 200, 0.1);
    logger.level = 'debug';
    logRequest(logger, 'GET', '/v1/messages', 200, 0.1);
    logger.level = 'silent';
    logRequest(logger, 'GET', '/v1/messages', 200, 0.1);
    await settle();
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: pino.levels.values.debug, path: '/v1/messages' });
  });
});

describe('log level: LOG_LEVEL wins over the LogLevel setting while it is set, and the log says which applies', () => {
  /** Sets LogLevel as an installer (the role that may change it); answers the log lines written from then on. */
  async function setLogLevel(h: Awaited<ReturnType<typeof startHarness>>, value: number): Promise<unknown[]> {
    await h.controller.accounts.set('installer-1', 'installer', 'installer-secret-1');
    const session = await h.login('installer-1', 'installer-secret-1');
    const from = h.logs.length;
    const res = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'LogLevel', value }] } });
    expect(res.json.params).toEqual([{ key: 'LogLevel', success: true }]);
    await h.http('GET', '/v1/system_state', { session }); // a debug line (the request log), if the level lets it through
    return h.logs
      .slice(from)
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.level >= 30 || l.msg === 'request'); // other debug lines (energy steps) come and go
  }

  it('with LOG_LEVEL set, a change of the setting leaves the level and says so', async () => {
    const h = await startHarness({ env: { LOG_LEVEL: 'debug' } });
    try {
      const start = h.logs.map((l) => JSON.parse(l)).find((l) => /^log level/.test(l.msg));
      expect(start).toMatchObject({
        level: 30,
        logLevel: 'debug',
        msg: expect.stringContaining('from LOG_LEVEL, which wins over the LogLevel setting (info)'),
      });
      const lines = await setLogLevel(h, 1); // warn
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, event: 'settings_changed', keys: ['LogLevel'], msg: 'Settings changed by installer-1: LogLevel' }),
        expect.objectContaining({
          level: 40,
          logLevel: 'debug',
          setting: 'warn',
          msg: expect.stringContaining('the log level stays debug because LOG_LEVEL is set'),
        }),
        expect.objectContaining({ level: 20, path: '/v1/settings', msg: 'request' }),
        expect.objectContaining({ level: 20, path: '/v1/system_state', msg: 'request' }),
      ]);
    } finally {
      await h.stop();
    }
  });

  it('without LOG_LEVEL, the setting decides, at start and when it changes', async () => {
    const h = await startHarness();
    try {
      expect(h.logs.join('')).toContain('"msg":"log level info from the LogLevel setting"');
      const lines = await setLogLevel(h, 1); // warn: the request line after it is not written
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, event: 'settings_changed', keys: ['LogLevel'] }),
        expect.objectContaining({ level: 30, logLevel: 'warn', msg: 'log level warn from the LogLevel setting (changed)' }),
      ]);
    } finally {
      await h.stop();
    }
  });
});
