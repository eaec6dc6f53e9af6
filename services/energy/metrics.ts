import client from 'prom-client';
import type { EnergyStatus } from './contracts.js';

/**
 * The allocation in `/metrics` (docs/energy.md): the offered current with its reason as a label, each source's
 * limit, the surplus, the grid power and today's energy by origin. Read from the loop's latest status when scraped.
 */
export function registerEnergyMetrics(registry: client.Registry, status: () => EnergyStatus): void {
  new client.Gauge({
    name: 'energy_offered_current_amperes',
    help: 'The current per phase the allocator offers (0: paused), labelled with the source that limits it and the mode',
    labelNames: ['reason', 'mode', 'phases'],
    registers: [registry],
    collect() {
      const s = status();
      this.reset();
      this.set({ reason: s.reason, mode: s.mode, phases: String(s.phases) }, s.currentA);
    },
  });
  new client.Gauge({
    name: 'energy_limit_amperes',
    help: "Each source's limit per phase (sources that limit nothing are left out), with its status (fresh, safe)",
    labelNames: ['source', 'status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const limit of status().limits) if (limit.amps !== null) this.set({ source: limit.source, status: limit.status }, limit.amps);
    },
  });
  new client.Gauge({
    name: 'energy_surplus_watts',
    help: 'The smoothed solar surplus available to the vehicle (export plus its own draw); absent without a fresh grid input',
    registers: [registry],
    collect() {
      this.reset();
      const w = status().inputs.surplusW;
      if (w !== null) this.set(w);
    },
  });
  new client.Gauge({
    name: 'energy_grid_power_watts',
    help: "The grid connection point's power per line (import positive, export negative); absent without a grid input",
    labelNames: ['line'],
    registers: [registry],
    collect() {
      this.reset();
      const grid = status().inputs.gridPowerW;
      if (grid) grid.forEach((w, i) => this.set({ line: `L${i + 1}` }, w));
    },
  });
  new client.Gauge({
    name: 'energy_today_watt_hours',
    help: "Today's energy into the vehicle (local day) by origin",
    labelNames: ['origin'],
    registers: [registry],
    collect() {
      const { today } = status();
      this.set({ origin: 'solar' }, today.solarWh);
      this.set({ origin: 'grid' }, today.gridWh);
    },
  });
}
