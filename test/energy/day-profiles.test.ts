import { describe, expect, test } from 'vitest';
import { cloudAt, CLOUD_TRANSMISSION, HOUSE_BASE_W, houseLoadW, pvPowerW, SUNRISE_HOUR, SUNSET_HOUR } from '../../drivers/sim/day-profiles.js';
import { createSimulatedSite } from '../../drivers/sim/site.js';

const sum = (lines: number[]) => lines.reduce((a, b) => a + b, 0);
const hours = (step: number) => Array.from({ length: Math.round(24 / step) }, (_, i) => i * step);

describe('the simulated day', () => {
  test('sunny: no PV at night, the peak at solar noon, the same on every line', () => {
    expect(sum(pvPowerW('sunny', SUNRISE_HOUR - 1, 9000, 1))).toBe(0);
    expect(sum(pvPowerW('sunny', SUNSET_HOUR + 0.5, 9000, 1))).toBe(0);
    const noon = (SUNRISE_HOUR + SUNSET_HOUR) / 2;
    expect(sum(pvPowerW('sunny', noon, 9000, 1))).toBeCloseTo(9000, 6);
    const [l1, l2, l3] = pvPowerW('sunny', 10, 9000, 1);
    expect(l1).toBe(l2);
    expect(l2).toBe(l3);
  });

  test('cloudy: sun and cloud alternate in spells of 1 to 26 minutes; the same seed gives the same day', () => {
    const minutes = hours(1 / 600).map((h) => cloudAt(h, 7));
    const spells: number[] = [];
    let length = 0;
    for (let i = 1; i < minutes.length; i++) {
      length++;
      if (minutes[i] !== minutes[i - 1]) {
        spells.push(length / 10);
        length = 0;
      }
    }
    expect(spells.length).toBeGreaterThan((24 * 60) / 26);
    for (const spell of spells.slice(1)) {
      expect(spell).toBeGreaterThanOrEqual(0.9);
      expect(spell).toBeLessThanOrEqual(26.1);
    }
    const day = hours(0.01).map((h) => sum(pvPowerW('cloudy', h, 9000, 7)));
    expect(hours(0.01).map((h) => sum(pvPowerW('cloudy', h, 9000, 7)))).toEqual(day);
    expect(hours(0.01).map((h) => sum(pvPowerW('cloudy', h, 9000, 8)))).not.toEqual(day);
    // Under a cloud, the clear sky's power times the transmission.
    const covered = hours(0.01).find((h) => h > 10 && cloudAt(h, 7))!;
    expect(sum(pvPowerW('cloudy', covered, 9000, 7))).toBeCloseTo(sum(pvPowerW('sunny', covered, 9000, 7)) * CLOUD_TRANSMISSION, 6);
  });

  test('the house: its base load at night, steps by day, deterministic per seed', () => {
    expect(houseLoadW(3, 1)).toEqual(HOUSE_BASE_W);
    const day = hours(0.05).map((h) => sum(houseLoadW(h, 1)));
    expect(Math.min(...day)).toBe(sum(HOUSE_BASE_W));
    expect(Math.max(...day)).toBeGreaterThan(sum(HOUSE_BASE_W) + 300);
    expect(hours(0.05).map((h) => sum(houseLoadW(h, 1)))).toEqual(day);
  });

  test('the grid meter sees house + EV − PV per line; time runs at the set speed', () => {
    let t = 0;
    const site = createSimulatedSite({ now: () => t, evPowerW: () => [3680, 0, 0], gridMeterAddress: () => 2 });
    expect(site.state().gridW).toEqual([HOUSE_BASE_W[0] + 3680, HOUSE_BASE_W[1], HOUSE_BASE_W[2]]);
    site.setDay({ profile: 'sunny', speed: 60, startHour: 13, peakW: 9000 });
    t += 60_000; // a minute: an hour of the simulated day
    const s = site.state();
    expect(s.day.hour).toBeCloseTo(14, 9);
    for (let i = 0; i < 3; i++) expect(s.gridW[i]).toBeCloseTo(s.houseW[i]! + s.evW[i]! - s.pvW[i]!, 9);
    expect(sum(s.pvW)).toBeGreaterThan(7000);
    site.setHouseStep([2000, 0, 0]);
    expect(site.state().houseW[0]).toBeCloseTo(s.houseW[0]! + 2000, 9);
    expect(() => site.setDay({ speed: 0 })).toThrow(/speed/);
    expect(() => site.setHouseStep([1, 2] as unknown as [number, number, number])).toThrow(/three numbers/);
    expect(site.state().day.speed).toBe(60);
  });
});
