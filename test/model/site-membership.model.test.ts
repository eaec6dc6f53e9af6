import { afterAll, describe, expect, it, test } from 'vitest';
import { SITE_MEMBERSHIP_DEFAULTS, siteMembershipMachine, type SiteMembershipEvent, type SiteMembershipSnapshot } from '../../machines/site-membership.js';
import { pathName, runAlone, soleTimer } from './alone.js';
import { SiteMembershipSpec, type ShareRule } from './energy-invariants.js';
import { CoverageRecorder, planPaths, writeReport, type ModelPath } from './model.js';

/**
 * Model-based tests of the site membership (machines/site-membership.ts), not wired into the MQTT link yet: paths
 * generated from the machine, run on a real actor with a manual clock. After every step the actor equals the model,
 * and the independent oracle (energy-invariants.ts) checks which share applies: the safe share while joining and
 * without the broker, none after the reserve time, the computed share otherwise, and a higher share only with every
 * peer heard.
 */

const input = { connected: false };

function modelEvents(s: SiteMembershipSnapshot): SiteMembershipEvent[] {
  const { context } = s;
  return [
    { type: 'SITE', on: true },
    { type: 'SITE', on: false },
    context.connected ? { type: 'DISCONNECTED' } : { type: 'CONNECTED' },
    { type: 'PEERS', silent: !context.peerSilent },
    // A changed join time applies to the next join (outside the oracle, which is told the new value).
    { type: 'PARAMS', params: { joinMs: context.params.joinMs === SITE_MEMBERSHIP_DEFAULTS.joinMs ? 5_000 : SITE_MEMBERSHIP_DEFAULTS.joinMs } },
    ...(soleTimer(s as never) as SiteMembershipEvent[]),
  ];
}

const { paths, candidates } = planPaths(siteMembershipMachine, { events: modelEvents, input });
const coverage = new CoverageRecorder();

const ruleOf = (s: { hasTag(t: string): boolean }): ShareRule =>
  s.hasTag('pause') ? 'pause' : s.hasTag('safe') ? 'safe' : s.hasTag('share') ? 'share' : 'none';

function run(path: ModelPath<SiteMembershipEvent>, withCoverage: boolean): string[] {
  const spec = new SiteMembershipSpec({ ...SITE_MEMBERSHIP_DEFAULTS });
  const broken: string[] = [];
  runAlone({
    machine: siteMembershipMachine,
    id: 'siteMembership',
    path,
    input,
    ...(withCoverage ? { coverage } : {}),
    step: (at, actor, _model, event, clock) => {
      const now = clock.now();
      if (event.type === 'SITE') spec.site(event.on, now);
      if (event.type === 'CONNECTED' || event.type === 'DISCONNECTED') spec.connection(event.type === 'CONNECTED', now);
      if (event.type === 'PEERS') spec.peers(event.silent);
      if (event.type === 'PARAMS') spec.joinTime(event.params.joinMs!);
      const snapshot = actor.getSnapshot();
      broken.push(...spec.observe(now, ruleOf(snapshot), snapshot.hasTag('raise')).map((b) => `${at}: ${b}`));
    },
  });
  return broken;
}

describe(`site membership, ${paths.length} generated paths on the actor`, () => {
  it.each(paths.map((p) => [pathName(p), p] as const))('%s', (_name, path) => {
    expect(run(path, true)).toEqual([]);
  });
});

test(`site membership against the oracle, every one of ${candidates.length} candidate paths`, () => {
  const failures = candidates.flatMap((p) => run(p, false).map((b) => `${pathName(p)}: ${b}`));
  expect(failures.slice(0, 5), `${failures.length} broken`).toEqual([]);
});

afterAll(() => {
  const report = coverage.report('siteMembership', siteMembershipMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
  expect(report.states.covered).toBe(report.states.total);
  expect(report.transitions.covered).toBe(report.transitions.total);
});
