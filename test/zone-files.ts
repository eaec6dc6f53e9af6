import { existsSync } from 'node:fs';
import { test } from 'vitest';
import { ZONEINFO } from '../services/time-zone.js';

/**
 * The system's zone files (Debian's tzdata) are not part of Node: on a machine without them the controller reads
 * every zone through Intl (services/time-zone.ts), and the tests that read or compare the files are skipped there.
 */
export const ZONE_FILES_PRESENT = existsSync(`${ZONEINFO}/Europe/Berlin`);

/** `test`, run where the zone files are installed. */
export const testWithZoneFiles = test.skipIf(!ZONE_FILES_PRESENT);
