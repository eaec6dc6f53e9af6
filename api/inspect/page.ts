/**
 * The live inspector page (`/inspect`): plain HTML, CSS and JavaScript served by the controller itself (no external
 * assets, no CDN, no web fonts), under a Content-Security-Policy that allows scripts and styles from the controller
 * only. Everything it renders from data is set as text (`textContent`), never parsed as HTML; the charts are SVGs
 * generated from the machines (services/machine-charts.ts), parsed as SVG documents.
 *
 * Login goes through the API's own protocol (GET/POST /v1/login; the proof is computed by the web interface's
 * module /web/login-proof.js with @noble/hashes, because `crypto.subtle` is missing on plain-HTTP addresses other
 * than localhost). The session id stays in a variable of the page (not in storage, not in a URL); the event stream
 * is opened with a single-use ticket.
 */

import { pageHead } from '../web/page.js';

export const PAGE_HTML = `${pageHead({ title: 'Charge controller inspector', icon: '/inspect/icon.svg', styles: ['/inspect/app.css'], module: '/inspect/app.js' })}<body>
<header>
  <h1>Charge controller inspector</h1>
  <span id="status" role="status">Log in with an account of role installer or higher.</span>
  <span id="who"></span>
  <button id="logout" type="button" hidden>Log out</button>
</header>
<form id="login" autocomplete="on">
  <label>User <input id="username" name="username" autocomplete="username" required maxlength="255"></label>
  <label>Password <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="255"></label>
  <button id="login-button" type="submit">Log in</button>
</form>
<main id="app" hidden>
  <section id="sim" hidden>
    <h2>Simulator</h2>
    <div id="sim-controls"></div>
    <div id="sim-result" role="status"></div>
  </section>
  <div id="layout">
    <div id="actors"></div>
    <aside>
      <h2>Last events</h2>
      <ol id="events" reversed></ol>
    </aside>
  </div>
</main>
</body>
</html>
`;

/** The page's icon (the browser asks for one; served here, it needs no request to /favicon.ico). */
export const PAGE_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#263238"/><path d="M9 1 3 9h4l-1 6 6-8H8z" fill="#ffca28"/></svg>
`;

export const PAGE_CSS = `
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color: #1c2529; background: #f4f6f7; }
body { margin: 0; }
[hidden] { display: none !important; }
header { display: flex; gap: 1em; align-items: center; flex-wrap: wrap; padding: 0.6em 1em; background: #263238; color: #fff; }
header h1 { font-size: 1.1em; margin: 0; }
#status.bad { color: #ffab91; font-weight: bold; }
#who { margin-left: auto; opacity: 0.85; }
form#login { display: flex; gap: 1em; align-items: end; padding: 1em; flex-wrap: wrap; }
form#login label { display: flex; flex-direction: column; font-size: 0.9em; }
input, select, button { font: inherit; padding: 0.25em 0.5em; }
button { cursor: pointer; }
main { padding: 0.5em 1em 2em; }
#sim { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.5em 1em; margin-bottom: 1em; }
#sim h2, aside h2 { font-size: 1em; margin: 0.3em 0; }
#sim-controls { display: flex; gap: 0.5em; flex-wrap: wrap; align-items: center; }
#sim-controls .group { display: inline-flex; gap: 0.25em; align-items: center; }
#sim-result { font-size: 0.85em; min-height: 1.3em; color: #455a64; }
#sim-result.bad { color: #c62828; }
#layout { display: grid; grid-template-columns: minmax(0, 1fr) 22em; gap: 1em; }
@media (max-width: 1000px) { #layout { grid-template-columns: minmax(0, 1fr); } }
aside { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.5em; align-self: start; max-height: 90vh; overflow: auto; }
#events { font-size: 0.8em; padding-left: 2.5em; margin: 0; }
#events li { padding: 0.15em 0; border-bottom: 1px solid #eceff1; overflow-wrap: anywhere; }
#events .actor { color: #00695c; }
#events .type { font-weight: bold; }
#events .detail { color: #546e7a; }
section.actor { background: #fff; border: 1px solid #cfd8dc; border-radius: 6px; padding: 0.5em 1em; margin-bottom: 1em; }
section.actor h2 { font-size: 1.05em; margin: 0.2em 0; }
section.actor h2 small { font-weight: normal; color: #607d8b; }
.summary { display: flex; gap: 2em; flex-wrap: wrap; font-size: 0.85em; }
.summary table { border-collapse: collapse; }
.summary td { padding: 0.1em 0.6em 0.1em 0; vertical-align: top; }
.summary td:first-child { color: #607d8b; }
.states { font-family: ui-monospace, Menlo, Consolas, monospace; }
.chart { overflow: auto; margin-top: 0.5em; border-top: 1px solid #eceff1; cursor: zoom-in; }
.chart svg { max-width: 100%; height: auto; }
.chart.zoomed { cursor: zoom-out; max-height: 80vh; }
.chart.zoomed svg { max-width: none; }
.chart g.node.active > path, .chart g.node.active > polygon, .chart g.node.active > ellipse { fill: #ffe082; stroke: #e65100; stroke-width: 3px; }
.chart g.cluster.active > path, .chart g.cluster.active > polygon { fill: #fff8e1; stroke: #e65100; stroke-width: 2.5px; }
.chart g.edge.taken > path { stroke: #e65100; stroke-width: 2.5px; }
.chart g.edge.taken > polygon { fill: #e65100; stroke: #e65100; }
.chart g.edge.taken > text { fill: #bf360c; font-weight: bold; }
`;

export const PAGE_JS = `import { loginProof } from '/web/login-proof.js';

(function () {
  var KEEPALIVE_MS = 20000, RECONNECT_MS = 2000, EVENTS_SHOWN = 50;
  var sessionId = null, source = null, keepalive = null, reconnect = null;
  var charts = {};
  var $ = function (id) { return document.getElementById(id); };
  var el = function (tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };

  function say(text, bad) { var s = $('status'); s.textContent = text; s.className = bad ? 'bad' : ''; }

  function api(method, path, body) {
    var headers = {};
    if (sessionId) headers.Authorization = sessionId;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' })
      .then(function (res) {
        return res.text().then(function (text) {
          var json; try { json = text ? JSON.parse(text) : undefined; } catch (e) { json = undefined; }
          return { status: res.status, json: json };
        });
      });
  }
  function reason(r) { return (r.json && (r.json.cause || r.json.message)) || ('HTTP ' + r.status); }

  function loggedOut(message) {
    sessionId = null;
    if (source) { source.close(); source = null; }
    clearInterval(keepalive); clearTimeout(reconnect);
    $('app').hidden = true; $('logout').hidden = true; $('login').hidden = false; $('who').textContent = '';
    say(message, true);
  }

  $('login').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var username = $('username').value, password = $('password').value;
    say('Logging in…');
    api('GET', '/v1/login').then(function (r) {
      if (r.status !== 200) throw new Error(reason(r));
      return api('POST', '/v1/login', { username: username, password: loginProof(password, r.json.token) });
    }).then(function (r) {
      $('password').value = '';
      if (r.status !== 200) { say('Login refused: ' + reason(r), true); return; }
      sessionId = r.json.session.id;
      return start();
    }).catch(function (e) { say('Login failed: ' + e.message, true); });
  });

  $('logout').addEventListener('click', function () {
    var done = function () { loggedOut('Logged out.'); };
    api('POST', '/v1/logout').then(done, done);
  });

  function start() {
    return api('GET', '/inspect/charts').then(function (r) {
      if (r.status === 401) { loggedOut('Session ended: ' + reason(r)); return; }
      if (r.status !== 200) { var why = reason(r); api('POST', '/v1/logout').then(function () { loggedOut(why); }, function () { loggedOut(why); }); return; }
      build(r.json);
      $('login').hidden = true; $('app').hidden = false; $('logout').hidden = false;
      clearInterval(keepalive);
      keepalive = setInterval(refreshSession, KEEPALIVE_MS);
      refreshSession();
      connect();
    });
  }

  function refreshSession() {
    api('GET', '/v1/session').then(function (r) {
      if (r.status === 401) { loggedOut('Session ended: ' + reason(r)); return; }
      if (r.status === 200) $('who').textContent = r.json.username + ' (' + r.json.role + ')';
    });
  }

  function build(data) {
    var actors = $('actors');
    actors.textContent = '';
    charts = {};
    data.charts.forEach(function (chart) {
      var section = el('section', undefined, 'actor');
      section.dataset.actor = chart.systemId;
      var h = el('h2', chart.id + ' ');
      h.appendChild(el('small', 'actor ' + chart.systemId));
      section.appendChild(h);
      var summary = el('div', undefined, 'summary');
      var states = el('div', '', 'states');
      var table = el('table');
      summary.appendChild(states); summary.appendChild(table);
      section.appendChild(summary);
      var box = el('div', undefined, 'chart');
      var svg = new DOMParser().parseFromString(chart.svg, 'image/svg+xml').documentElement;
      box.appendChild(document.importNode(svg, true));
      box.addEventListener('click', function () { box.classList.toggle('zoomed'); });
      section.appendChild(box);
      actors.appendChild(section);
      var ids = new Map();
      box.querySelectorAll('g[id]').forEach(function (g) { ids.set(g.id, g); });
      charts[chart.systemId] = { section: section, states: states, table: table, ids: ids, lit: [] };
    });
    buildSimulator(data.simulator);
  }

  function buildSimulator(sim) {
    $('sim').hidden = !sim;
    var box = $('sim-controls');
    box.textContent = '';
    if (!sim) return;
    var tag = el('input'); tag.id = 'sim-tag'; tag.placeholder = 'tag id'; tag.value = '04A1B2C3'; tag.maxLength = 255; tag.size = 12;
    var fault = el('select'); fault.id = 'sim-fault';
    sim.faults.forEach(function (f) { var o = el('option', f); o.value = f; fault.appendChild(o); });
    var request = el('input'); request.id = 'sim-request'; request.maxLength = 4000; request.size = 40;
    request.value = '{"path":"/login","method":"GET","authorization":"","messageID":"1"}';
    var inputs = { tag: tag, fault: fault, request: request };
    var placed = {};
    sim.controls.forEach(function (control) {
      var button = el('button', control.label); button.type = 'button';
      button.dataset.sim = control.label;
      button.addEventListener('click', function () { simulate(control, inputs); });
      if (control.input && !placed[control.input]) {
        var group = el('span', undefined, 'group'); group.appendChild(inputs[control.input]); group.appendChild(button);
        placed[control.input] = group; box.appendChild(group);
      } else if (control.input) placed[control.input].appendChild(button);
      else box.appendChild(button);
    });
  }

  function simulate(control, inputs) {
    var path = control.path, body;
    if (control.input === 'fault') path = path.replace('{fault}', encodeURIComponent(inputs.fault.value));
    if (control.method === 'POST') {
      body = control.input === 'tag' ? { id: inputs.tag.value } : control.input === 'fault' ? { fault: inputs.fault.value }
        : control.input === 'request' ? { request: inputs.request.value } : {};
    }
    var result = $('sim-result');
    api(control.method, path, body).then(function (r) {
      result.textContent = control.label + ': ' + (r.status === 200 ? 'done' : reason(r));
      result.className = r.status === 200 ? '' : 'bad';
    }, function (e) { result.textContent = control.label + ': ' + e.message; result.className = 'bad'; });
  }

  function connect() {
    clearTimeout(reconnect);
    if (!sessionId) return;
    api('POST', '/inspect/ticket').then(function (r) {
      if (r.status === 401) { loggedOut('Session ended: ' + reason(r)); return; }
      if (r.status !== 200) { say('No event stream: ' + reason(r), true); return; }
      if (source) source.close();
      source = new EventSource('/inspect/events?ticket=' + encodeURIComponent(r.json.ticket));
      source.addEventListener('open', function () { say('Live: the highlighted states are the actors\\' current states.'); });
      source.addEventListener('snapshot', function (m) {
        var view = JSON.parse(m.data);
        view.actors.forEach(showActor);
        $('events').textContent = '';
        view.events.forEach(showEvent);
      });
      source.addEventListener('actor', function (m) { showActor(JSON.parse(m.data)); });
      source.addEventListener('event', function (m) { showEvent(JSON.parse(m.data)); });
      source.addEventListener('end', function (m) {
        source.close(); source = null;
        var why = JSON.parse(m.data);
        if (why.code) loggedOut('Session ended: ' + why.message); else { say(why.message, true); reconnect = setTimeout(connect, RECONNECT_MS); }
      });
      source.addEventListener('error', function () {
        if (source && source.readyState === EventSource.CLOSED) { source = null; say('Event stream lost; reconnecting…', true); reconnect = setTimeout(connect, RECONNECT_MS); }
      });
    }, function () { say('Controller not reachable; retrying…', true); reconnect = setTimeout(connect, RECONNECT_MS); });
  }

  function format(value) {
    if (value === null || value === undefined) return '–';
    if (typeof value === 'object') return JSON.stringify(value);
    return String(value);
  }

  function showActor(actor) {
    var chart = charts[actor.systemId];
    if (!chart) return;
    chart.lit.forEach(function (g) { g.classList.remove('active'); g.classList.remove('taken'); });
    chart.lit = [];
    actor.states.forEach(function (path) { var g = chart.ids.get(path); if (g) { g.classList.add('active'); chart.lit.push(g); } });
    actor.transitions.forEach(function (id) {
      chart.ids.forEach(function (g, key) { if (key === id || key.indexOf(id + '-') === 0) { g.classList.add('taken'); chart.lit.push(g); } });
    });
    var leaves = actor.states.filter(function (p) { return !actor.states.some(function (q) { return q.indexOf(p + '.') === 0; }); });
    chart.section.dataset.states = leaves.join(' ');
    chart.states.textContent = (actor.status === 'active' ? '' : actor.status + ': ') + (leaves.join(', ') || '(no states)');
    chart.table.textContent = '';
    Object.keys(actor.context).forEach(function (key) {
      var row = el('tr'); row.appendChild(el('td', key)); row.appendChild(el('td', format(actor.context[key]))); chart.table.appendChild(row);
    });
  }

  function showEvent(event) {
    var list = $('events');
    var item = el('li');
    item.value = event.seq;
    item.appendChild(el('span', new Date(event.at).toISOString().slice(11, 23) + ' '));
    item.appendChild(el('span', event.actor + ' ', 'actor'));
    item.appendChild(el('span', event.type, 'type'));
    if (event.detail) item.appendChild(el('span', ' ' + JSON.stringify(event.detail), 'detail'));
    list.insertBefore(item, list.firstChild);
    while (list.children.length > EVENTS_SHOWN) list.removeChild(list.lastChild);
  }
})();
`;
