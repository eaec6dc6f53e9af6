/**
 * `npm run sim -- <command>`: drives the simulated hardware of a running controller (HARDWARE=sim) through its /sim
 * routes, so a person can play a whole charge and watch it through the API. The controller is found at SIM_URL,
 * or http://127.0.0.1:$PORT (8080).
 */
import { SIM_FAULTS } from '../../drivers/index.js';

const USAGE = `usage: npm run sim -- <command>
  status                 show the simulator and the charge point
  plug | unplug          connect / disconnect the vehicle (CP B / A)
  charge | pause         the EV requests charge (C) / stops requesting (B)
  tag <uid> [nfc]        present a tag (8, 14 or 20 hex digits)
  tap card <uid> [nfc]   the same: a card is tapped on the reader
  phone request <text>   a phone sends an API request over NFC (RFID Mode RFID/NFC hybrid), e.g.
                         '{"path":"/login","method":"GET","authorization":"","messageID":"1"}'
                         (a body follows the header after a comma); prints the answer record
  fault <kind>           inject a fault: ${SIM_FAULTS.join(', ')}
  clear <kind>           clear a fault
  temp <celsius>         set the temperature the sensor reads
  ev-max <amps>          the EV's own current limit
  ev-alternate <ms>|0    the EV switches between C and B every <ms> on its own (0: off)
  ventilation on|off     the EV asks for ventilation (CP D instead of C)
  limit <amps>|none      load-management current limit
  day off|sunny|cloudy [--speed <s per s>] [--start <hour>] [--peak <W>] [--seed <n>]
                         the simulated day of the house and PV system (docs/energy.md, Simulation),
                         e.g. day cloudy --speed 60: a cloudy day, a simulated minute per second
  house <W> | house <L1> <L2> <L3>
                         a step of the house load (extra W; 0 ends it)
  ripple closed|open     the ripple-control receiver's contact (closed: the grid operator dims)

Each command prints the state once the charge point has taken it in (a CP change after its debounce, a tag after
its read: accepted, refused or paired, as the buzzer said).`;

type Call = { method: 'GET' | 'POST' | 'DELETE'; path: string; body?: unknown };

function number(text: string | undefined, what: string): number {
  const n = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(n)) throw new Error(`${what} must be a number`);
  return n;
}

/** `day <profile> [--speed n] [--start h] [--peak W] [--seed n]` as the body of POST /sim/day. */
export function dayBody(args: string[]): Record<string, unknown> {
  const [profile, ...options] = args;
  if (!profile) throw new Error('day needs a profile: off, sunny or cloudy');
  const body: Record<string, unknown> = { profile };
  const names: Record<string, string> = { '--speed': 'speed', '--start': 'startHour', '--peak': 'peakW', '--seed': 'seed' };
  for (let i = 0; i < options.length; i += 2) {
    const name = names[options[i]!];
    if (!name) throw new Error(`day: unknown option ${JSON.stringify(options[i])} (--speed, --start, --peak, --seed)`);
    body[name] = number(options[i + 1], options[i]!);
  }
  return body;
}

function callFor(args: string[]): Call {
  const [command, arg, extra] = args;
  switch (command) {
    case undefined:
    case 'status':
      return { method: 'GET', path: '/sim' };
    case 'plug':
    case 'unplug':
    case 'charge':
    case 'pause':
      return { method: 'POST', path: `/sim/${command}` };
    case 'tag':
      if (!arg) throw new Error('tag needs the tag uid');
      return { method: 'POST', path: '/sim/tag', body: { id: arg, technology: extra?.toLowerCase() === 'nfc' ? 'NFC' : 'RFID' } };
    case 'tap':
      if (arg !== 'card' || !extra) throw new Error('tap needs: tap card <uid>');
      return { method: 'POST', path: '/sim/tap', body: { id: extra, technology: args[3]?.toLowerCase() === 'nfc' ? 'NFC' : 'RFID' } };
    case 'phone':
      if (arg !== 'request' || !extra) throw new Error('phone needs: phone request <request text>');
      return { method: 'POST', path: '/sim/phone', body: { request: args.slice(2).join(' ') } };
    case 'fault':
      if (!arg) throw new Error(`fault needs a kind: ${SIM_FAULTS.join(', ')}`);
      return { method: 'POST', path: '/sim/fault', body: { fault: arg } };
    case 'clear':
      if (!arg) throw new Error(`clear needs a kind: ${SIM_FAULTS.join(', ')}`);
      return { method: 'DELETE', path: `/sim/fault/${encodeURIComponent(arg)}` };
    case 'temp':
      return { method: 'POST', path: '/sim/temperature', body: { celsius: number(arg, 'the temperature') } };
    case 'ev-max':
      return { method: 'POST', path: '/sim/ev', body: { maxCurrentA: number(arg, 'the current') } };
    case 'ev-alternate':
      return { method: 'POST', path: '/sim/ev', body: { alternateMs: number(arg, 'the switching period') } };
    case 'ventilation':
      if (arg !== 'on' && arg !== 'off') throw new Error('ventilation needs on or off');
      return { method: 'POST', path: '/sim/ev', body: { ventilation: arg === 'on' } };
    case 'limit':
      return { method: 'POST', path: '/sim/load-limit', body: { amps: arg === 'none' ? null : number(arg, 'the limit') } };
    case 'day':
      return { method: 'POST', path: '/sim/day', body: dayBody(args.slice(1)) };
    case 'house': {
      const lines = args.slice(1);
      if (lines.length !== 1 && lines.length !== 3) throw new Error('house needs <W> or <L1> <L2> <L3>');
      const watts = lines.map((w) => number(w, 'the house step'));
      return { method: 'POST', path: '/sim/house', body: { stepW: watts.length === 1 ? watts[0] : watts } };
    }
    case 'ripple':
      if (arg !== 'closed' && arg !== 'open') throw new Error('ripple needs closed or open');
      return { method: 'POST', path: '/sim/ripple', body: { closed: arg === 'closed' } };
    default:
      throw new Error(`unknown command ${JSON.stringify(command)}`);
  }
}

interface View {
  plant: {
    vehicle: string;
    pilotLevel: string;
    pwmCurrentA: number | null;
    contactorClosed: boolean;
    cableLocked: boolean;
    energyWh: number;
    powerW: number;
    temperatureC: number;
    faults: string[];
    beeps: number;
    lastBeep?: { count: number; ms: number };
    alternateMs: number;
  };
  chargePoint: {
    systemState: string;
    ocppState: string;
    authState: string;
    type2State: string;
    ambientTemp?: number;
    transaction?: { consumption: number; power: number; transactionDuration?: number };
  };
  hmi: string;
  loadLimitA: number | null;
  pairing: boolean;
  nfc?: { request: string; answer: string };
  network?: { appliedAt: string; commands: string[]; error?: string };
  site?: {
    day: { profile: string; speed: number; hour: number };
    houseW: number[];
    pvW: number[];
    evW: number[];
    gridW: number[];
    rippleContactClosed: boolean;
  };
}

/** How long the CLI waits for the charge point to take a command in. */
const SETTLE_TIMEOUT_MS = 2_000;

/** What the buzzer said about a tag (one short beep: accepted; one long: refused; pairing: one or two beeps). */
export function tagOutcome(before: View, after: View): string {
  const beep = after.plant.lastBeep;
  if (after.plant.beeps === before.plant.beeps || !beep) return 'tag read, no beep: ignored (another known tag while a transaction runs)';
  if (before.pairing) return beep.count === 2 ? 'pairing: tag read, already whitelisted (two beeps)' : 'pairing: new tag read (one beep)';
  return beep.ms >= 500 ? 'tag refused (one long beep)' : 'tag accepted (one short beep)';
}

/** Whether the charge point has taken a command in, judged from the view after it (undefined: nothing to wait for). */
function takenIn(call: Call, before: View): ((v: View) => boolean) | undefined {
  const path = call.path;
  if (path === '/sim/tag' || path === '/sim/tap') return (v) => v.plant.beeps > before.plant.beeps;
  if (path === '/sim/temperature') {
    const celsius = (call.body as { celsius: number }).celsius;
    return (v) => v.chargePoint.ambientTemp === Math.round(celsius * 10) / 10;
  }
  if (/^\/sim\/(plug|unplug|charge|pause|ev|fault)/.test(path))
    return (v) => v.chargePoint.type2State === (v.plant.pilotLevel === 'f' ? 'e' : v.plant.pilotLevel);
  return undefined;
}

function summary(v: View): string {
  const p = v.plant;
  const c = v.chargePoint;
  const lines = [
    `vehicle ${p.vehicle}, CP ${p.pilotLevel.toUpperCase()}, PWM ${p.pwmCurrentA === null ? 'off' : `${p.pwmCurrentA} A`}, ` +
      `contactor ${p.contactorClosed ? 'closed' : 'open'}, cable ${p.cableLocked ? 'locked' : 'unlocked'}`,
    `meter ${(p.energyWh / 1000).toFixed(3)} kWh, ${Math.round(p.powerW)} W; temperature ${p.temperatureC} °C; ` +
      `faults ${p.faults.length ? p.faults.join(', ') : 'none'}; load limit ${v.loadLimitA ?? 'none'}`,
    `charge point ${c.systemState} / ${c.ocppState} / ${c.authState}; HMI ${v.hmi}${v.pairing ? '; pairing mode on' : ''}`,
  ];
  if (p.alternateMs > 0) lines.push(`the EV switches between C and B every ${p.alternateMs} ms`);
  if (c.transaction) lines.push(`transaction ${c.transaction.consumption} Wh, ${c.transaction.power} W, ${c.transaction.transactionDuration ?? 0} s`);
  if (v.site) {
    const { day, houseW, pvW, evW, gridW, rippleContactClosed } = v.site;
    const w = (lines: number[]) => `${Math.round(lines.reduce((a, b) => a + b, 0))} W`;
    const clock = `${String(Math.floor(day.hour)).padStart(2, '0')}:${String(Math.floor((day.hour % 1) * 60)).padStart(2, '0')}`;
    lines.push(
      `day ${day.profile} ${clock} (×${day.speed}); house ${w(houseW)}, PV ${w(pvW)}, EV ${w(evW)}, grid ${w(gridW)} ` +
        `[${gridW.map((x) => Math.round(x)).join(', ')}]; ripple contact ${rippleContactClosed ? 'closed' : 'open'}`,
    );
  }
  if (v.network?.commands.length) lines.push(`network settings at the last start (simulated; a Raspberry Pi would run): ${v.network.commands.join('; ')}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === 'help' || args[0] === '--help') {
    console.log(USAGE);
    return;
  }
  const call = callFor(args);
  const base = process.env.SIM_URL ?? `http://127.0.0.1:${process.env.PORT || 8080}`;
  const send = async (c: Call): Promise<View> => {
    const init: RequestInit = { method: c.method };
    if (c.body !== undefined) init.body = JSON.stringify(c.body);
    if (c.body !== undefined) init.headers = { 'content-type': 'application/json' };
    let res: Response;
    try {
      res = await fetch(`${base}${c.path}`, init);
    } catch {
      throw new Error(`no controller answers at ${base}: start it with npm start (HARDWARE=sim), or set SIM_URL`);
    }
    const body = (await res.json().catch(() => undefined)) as (View & { cause?: string }) | undefined;
    if (res.status === 404) throw new Error(`${base} has no simulator: is the controller running with HARDWARE=sim?`);
    if (!res.ok || !body) throw new Error(body?.cause ?? `the controller answered ${res.status}`);
    return body;
  };
  const status: Call = { method: 'GET', path: '/sim' };
  const before = call.path === '/sim' ? undefined : await send(status);
  let view = await send(call);
  if (view.nfc) {
    console.log(view.nfc.answer);
    return;
  }
  // The state once the charge point has taken the command in (a CP level after its debounce, a tag after its read).
  const done = before && takenIn(call, before);
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (done && !done(view) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    view = await send(status);
  }
  if (before && (call.path === '/sim/tag' || call.path === '/sim/tap')) console.log(tagOutcome(before, view));
  console.log(summary(view));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  console.error(`\n${USAGE}`);
  process.exitCode = 2;
});
