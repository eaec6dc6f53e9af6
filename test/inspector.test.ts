import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PAGE_HTML, PAGE_JS } from '../api/inspect/page.js';
import { PAGE_CSS } from '../api/inspect/style.js';
import { IMPORT_MAP_HASH } from '../api/web/vendor.js';
import { chargeCycleMachine } from '../machines/charge-cycle.js';
import { transitionTable } from '../machines/transitions.js';
import { chartedMachines } from '../services/machine-charts.js';
import { EVENTS_KEPT, TICKET_TTL_MS } from '../services/inspector.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from './harness.js';

const ENGINEER_PASSWORD = 'engineer-secret-1';
const TAG = '04A1B2C3';

interface SseMessage {
  event: string;
  data: any;
}

interface Stream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  messages: SseMessage[];
  /** Everything received, as text. */
  raw(): string;
  /** The first message (received or still to come) that matches; fails after `ms` of real time. */
  waitFor(what: string, match: (m: SseMessage) => boolean, ms?: number): Promise<SseMessage>;
  /** Resolves when the server ended the response. */
  ended: Promise<void>;
  close(): void;
}

/** Opens GET `path` and reads it as a server-sent event stream. */
function openStream(port: number, path: string, from?: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    let raw = '';
    let buffer = '';
    const messages: SseMessage[] = [];
    const waiters = new Set<() => void>();
    let endResponse!: () => void;
    const ended = new Promise<void>((r) => (endResponse = r));
    const req = request({ host: '127.0.0.1', port, path, localAddress: from, agent: false, headers: { accept: 'text/event-stream' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = [...block.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
          let parsed: unknown = data;
          try {
            parsed = JSON.parse(data);
          } catch {
            // not JSON: kept as text
          }
          messages.push({ event, data: parsed });
        }
        for (const w of waiters) w();
      });
      res.on('end', () => {
        endResponse();
        for (const w of waiters) w();
      });
      res.on('error', () => endResponse());
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        messages,
        raw: () => raw,
        ended,
        close: () => req.destroy(),
        waitFor(what, match, ms = 10_000) {
          return new Promise((done, fail) => {
            const check = () => {
              const found = messages.find(match);
              if (found) {
                waiters.delete(check);
                clearTimeout(timer);
                done(found);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no stream message: ${what}; received ${JSON.stringify(messages).slice(-2000)}`));
            }, ms);
            waiters.add(check);
            check();
          });
        },
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const actorStates = (systemId: string, state: string) => (m: SseMessage) =>
  (m.event === 'actor' && m.data.systemId === systemId && m.data.states.includes(state)) ||
  (m.event === 'snapshot' && m.data.actors.some((a: any) => a.systemId === systemId && a.states.includes(state)));

let h: Harness;
const engineer = () => h.login('engineer', ENGINEER_PASSWORD);
const ticketFor = async (session: string, from?: string) => {
  const res = await h.http('POST', '/inspect/ticket', { session, from });
  expect(res.status).toBe(200);
  return res.json.ticket as string;
};

beforeAll(async () => {
  h = await startHarness({ env: { LOG_LEVEL: 'debug' } }); // debug: the request log is checked
  await h.controller.accounts.set('engineer', 'installer', ENGINEER_PASSWORD);
});
afterAll(() => h?.stop());

describe('the page', () => {
  test('is served by the controller with its script and style, under a CSP that allows nothing from elsewhere', async () => {
    const page = await h.http('GET', '/inspect');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.text).toBe(PAGE_HTML);
    const js = await h.http('GET', '/inspect/app.js');
    expect([js.status, js.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    const css = await h.http('GET', '/inspect/app.css');
    expect([css.status, css.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
    for (const text of [PAGE_HTML, PAGE_JS, PAGE_CSS]) {
      expect(text).not.toMatch(/https?:|\/\/[a-z0-9]|@import|url\(/i);
    }
    // No inline script but the import map (the CSP allows it by its hash), and data is only ever set as text.
    expect(PAGE_HTML.replace(/<script type="importmap">[^<]*<\/script>/, '')).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect(page.headers['content-security-policy']).toContain(`'sha256-${IMPORT_MAP_HASH}'`);
    expect(PAGE_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  test('other methods on its paths get 400 naming the method to use', async () => {
    expect((await h.http('POST', '/inspect')).status).toBe(400);
    const session = await engineer();
    const res = await h.http('GET', '/inspect/ticket', { session });
    expect(res.status).toBe(400);
    expect(res.json.cause).toMatch(/use POST/);
  });
});

describe('access: a session of role installer or higher', () => {
  const guarded = [
    ['GET', '/inspect/charts'],
    ['POST', '/inspect/ticket'],
  ] as const;

  test('without a session: 401 (not logged in)', async () => {
    for (const [method, path] of guarded) {
      const res = await h.http(method, path);
      expect(res.status, path).toBe(401);
      expect(res.json).toMatchObject({ logged_in: false, code: 1002 });
    }
  });

  test('an operator (below installer): 403', async () => {
    const session = await h.login('operator', OPERATOR_PASSWORD);
    for (const [method, path] of guarded) {
      const res = await h.http(method, path, { session });
      expect(res.status, path).toBe(403);
      expect(res.json).toEqual({ success: false, cause: 'The inspector needs a session of role installer or higher' });
    }
  });

  test("an installer gets every actor's chart (state paths as SVG ids), the simulator controls and a ticket", async () => {
    const session = await engineer();
    const res = await h.http('GET', '/inspect/charts', { session });
    expect(res.status).toBe(200);
    expect(res.json.charts.map((c: any) => c.systemId)).toEqual(chartedMachines().map((c) => c.systemId));
    const charge = res.json.charts.find((c: any) => c.systemId === 'chargeCycle');
    expect(charge.svg).toMatch(/^<svg/);
    expect(charge.svg).toContain('<g id="operative.session.transaction.underLoad.charging" class="node"');
    expect(res.json.simulator.controls.map((c: any) => c.label)).toEqual(
      expect.arrayContaining(['plug', 'present tag', 'charge', 'pause', 'unplug', 'fault', 'clear', 'phone request']),
    );
    expect(res.json.simulator.faults).toContain('cp-short');
    const ticket = await h.http('POST', '/inspect/ticket', { session });
    expect(ticket.json).toEqual({ ticket: expect.stringMatching(/^[0-9a-f]{32}$/), expiresInS: TICKET_TTL_MS / 1000 });
  });
});

describe('the event stream', () => {
  const refused = async (path: string, code: number, from?: string) => {
    const stream = await openStream(h.controller.port, path, from);
    await stream.ended;
    expect(stream.status, path).toBe(401);
    expect(JSON.parse(stream.raw())).toMatchObject({ logged_in: false, code });
  };

  test('refuses a missing, malformed, unknown, reused or expired ticket, and another client address (401)', async () => {
    await refused('/inspect/events', 1002);
    await refused('/inspect/events?ticket=', 1002);
    await refused(`/inspect/events?ticket=${'x'.repeat(5000)}`, 1002);
    await refused(`/inspect/events?ticket=${'0'.repeat(32)}`, 1003);
    const session = await engineer();

    const used = await ticketFor(session);
    const first = await openStream(h.controller.port, `/inspect/events?ticket=${used}`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
    first.close();
    await refused(`/inspect/events?ticket=${used}`, 1003);

    const late = await ticketFor(session);
    await h.step(TICKET_TTL_MS);
    await refused(`/inspect/events?ticket=${late}`, 1003);

    const elsewhere = await ticketFor(await engineer());
    await refused(`/inspect/events?ticket=${elsewhere}`, 1003, '127.0.0.2');
  });

  test("shows the actors' states, context and events live, and nothing secret", async () => {
    const session = await engineer();
    const whitelisted = await h.http('POST', '/v1/whitelist', { session, body: { type: 'local', command: 'add', tags: [{ id: TAG }] } });
    expect(whitelisted.status).toBe(200);
    const ticket = await ticketFor(session);
    const stream = await openStream(h.controller.port, `/inspect/events?ticket=${ticket}`);
    const snapshot = await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
    expect(snapshot.data.actors.map((a: any) => a.systemId)).toEqual(chartedMachines().map((c) => c.systemId));
    const charge = snapshot.data.actors.find((a: any) => a.systemId === 'chargeCycle');
    expect(charge.states).toEqual(['operative', 'operative.available', 'operative.available.idle']);
    expect(charge.context).toMatchObject({ pilot: 'A', allowedCurrentA: 16, faults: [], authorization: null });
    const sessionView = snapshot.data.actors.find((a: any) => a.systemId === 'session');
    expect(sessionView.context).toEqual({ user: 'engineer', role: 'installer', sessionExpiresAt: expect.any(String), failedLogins: 0 });
    expect(Object.keys(sessionView.context)).not.toContain('token');

    await h.sim('plug');
    await h.step(50);
    const waiting = await stream.waitFor('waitForAuth', actorStates('chargeCycle', 'operative.session.waitForAuth'));
    expect(waiting.data.transitions.length).toBeGreaterThan(0);
    await stream.waitFor('PILOT event', (m) => m.event === 'event' && m.data.type === 'PILOT' && m.data.detail.level === 'b');

    await h.sim('tag', { id: TAG });
    await h.step(0);
    const ready = await stream.waitFor('transaction ready', actorStates('chargeCycle', 'operative.session.transaction.ready'));
    expect(ready.data.context.authorization).toEqual({ tagId: TAG, userId: null });
    await stream.waitFor('TAG event', (m) => m.event === 'event' && m.data.type === 'TAG' && m.data.detail.id === TAG);
    await h.sim('charge');
    await h.step(50);
    await stream.waitFor('charging', actorStates('chargeCycle', 'operative.session.transaction.underLoad.charging'));

    // Secrets pass through the session actor meanwhile: a login token, and a failed login's proof.
    const token = (await h.http('GET', '/v1/login', { from: '127.0.0.3' })).json.token as string;
    const proof = createHash('sha256').update(`wrong-password${token}`).digest('hex');
    expect((await h.http('POST', '/v1/login', { body: { username: 'engineer', password: proof }, from: '127.0.0.3' })).status).toBe(401);
    await stream.waitFor('LOGIN event', (m) => m.event === 'event' && m.data.type === 'LOGIN');
    await stream.waitFor('failed login counted', (m) => m.event === 'actor' && m.data.systemId === 'session' && m.data.context.failedLogins === 1);
    for (const secret of [session, ticket, token, proof, ENGINEER_PASSWORD, OPERATOR_PASSWORD]) {
      expect(stream.raw()).not.toContain(secret);
      expect(h.logs.join('')).not.toContain(secret);
    }
    expect(h.logs.join('')).toContain('"path":"/inspect/events"');
    // Calls recording their time would drown the rest: not listed.
    expect(stream.messages.some((m) => m.event === 'event' && m.data.type === 'ACTIVITY')).toBe(false);
    stream.close();
    await h.sim('unplug');
    await h.step(50);
  });

  test("shows the energy actors (solar, site membership) and the core's phase switch, live", async () => {
    const session = await engineer();
    const settings = (params: Record<string, unknown>) =>
      h.http('PATCH', '/v1/settings', { session, body: { params: Object.entries(params).map(([key, value]) => ({ key, value })) } });
    const stream = await openStream(h.controller.port, `/inspect/events?ticket=${await ticketFor(session)}`);
    const snapshot = await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
    const actor = (id: string) => snapshot.data.actors.find((a: any) => a.systemId === id);
    expect(actor('solar')).toMatchObject({ status: 'active', states: ['bypassed'], context: { mode: 'fast', surplusW: null } });
    expect(actor('siteMembership')).toMatchObject({ status: 'active', states: ['off'], context: { connected: false, joinS: 3 } });
    expect(actor('phaseSwitch')).toMatchObject({ status: 'active', states: ['ready', 'ready.steady'] });

    // Solar mode without a grid input: the solar actor waits for a surplus (paused), the stream shows it at once.
    expect((await settings({ ChargingMode: 1 })).status).toBe(200);
    await h.step(1_000);
    const solar = await stream.waitFor('solar paused', actorStates('solar', 'paused.surplus.low'));
    expect(solar.data.context.mode).toBe('solar');
    await stream.waitFor('MODE event', (m) => m.event === 'event' && m.data.actor === 'solar' && m.data.type === 'MODE' && m.data.detail.mode === 'solar');
    // Site sharing with no broker set: the membership holds the safe share.
    expect((await settings({ SiteSharing: 1 })).status).toBe(200);
    await h.step(1_000);
    await stream.waitFor('site: broker lost', actorStates('siteMembership', 'on.brokerLost.safe'));
    // One a second each: not listed as events.
    expect(stream.messages.some((m) => m.event === 'event' && ['SURPLUS', 'PEERS'].includes(m.data.type))).toBe(false);

    expect((await settings({ ChargingMode: 0, SiteSharing: 0 })).status).toBe(200);
    await h.step(1_000);
    await stream.waitFor('solar bypassed', actorStates('solar', 'bypassed'));
    await stream.waitFor('site off', actorStates('siteMembership', 'off'));
    stream.close();
  });

  test("the summary follows the charge point; a step's edges stay lit until a later step takes one", async () => {
    const stream = await openStream(h.controller.port, `/inspect/events?ticket=${await ticketFor(await engineer())}`);
    const snapshot = await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
    expect(snapshot.data.summary).toEqual({
      state: 'Available',
      systemState: 'idle',
      ocppState: 'available',
      pilot: 'A',
      announcedA: null,
      contactorClosed: false,
      powerKW: null,
      energyKWh: null,
      tagId: null,
      userId: null,
      messages: [],
    });
    const summary = (what: string, match: (s: any) => boolean) => stream.waitFor(what, (m) => m.event === 'summary' && match(m.data));
    await h.sim('plug');
    await h.step(50);
    await summary('waiting', (s) => s.state === 'Waiting for authorization' && s.pilot === 'B');
    await h.sim('tag', { id: TAG });
    await h.step(0);
    await summary('connected', (s) => s.state === 'Connected' && s.announcedA === 16 && s.tagId === TAG && s.energyKWh === 0);
    await h.sim('charge');
    await h.step(2_000);
    await summary('charging', (s) => s.state === 'Charging' && s.contactorClosed && s.powerKW > 10 && s.energyKWh > 0);

    // Overheating suspends the transaction: its one edge is the step's.
    const edge = (key: string) => `transition-${transitionTable(chargeCycleMachine).findIndex((r) => r.key === key) + 1}`;
    const suspend = edge('operative.session.transaction | always | suspends | operative.session.transaction.suspended');
    await h.sim('temperature', { celsius: 85 });
    await h.step(1_000);
    await summary(
      'suspended',
      (s) =>
        s.state === 'Error' && s.ocppState === 'suspendedevse' && s.announcedA === null && s.messages.map((m: any) => m.errorCode).join() === 'OVERTEMPERATURE',
    );
    await stream.waitFor('suspend edge', (m) => m.event === 'actor' && m.data.systemId === 'chargeCycle' && m.data.transitions.join() === suspend);
    // The EV pauses meanwhile: that step takes no edge (suspended holds), so the suspension stays the latest.
    const before = stream.messages.length;
    await h.sim('pause');
    await h.step(50);
    const paused = await stream.waitFor(
      'pilot B',
      (m) => stream.messages.indexOf(m) >= before && m.event === 'actor' && m.data.systemId === 'chargeCycle' && m.data.context.pilot === 'B',
    );
    expect(paused.data.transitions).toEqual([suspend]);
    stream.close();
    await h.sim('temperature', { celsius: 25 });
    await h.step(1_000);
    await h.sim('unplug');
    await h.step(50);
  });

  test('a page that opens later gets the last events seen while pages watched', async () => {
    const stream = await openStream(h.controller.port, `/inspect/events?ticket=${await ticketFor(await engineer())}`);
    const snapshot = await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
    expect(snapshot.data.events.length).toBeLessThanOrEqual(EVENTS_KEPT);
    expect(snapshot.data.events.map((e: any) => e.type)).toEqual(expect.arrayContaining(['PILOT', 'TAG']));
    stream.close();
  });

  test.each([
    ['another login replaces the session', async () => void (await h.login('operator', OPERATOR_PASSWORD)), 1003],
    ['a logout', async (session: string) => void (await h.http('POST', '/v1/logout', { session })), 1003],
    ['60 s without a call', async () => h.step(60_000), 1004],
  ] as const)('ends when the session ends: %s', async (_name, endSession, code) => {
    const session = await engineer();
    const stream = await openStream(h.controller.port, `/inspect/events?ticket=${await ticketFor(session)}`);
    await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
    await endSession(session);
    const end = await stream.waitFor('end', (m) => m.event === 'end');
    expect(end.data).toEqual({ code, message: 'The session ended; log in again' });
    await stream.ended;
    expect(h.controller.inspector.watching()).toBe(0);
    expect(h.controller.inspector.listening()).toBe(false);
  });

  test('a client closing the stream stops watching', async () => {
    const stream = await openStream(h.controller.port, `/inspect/events?ticket=${await ticketFor(await engineer())}`);
    await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
    expect(h.controller.inspector.watching()).toBe(1);
    expect(h.controller.inspector.listening()).toBe(true);
    stream.close();
    // The server learns of the closed socket asynchronously; the next change it sends finds no reader.
    for (let i = 0; i < 50 && h.controller.inspector.watching() > 0; i++) await h.step(100);
    expect(h.controller.inspector.watching()).toBe(0);
    // Nobody watches: the hub is off the actor system, which then pays nothing for inspection.
    expect(h.controller.inspector.listening()).toBe(false);
  });

  test('stopping the controller ends open streams at once', async () => {
    const other = await startHarness();
    try {
      await other.controller.accounts.set('engineer', 'installer', ENGINEER_PASSWORD);
      const session = await other.login('engineer', ENGINEER_PASSWORD);
      const ticket = (await other.http('POST', '/inspect/ticket', { session })).json.ticket;
      const stream = await openStream(other.controller.port, `/inspect/events?ticket=${ticket}`);
      await stream.waitFor('snapshot', (m) => m.event === 'snapshot');
      const started = performance.now();
      await other.stop();
      expect(performance.now() - started).toBeLessThan(5_000);
      const end = await stream.waitFor('end', (m) => m.event === 'end');
      expect(end.data).toEqual({ message: 'The controller is shutting down' });
    } finally {
      await other.stop();
    }
  });
});
