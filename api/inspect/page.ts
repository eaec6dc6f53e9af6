/**
 * The live inspector page (`/inspect`): plain HTML, CSS and JavaScript served by the controller itself (no external
 * assets, no CDN, no web fonts), under a Content-Security-Policy that allows scripts and styles from the controller
 * only. Everything it renders from data is set as text (`textContent`), never parsed as HTML; the charts are SVGs
 * generated from the machines (services/machine-charts.ts), parsed as SVG documents.
 *
 * For commissioning: a summary strip (the charge point's state in words, the current the PWM announces, power,
 * energy, tag, messages), the charge cycle's chart first, each chart with zoom and pan (buttons, wheel, drag, pinch)
 * and "go to the active state", the transitions of each actor's latest step highlighted, events filterable by actor,
 * one column on a phone.
 *
 * Login goes through the API's own protocol (GET/POST /v1/login; the proof is computed by the web interface's
 * module /web/login-proof.js with @noble/hashes, because `crypto.subtle` is missing on plain-HTTP addresses other
 * than localhost). The session id stays in a variable of the page (not in storage, not in a URL); the event stream
 * is opened with a single-use ticket.
 */

import { pageHead } from '../web/page.js';

const PAGE_HEAD = pageHead({ title: 'Charge controller inspector', icon: '/inspect/icon.svg', styles: ['/inspect/app.css'], module: '/inspect/app.js' });

export const PAGE_HTML = `${PAGE_HEAD}<body>
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
  <section id="summary" aria-label="The charge point now">
    <div class="cell" id="sum-state-cell"><span class="label">State</span><strong id="sum-state">–</strong><span class="sub" id="sum-state-detail"></span></div>
    <div class="cell"><span class="label">Announced</span><strong id="sum-amps">–</strong><span class="sub" id="sum-cp"></span></div>
    <div class="cell"><span class="label">Power</span><strong id="sum-power">–</strong></div>
    <div class="cell"><span class="label">Energy</span><strong id="sum-energy">–</strong></div>
    <div class="cell"><span class="label">Tag</span><strong id="sum-tag">–</strong><span class="sub" id="sum-user"></span></div>
    <div class="cell wide"><span class="label">Messages</span><ul id="sum-messages"><li>none</li></ul></div>
  </section>
  <details id="sim" hidden open>
    <summary>Simulator</summary>
    <div id="sim-controls"></div>
    <div id="sim-result" role="status"></div>
  </details>
  <div id="first"></div>
  <div id="layout">
    <div id="actors"></div>
    <aside aria-labelledby="events-heading">
      <div class="events-head">
        <h2 id="events-heading">Last events</h2>
        <label>Actor <select id="event-filter"><option value="">all</option></select></label>
      </div>
      <ol id="events" reversed></ol>
    </aside>
  </div>
</main>
</body>
</html>
`;

/** The page's icon (the browser asks for one; served here, it needs no request to /favicon.ico). */
export const PAGE_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#263238"/>' +
  '<path d="M9 1 3 9h4l-1 6 6-8H8z" fill="#ffca28"/></svg>\n';

export const PAGE_JS = `import { loginProof } from '/web/login-proof.js';

(function () {
  var KEEPALIVE_MS = 20000, RECONNECT_MS = 2000, EVENTS_SHOWN = 50, FIRST = 'chargeCycle';
  var sessionId = null, source = null, keepalive = null, reconnect = null;
  var charts = {}, order = [], filter = '', narrow = function () { return window.innerWidth < 700; };
  var $ = function (id) { return document.getElementById(id); };
  var el = function (tag, text, cls) {
    var e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e;
  };

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
      $('login').hidden = true; $('app').hidden = false; $('logout').hidden = false;
      build(r.json);
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

  /* The charge cycle first, then the actors with states, then the roots that only invoke others. */
  function rank(chart) { return chart.systemId === FIRST ? 0 : chart.svg.split('class="node"').length > 2 ? 1 : 2; }

  function build(data) {
    var actors = $('actors');
    actors.textContent = ''; $('first').textContent = '';
    charts = {};
    order = data.charts.map(function (c, i) { return { chart: c, i: i }; })
      .sort(function (a, b) { return rank(a.chart) - rank(b.chart) || a.i - b.i; }).map(function (x) { return x.chart; });
    order.forEach(function (chart) { (chart.systemId === FIRST ? $('first') : actors).appendChild(buildChart(chart)); });
    var select = $('event-filter');
    while (select.options.length > 1) select.remove(1);
    order.forEach(function (chart) { var o = el('option', chart.systemId); o.value = chart.systemId; select.appendChild(o); });
    select.value = filter;
    buildSimulator(data.simulator);
    Object.keys(charts).forEach(function (id) { fit(charts[id]); });
    if (charts[FIRST]) charts[FIRST].box.classList.add('first');
  }

  function buildChart(chart) {
    var section = el('section', undefined, 'actor');
    section.dataset.actor = chart.systemId;
    var h = el('h2', chart.id + ' ');
    h.appendChild(el('small', 'actor ' + chart.systemId));
    section.appendChild(h);
    var states = el('p', '', 'states');
    var latest = el('p', '', 'latest');
    section.appendChild(states); section.appendChild(latest);
    var zoomable = rank(chart) < 2;
    var box = el('div', undefined, 'chart' + (zoomable ? ' zoomable' : ''));
    var svg = document.importNode(new DOMParser().parseFromString(chart.svg, 'image/svg+xml').documentElement, true);
    box.appendChild(svg);
    var c = { section: section, states: states, latest: latest, box: box, svg: svg, ids: new Map(), lit: [], leaves: [], view: null, home: null, shown: false };
    box.querySelectorAll('g[id]').forEach(function (g) { c.ids.set(g.id, g); });
    if (zoomable) {
      var vb = svg.getAttribute('viewBox').split(/[ ,]+/).map(Number);
      c.home = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
      svg.setAttribute('width', '100%'); svg.setAttribute('height', '100%');
      box.tabIndex = 0;
      box.setAttribute('aria-label', 'State chart of ' + chart.id + ': drag to pan, wheel or pinch to zoom; keys + and - zoom, arrows pan, 0 fits');
      section.appendChild(toolbar(c, chart.id));
      interact(c);
    }
    section.appendChild(box);
    var details = el('details', undefined, 'context');
    details.appendChild(el('summary', 'Context'));
    c.table = el('table');
    details.appendChild(c.table);
    section.appendChild(details);
    charts[chart.systemId] = c;
    return section;
  }

  function toolbar(c, name) {
    var bar = el('div', undefined, 'toolbar');
    [['out', '−', 'Zoom out', function () { zoom(c, 1 / 1.4); }], ['in', '+', 'Zoom in', function () { zoom(c, 1.4); }],
      ['fit', 'Fit', 'Show the whole chart', function () { fit(c); }],
      ['active', 'Go to the active state', 'Go to the active state of ' + name, function () { goToActive(c); }]]
      .forEach(function (b) {
        var button = el('button', b[1]); button.type = 'button'; button.title = b[2]; button.dataset.zoom = b[0];
        if (b[1].length === 1) button.setAttribute('aria-label', b[2]);
        button.addEventListener('click', b[3]);
        bar.appendChild(button);
      });
    return bar;
  }

  /* The view is the SVG's viewBox, kept at the box's aspect ratio, so one pixel is view.w / width units. */
  function size(c) { return { w: c.box.clientWidth || 1, h: c.box.clientHeight || 1 }; }
  function show(c, v) { c.view = v; c.svg.setAttribute('viewBox', [v.x, v.y, v.w, v.h].join(' ')); c.box.dataset.scale = (size(c).w / v.w).toFixed(3); }
  function fit(c) {
    if (!c.home) return;
    var s = size(c), a = s.w / s.h, v = c.home;
    if (v.w / v.h > a) show(c, { x: v.x, y: v.y - (v.w / a - v.h) / 2, w: v.w, h: v.w / a });
    else show(c, { x: v.x - (v.h * a - v.w) / 2, y: v.y, w: v.h * a, h: v.h });
  }
  function zoom(c, factor, px, py) {
    if (!c.view) return;
    var s = size(c), v = c.view;
    if (px === undefined) { px = s.w / 2; py = s.h / 2; }
    var w = Math.min(Math.max(v.w / factor, s.w / 4), Math.max(c.home.w, c.home.h * s.w / s.h) * 1.5), h = w * s.h / s.w;
    var ux = v.x + px * v.w / s.w, uy = v.y + py * v.h / s.h;
    show(c, { x: ux - px * w / s.w, y: uy - py * h / s.h, w: w, h: h });
  }
  function pan(c, dx, dy) {
    if (!c.view) return;
    var s = size(c), v = c.view;
    show(c, { x: v.x - dx * v.w / s.w, y: v.y - dy * v.h / s.h, w: v.w, h: v.h });
  }
  /* Centres the active (innermost) state, at up to 1.25 screen pixels a unit, with room around it. */
  function goToActive(c) {
    var g = c.leaves.length ? c.ids.get(c.leaves[c.leaves.length - 1]) : undefined;
    if (!g || !c.view) return;
    var s = size(c), v = c.view, r = g.getBoundingClientRect(), b = c.svg.getBoundingClientRect();
    var k = v.w / s.w, x = v.x + (r.left - b.left) * k, y = v.y + (r.top - b.top) * k, w = r.width * k, h = r.height * k;
    var scale = Math.min(1.25, s.w / (w * 1.3), s.h / (h * 1.6)), vw = s.w / scale, vh = s.h / scale;
    show(c, { x: x + w / 2 - vw / 2, y: y + h / 2 - vh / 2, w: vw, h: vh });
  }

  function interact(c) {
    var box = c.box, pointers = new Map();
    var at = function (e) { var r = box.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; };
    box.addEventListener('pointerdown', function (e) { box.setPointerCapture(e.pointerId); pointers.set(e.pointerId, at(e)); });
    box.addEventListener('pointermove', function (e) {
      var before = pointers.get(e.pointerId);
      if (!before) return;
      var now = at(e);
      if (pointers.size === 1) pan(c, now.x - before.x, now.y - before.y);
      else if (pointers.size === 2) {
        var other; pointers.forEach(function (p, id) { if (id !== e.pointerId) other = p; });
        var d0 = Math.hypot(before.x - other.x, before.y - other.y), d1 = Math.hypot(now.x - other.x, now.y - other.y);
        if (d0 > 0) zoom(c, d1 / d0, (now.x + other.x) / 2, (now.y + other.y) / 2);
      }
      pointers.set(e.pointerId, now);
    });
    var up = function (e) { pointers.delete(e.pointerId); };
    box.addEventListener('pointerup', up); box.addEventListener('pointercancel', up);
    box.addEventListener('wheel', function (e) { e.preventDefault(); var p = at(e); zoom(c, Math.exp(-e.deltaY * 0.002), p.x, p.y); }, { passive: false });
    box.addEventListener('keydown', function (e) {
      var step = 60, keys = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (keys[e.key]) pan(c, keys[e.key][0], keys[e.key][1]);
      else if (e.key === '+' || e.key === '=') zoom(c, 1.4);
      else if (e.key === '-') zoom(c, 1 / 1.4);
      else if (e.key === '0') fit(c);
      else return;
      e.preventDefault();
    });
  }

  /* A resized box keeps the view's centre and scale. */
  window.addEventListener('resize', function () {
    Object.keys(charts).forEach(function (id) {
      var c = charts[id];
      if (!c.view) return;
      var s = size(c), v = c.view, k = 1 / Number(c.box.dataset.scale);
      show(c, { x: v.x + v.w / 2 - s.w * k / 2, y: v.y + v.h / 2 - s.h * k / 2, w: s.w * k, h: s.h * k });
    });
  });

  function buildSimulator(sim) {
    $('sim').hidden = !sim;
    var box = $('sim-controls');
    box.textContent = '';
    if (!sim) return;
    if (narrow()) $('sim').open = false;
    var tag = el('input'); tag.id = 'sim-tag'; tag.placeholder = 'tag id'; tag.value = '04A1B2C3'; tag.maxLength = 255; tag.size = 12;
    tag.setAttribute('aria-label', 'Tag id');
    var fault = el('select'); fault.id = 'sim-fault'; fault.setAttribute('aria-label', 'Fault');
    sim.faults.forEach(function (f) { var o = el('option', f); o.value = f; fault.appendChild(o); });
    var request = el('input'); request.id = 'sim-request'; request.maxLength = 4000; request.setAttribute('aria-label', 'NFC request');
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
        if (view.summary) showSummary(view.summary);
        $('events').textContent = '';
        view.events.forEach(showEvent);
      });
      source.addEventListener('actor', function (m) { showActor(JSON.parse(m.data)); });
      source.addEventListener('summary', function (m) { showSummary(JSON.parse(m.data)); });
      source.addEventListener('event', function (m) { showEvent(JSON.parse(m.data)); });
      source.addEventListener('end', function (m) {
        source.close(); source = null;
        var why = JSON.parse(m.data);
        if (why.code) loggedOut('Session ended: ' + why.message); else { say(why.message, true); reconnect = setTimeout(connect, RECONNECT_MS); }
      });
      source.addEventListener('error', function () {
        if (source && source.readyState === EventSource.CLOSED) {
          source = null; say('Event stream lost; reconnecting…', true); reconnect = setTimeout(connect, RECONNECT_MS);
        }
      });
    }, function () { say('Controller not reachable; retrying…', true); reconnect = setTimeout(connect, RECONNECT_MS); });
  }

  function format(value) {
    if (value === null || value === undefined) return '–';
    if (typeof value === 'object') return JSON.stringify(value);
    return String(value);
  }
  function number(value, digits, unit) { return value === null || value === undefined ? '–' : value.toFixed(digits) + ' ' + unit; }

  var TONES = { Error: 'error', Charging: 'active', Connected: 'active', 'Paused by vehicle': 'paused', 'Paused by charger': 'paused' };
  function showSummary(s) {
    $('sum-state').textContent = s.state;
    $('sum-state-detail').textContent = s.systemState + ' · ' + s.ocppState;
    $('sum-state-cell').dataset.tone = TONES[s.state] || '';
    $('sum-amps').textContent = s.announcedA === null ? 'PWM off' : number(s.announcedA, 0, 'A');
    $('sum-cp').textContent = 'CP ' + s.pilot + ' · contactor ' + (s.contactorClosed ? 'closed' : 'open');
    $('sum-power').textContent = number(s.powerKW, 2, 'kW');
    $('sum-energy').textContent = number(s.energyKWh, 2, 'kWh');
    $('sum-tag').textContent = s.tagId || '–';
    $('sum-user').textContent = s.userId ? 'user ' + s.userId : '';
    var list = $('sum-messages');
    list.textContent = '';
    if (!s.messages.length) list.appendChild(el('li', 'none'));
    s.messages.forEach(function (m) { var li = el('li', m.errorCode + ': ' + m.message, m.severity); li.title = m.severity; list.appendChild(li); });
  }

  /* The label of a transition edge and the states it joins, as the chart writes them. */
  function edgeText(g) {
    var label = g.querySelector('text'), title = g.querySelector('title');
    var ends = title ? title.textContent.replace(/anchor:/g, '').split('->') : [];
    var name = function (p) { var parts = p.split('.'); return parts[parts.length - 1]; };
    return (label ? label.textContent : '') + (ends.length === 2 ? ' (' + name(ends[0]) + ' → ' + name(ends[1]) + ')' : '');
  }

  function showActor(actor) {
    var chart = charts[actor.systemId];
    if (!chart) return;
    chart.lit.forEach(function (g) { g.classList.remove('active'); g.classList.remove('taken'); });
    chart.lit = [];
    actor.states.forEach(function (path) { var g = chart.ids.get(path); if (g) { g.classList.add('active'); chart.lit.push(g); } });
    var taken = [];
    actor.transitions.forEach(function (id) {
      chart.ids.forEach(function (g, key) { if (key === id || key.indexOf(id + '-') === 0) { g.classList.add('taken'); chart.lit.push(g); taken.push(g); } });
    });
    chart.latest.textContent = taken.length ? 'Latest step: ' + taken.map(edgeText).join(', then ') : '';
    var leaves = actor.states.filter(function (p) { return !actor.states.some(function (q) { return q.indexOf(p + '.') === 0; }); });
    chart.leaves = leaves;
    chart.section.dataset.states = leaves.join(' ');
    chart.states.textContent = (actor.status === 'active' ? '' : actor.status + ': ') + (leaves.join(', ') || '(no states)');
    chart.table.textContent = '';
    Object.keys(actor.context).forEach(function (key) {
      var row = el('tr'); row.appendChild(el('td', key)); row.appendChild(el('td', format(actor.context[key]))); chart.table.appendChild(row);
    });
    /* First shown whole, unless that is too small to read (a phone): then around the active state. */
    if (!chart.shown && leaves.length && chart.home) { chart.shown = true; if (Number(chart.box.dataset.scale) < 0.55) goToActive(chart); }
  }

  function shown(item) { item.hidden = filter !== '' && item.dataset.actor !== filter; }
  $('event-filter').addEventListener('change', function (e) {
    filter = e.target.value;
    Array.prototype.forEach.call($('events').children, shown);
  });

  function showEvent(event) {
    var list = $('events');
    var item = el('li');
    item.value = event.seq;
    item.dataset.actor = event.actor;
    item.appendChild(el('span', new Date(event.at).toISOString().slice(11, 23) + ' '));
    item.appendChild(el('span', event.actor + ' ', 'actor'));
    item.appendChild(el('span', event.type, 'type'));
    if (event.detail) item.appendChild(el('span', ' ' + JSON.stringify(event.detail), 'detail'));
    shown(item);
    list.insertBefore(item, list.firstChild);
    while (list.children.length > EVENTS_SHOWN) list.removeChild(list.lastChild);
  }
})();
`;
