import { streamSSE } from 'hono/streaming';
import { SIM_FAULTS } from '../../services/simulator.js';
import { INSPECTOR_ROLE, mayInspect, TICKET_TTL_MS, type Inspector, type InspectorMessage } from '../../services/inspector.js';
import { renderSvg, toDot } from '../../services/machine-charts.js';
import { clientAddress, type AppDeps, type AppHandler, type Router } from '../types.js';
import { SessionError } from '../errors.js';
import { forbidden } from '../../services/errors.js';
import { PAGE_HTML, PAGE_ICON, PAGE_JS } from '../inspect/page.js';
import { PAGE_CSS } from '../inspect/style.js';
import * as v from 'valibot';
import { contentType } from '../web/assets.js';
import { fileOperation } from '../web/routes.js';
import { NotLoggedIn, OperationFailed } from '../responses.js';

/**
 * The simulator's controls the page offers with HARDWARE=sim (they call the /sim routes, as `npm run sim` does).
 * `input` names the field the page sends with it (`tag` → `{id}`, `fault` → `{fault}` or the path, `request` →
 * `{request}`: an NFC request text the simulated phone sends). A new simulator route becomes a button by adding it
 * here. The page shows whether a control worked, never its answer (a phone's answer can hold a token).
 */
export const SIM_CONTROLS = [
  { label: 'plug', method: 'POST', path: '/sim/plug' },
  { label: 'charge', method: 'POST', path: '/sim/charge' },
  { label: 'pause', method: 'POST', path: '/sim/pause' },
  { label: 'unplug', method: 'POST', path: '/sim/unplug' },
  { label: 'present tag', method: 'POST', path: '/sim/tag', input: 'tag' },
  { label: 'fault', method: 'POST', path: '/sim/fault', input: 'fault' },
  { label: 'clear', method: 'DELETE', path: '/sim/fault/{fault}', input: 'fault' },
  { label: 'phone request', method: 'POST', path: '/sim/phone', input: 'request' },
] as const;

const InspectorCharts = v.object({
  charts: v.array(v.object({ systemId: v.string(), id: v.string(), svg: v.string() })),
  simulator: v.nullable(
    v.object({
      controls: v.array(
        v.object({ label: v.string(), method: v.picklist(['POST', 'DELETE']), path: v.string(), input: v.optional(v.picklist(['tag', 'fault', 'request'])) }),
      ),
      faults: v.array(v.picklist(SIM_FAULTS)),
    }),
  ),
});
const InspectorTicket = v.object({ ticket: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)), expiresInS: v.number() });

/** Queued stream writes after which a watcher that does not read is dropped. */
const MAX_QUEUED_WRITES = 1000;

/**
 * The live inspector (`/inspect`, outside the spec's /v1 API). The page, its script and style are public (they hold
 * no data); charts, tickets and the event stream need a session of role installer or higher, as the stream shows tag
 * ids, users and the state of the installation. A role below that gets 403.
 */
export function inspectRoutes(router: Router, deps: AppDeps, inspector: Inspector): void {
  // The page loads nothing from elsewhere; its one inline script is the import map (the web interface's, whose
  // login-proof module it uses).
  const files = { public: true, tag: 'Inspector' };
  const file = (summary: string, name: string, body: string) => fileOperation(summary, contentType(name)!, () => body);
  router.resource('/inspect', { GET: file('The inspector page', 'page.html', PAGE_HTML) }, files);
  router.resource('/inspect/app.js', { GET: file("The inspector's script", 'app.js', PAGE_JS) }, files);
  router.resource('/inspect/app.css', { GET: file("The inspector's style sheet", 'app.css', PAGE_CSS) }, files);
  router.resource('/inspect/icon.svg', { GET: file("The inspector's icon", 'icon.svg', PAGE_ICON) }, files);
  const tag = { tag: 'Inspector' };
  const role = INSPECTOR_ROLE;
  const forbiddenDoc = { description: `A role below ${INSPECTOR_ROLE}`, body: OperationFailed };

  /** Runs the handler for an engineer's session (installer or higher), 403 for a lower role. */
  const engineer =
    (handler: AppHandler): AppHandler =>
    (c, next) => {
      if (!mayInspect(c.var.session.role)) throw forbidden(`The inspector needs a session of role ${INSPECTOR_ROLE} or higher`);
      // eslint-disable-next-line @typescript-eslint/no-unsafe-return -- Hono's Handler answers HandlerResponse<any>
      return handler(c, next);
    };

  // Rendered once, on first use (Graphviz in WASM, about 0.1 s a chart); the same charts as docs/charts/.
  let charts: Promise<Array<{ systemId: string; id: string; svg: string }>> | undefined;
  const renderCharts = () =>
    (charts ??= Promise.all(inspector.charts.map(async (c) => ({ systemId: c.systemId, id: c.id, svg: await renderSvg(toDot(c.machine)) }))).catch(
      (err: unknown) => {
        charts = undefined;
        throw err;
      },
    ));

  router.resource(
    '/inspect/charts',
    {
      GET: {
        summary: "The state charts (SVG) and, with HARDWARE=sim, the simulator's controls",
        role,
        responses: { 200: { description: 'The charts', body: InspectorCharts }, 403: forbiddenDoc },
        handle: engineer(async (c) =>
          c.json({
            charts: await renderCharts(),
            simulator: deps.simulator ? { controls: SIM_CONTROLS, faults: SIM_FAULTS } : null,
          }),
        ),
      },
    },
    tag,
  );

  router.resource(
    '/inspect/ticket',
    {
      POST: {
        summary: 'A ticket for the event stream: valid once, for 30 s, from this client address',
        role,
        responses: { 200: { description: 'The ticket', body: InspectorTicket }, 403: forbiddenDoc },
        handle: engineer((c) => c.json({ ticket: inspector.issueTicket(c.var.session.id, clientAddress(c)), expiresInS: TICKET_TTL_MS / 1000 })),
      },
    },
    tag,
  );

  router.resource(
    '/inspect/events',
    {
      GET: {
        summary: "The actors' live events (server-sent events), with a ticket instead of the session",
        query: v.object({ ticket: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/), v.description('From POST /inspect/ticket')) }),
        responses: {
          200: { description: 'Events snapshot, actor, event and end', type: 'text/event-stream' },
          401: { description: "No valid ticket (1002, or the ticket's session ended)", body: NotLoggedIn },
        },
        handle: (c) => {
          const ticket = c.req.query('ticket');
          if (!ticket || !/^[0-9a-f]{32}$/.test(ticket)) {
            throw new SessionError(1002, 401, 'The event stream needs ?ticket= with a ticket from POST /inspect/ticket');
          }
          const grant = inspector.redeemTicket(ticket, clientAddress(c));
          if (!grant.ok) throw new SessionError(grant.code, 401, grant.message);
          c.header('X-Accel-Buffering', 'no');
          return streamSSE(c, async (stream) => {
            let queued = 0;
            let chain = Promise.resolve();
            let finish!: () => void;
            const finished = new Promise<void>((resolve) => (finish = resolve));
            const write = (event: string, data: unknown) => {
              queued++;
              chain = chain
                .then(() => stream.writeSSE({ event, data: JSON.stringify(data) }))
                .catch(() => undefined)
                .finally(() => queued--);
            };
            const stop = inspector.watch(
              {
                send: (m: InspectorMessage) => {
                  if (queued > MAX_QUEUED_WRITES) {
                    stop();
                    finish();
                    return;
                  }
                  write(m.kind, m.kind === 'actor' ? m.actor : m.kind === 'event' ? m.event : m.summary);
                },
                end: (reason) => {
                  write('end', reason);
                  void chain.then(finish);
                },
              },
              grant,
            );
            stream.onAbort(() => {
              stop();
              finish();
            });
            write('snapshot', inspector.view());
            await finished;
          });
        },
      },
    },
    { public: true, tag: 'Inspector' },
  );
}
