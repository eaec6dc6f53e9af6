import { join } from 'node:path';
import { installUpdate, type Installed } from './install-update.js';
import { readHistory, readSlotState, slotsDir, type HistoryEntry, type SlotState } from './slots.js';
import { loadTrustedKeys } from './trusted-keys.js';
import { SWITCH_MODES, type SwitchMode } from './update-settings.js';

/**
 * Installing updates from inside the running controller (OCPP UpdateFirmware, the web upload POST /v1/updates): the same
 * installer as `npm run update`, then the switch to the update once no charge runs. Offered only where the
 * controller runs under the launcher (bin/launcher.ts), which is what starts an installed update.
 */
export interface UpdateInstaller {
  /**
   * Verifies and installs the file into the inactive slot (one install at a time: a second one is refused), then
   * asks for the switch in `switchMode` (default: the setting UpdateSwitchMode).
   */
  install(file: Uint8Array, options?: { switchMode?: SwitchMode }): Promise<Installed>;
  /**
   * An update waits for its trial (installed here or by `npm run update`, whose launcher passes its SIGHUP on):
   * switch to it in the mode its installer chose, else the setting's.
   */
  switchToInstalled(): void;
  /** The slots and the update history. */
  status(): { state: SlotState; history: HistoryEntry[] };
  /**
   * Where an uploaded update file is received before it is installed: in the install root's `slots/`, on the file
   * system the update goes to; a `.tmp` left by a power cut is discarded by the launcher's next start.
   */
  readonly uploadFile: string;
}

/** The mode the setting UpdateSwitchMode names (what OCPP and the web upload use, and the CLI without an option). */
export const switchModeOf = (settings: { get(key: 'UpdateSwitchMode'): number }): SwitchMode =>
  SWITCH_MODES[settings.get('UpdateSwitchMode')] ?? 'wait-for-idle';

export function createUpdateInstaller(opts: {
  root: string;
  trustedKeysFile: string;
  /** The setting UpdateSwitchMode as it is now. */
  switchMode: () => SwitchMode;
  /** Switches to the installed update once no charge runs (bin/update-switch.ts). */
  switchTo: (mode: SwitchMode) => void;
  log?: (message: string) => void;
  now?: () => number;
}): UpdateInstaller {
  const installer: UpdateInstaller = {
    async install(file, options = {}) {
      const installed = await installUpdate(file, {
        root: opts.root,
        trustedKeys: await loadTrustedKeys(opts.trustedKeysFile),
        switchMode: options.switchMode ?? opts.switchMode(),
        ...(opts.log ? { log: opts.log } : {}),
        ...(opts.now ? { now: opts.now } : {}),
      });
      installer.switchToInstalled();
      return installed;
    },
    switchToInstalled() {
      const trial = readSlotState(opts.root).trial;
      // Only an update not yet started: a trial that runs is this controller.
      if (trial && trial.attempts === 0 && !trial.rollingBack) opts.switchTo(trial.switchMode ?? opts.switchMode());
    },
    status: () => ({ state: readSlotState(opts.root), history: readHistory(opts.root) }),
    uploadFile: join(slotsDir(opts.root), 'upload.ccupdate.tmp'),
  };
  return installer;
}
