import * as v from 'valibot';

/**
 * A charger's demand record on a site (docs/energy.md, "Site"): JSON, retained, QoS 1, on `<SiteName>/chargers/<id>`.
 * The last will on the same topic is `{"v":1,"online":false}`; a charger leaving on purpose clears its record (an
 * empty retained message). Received records are checked here; anything else is ignored.
 */

export const SITE_RECORD_VERSION = 1;

const amps = v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1000));
const perLine = v.tuple([amps, amps, amps]);
/** At the grid connection point: negative where it exports. */
const gridAmps = v.pipe(v.number(), v.finite(), v.minValue(-1000), v.maxValue(1000));
const line = v.picklist([0, 1, 2] as const);

const OnlineRecord = v.object({
  v: v.literal(SITE_RECORD_VERSION),
  online: v.literal(true),
  /** What it would draw without the site limit (A per phase). */
  demandA: amps,
  /** The site's lines it draws on (0 = L1). */
  lines: v.pipe(
    v.array(line),
    v.minLength(1),
    v.maxLength(3),
    v.check((ls) => new Set(ls).size === ls.length, 'lines repeat'),
  ),
  priority: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(9)),
  /** When its vehicle arrived (UTC ms); null: no vehicle. */
  arrivedAt: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** What it measures per line (A). */
  drawA: perLine,
  /** The grid connection point's current per line (A, import positive), from this charger's grid meter while its reading is fresh. */
  gridA: v.nullable(v.tuple([gridAmps, gridAmps, gridAmps])),
});

const OfflineRecord = v.object({ v: v.literal(SITE_RECORD_VERSION), online: v.literal(false) });

const SiteRecordSchema = v.variant('online', [OnlineRecord, OfflineRecord]);

export type OnlineSiteRecord = v.InferOutput<typeof OnlineRecord>;
export type SiteRecord = v.InferOutput<typeof SiteRecordSchema>;

/** The last will: the broker publishes it when the charger vanishes without a goodbye. */
export const OFFLINE_RECORD = JSON.stringify({ v: SITE_RECORD_VERSION, online: false } satisfies SiteRecord);

/** The topic every record of the site is on (`+`: the charger's id). */
export const siteFilter = (siteName: string): string => `${siteName}/chargers/+`;
export const recordTopic = (siteName: string, chargerId: string): string => `${siteName}/chargers/${chargerId}`;

/** A charger id usable as one topic level (the MQTT client id, without wildcards, `/` or white space). */
export const chargerIdOf = (clientId: string): string => clientId.replace(/[\s+#/$]+/g, '_') || 'charger';

export const encodeRecord = (record: OnlineSiteRecord): string => JSON.stringify(record);

/** A received payload: a record, `cleared` (an empty retained message: the charger left), or why it is refused. */
export function decodeRecord(payload: Buffer): { record: SiteRecord } | { cleared: true } | { error: string } {
  if (payload.length === 0) return { cleared: true };
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return { error: 'not JSON' };
  }
  const parsed = v.safeParse(SiteRecordSchema, json);
  if (!parsed.success) return { error: parsed.issues.map((i) => `${v.getDotPath(i) ?? 'record'}: ${i.message}`).join('; ') };
  return { record: parsed.output };
}
