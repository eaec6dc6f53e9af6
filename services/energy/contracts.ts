import type { LimitReport, LimitSource, PerLine, Phases, SolarMode, Timed } from './allocator.js';

/**
 * The seams between the parts of energy management (docs/energy.md), so each is built and tested on its own:
 * - the inputs (grid meter, MQTT and HTTP grid power, the grid operator's limit) give the allocator loop what they
 *   last received (`EnergyInputs`);
 * - the site link (several chargers over MQTT) gives it this charger's share and takes its demand (`SiteLink`);
 * - the allocator loop (services/energy/manager.ts) composes every limit once a second, sends the result to the
 *   core and reports it (`EnergyStatus`) to the API, MQTT, Home Assistant and the web interface, which steer it
 *   through `EnergyControl`.
 */

/** What the energy inputs last received; read by the allocator loop at each step. */
export interface EnergyInputs {
  /** The grid connection point's power per line (W; import positive, export negative); null: no grid input yet. */
  gridPowerW(): Timed<PerLine> | null;
  /** The grid operator's limit (W; null: unlimited) with its last heartbeat; null: no grid-operator input configured. */
  gridOperator(): Timed<number | null> | null;
}

/** This charger's demand on the site, as the allocator loop sees it. */
export interface SiteDemand {
  /** What it would draw without the site limit (A per phase; 0: no vehicle or paused by its own limits). */
  demandA: number;
  /** The phase count the contactors connect. */
  phases: Phases;
  /** The current the meter measures per line (A). */
  drawA: PerLine;
  /** When the vehicle arrived (UTC ms); null: no vehicle. */
  arrivedAt: number | null;
}

/** The charger's membership of a site sharing one grid connection; null where site sharing is off. */
export interface SiteLink {
  /** This charger's applied share per line (A) and when it was computed; null: not on a site (off). */
  share(): Timed<PerLine> | null;
  /** The loop's latest demand, published (retained) when it changed or at the heartbeat. */
  offer(demand: SiteDemand): void;
}

/** The allocation as reported: the documented `energy` extension of GET /v1/system_state (docs/energy.md). */
export interface EnergyStatus {
  mode: SolarMode;
  /** The current offered per phase (A): 0 (pause) or at least 6. */
  currentA: number;
  phases: Phases;
  /** The source whose limit applies now, or `ramp`. */
  reason: LimitSource | 'ramp';
  /** The reason in words (English): "Limited to 9 A by solar surplus". */
  description: string;
  limits: LimitReport[];
  inputs: {
    gridPowerW: PerLine | null;
    surplusW: number | null;
    gridOperatorW: number | null;
    siteShareA: PerLine | null;
  };
  /** The solar start/stop logic: `bypassed` (Fast), `paused`, `charging`. */
  solar: 'bypassed' | 'paused' | 'charging';
  /** Today's energy into the vehicle by where it came from (Wh, local day). */
  today: { solarWh: number; gridWh: number };
}

/** What the API, MQTT and the web interface may change. */
export interface EnergyControl {
  status(): EnergyStatus;
  /** Called after every step whose status changed. */
  watch(listener: (status: EnergyStatus) => void): () => void;
  setMode(mode: SolarMode): Promise<void>;
}
