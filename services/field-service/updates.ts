import { join } from 'node:path';
import { installUpdate, type Installed } from './install-update.js';
import { readHistory, readSlotState, slotsDir, type HistoryEntry, type SlotState } from './slots.js';
import { loadTrustedKeys } from './trusted-keys.js';

/**
 * Installing updates from inside the running controller (OCPP UpdateFirmware, the web upload POST /v1/updates): the same
 * installer as `npm run update`, then the switch to the update once no charge runs. Offered only where the
 * controller runs under the launcher (bin/launcher.ts), which is what starts an installed update.
 */
export interface UpdateInstaller {
  /** Verifies and installs the file into the inactive slot, then asks for the switch (at the first idle moment). */
  install(file: Uint8Array): Promise<Installed>;
  /** The slots and the update history. */
  status(): { state: SlotState; history: HistoryEntry[] };
  /**
   * Where an uploaded update file is received before it is installed: in the install root's `slots/`, on the file
   * system the update goes to; a `.tmp` left by a power cut is discarded by the launcher's next start.
   */
  readonly uploadFile: string;
}

export function createUpdateInstaller(opts: { root: string; trustedKeysFile: string; switchWhenIdle: () => void; now?: () => number }): UpdateInstaller {
  return {
    async install(file) {
      const installed = await installUpdate(file, {
        root: opts.root,
        trustedKeys: await loadTrustedKeys(opts.trustedKeysFile),
        ...(opts.now ? { now: opts.now } : {}),
      });
      opts.switchWhenIdle();
      return installed;
    },
    status: () => ({ state: readSlotState(opts.root), history: readHistory(opts.root) }),
    uploadFile: join(slotsDir(opts.root), 'upload.ccupdate.tmp'),
  };
}
