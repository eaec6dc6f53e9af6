import type { SimState, SimulatedPn532 } from '../drivers/index.js';
import type { SimulatedPhone, WireStats } from '../drivers/pn532/sim.js';
import type { SimulatedSite } from '../drivers/sim/site.js';
import { checkTagUid } from '../drivers/rfid/uid.js';
import type { ReaderHardware, TagTechnology } from '../drivers/types.js';
import type { ChargingService } from './charging.js';
import type { SimCommand } from './core/protocol.js';
import { invalid } from './errors.js';
import type { Network } from './network.js';

/** The plant's vocabulary the API validates and documents /sim with (it reaches the simulated devices only through here). */
export { ALTERNATE_MS_RANGE, SIM_FAULTS, type SimState } from '../drivers/index.js';
export { DAY_PROFILES } from '../drivers/sim/day-profiles.js';
export { MAX_HOUSE_STEP_W, PEAK_RANGE, SPEED_RANGE, type SimulatedSite } from '../drivers/sim/site.js';

/** An argument as a shell would need it written (shown to people; never run through a shell). */
const quoteArg = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);

/**
 * The simulated world of HARDWARE=sim, from the main thread: the vehicle, meter, temperature and faults are the
 * plant in the charge-point core (controls go there as messages), cards and a phone are in the field of the
 * simulated PN532, which is on this thread beside the reader's driver.
 */
export interface Simulator {
  /** A plant control (state, plug, charge, …); answers the plant's state; a control that makes no sense now is a 400. */
  control(command: SimCommand): Promise<SimState>;
  /** A tag is tapped on the reader: 4, 7 or 10-byte UID as hex; refused (400) otherwise. */
  presentTag(uid: string, technology?: TagTechnology): void;
  /**
   * A simulated phone is tapped: it sends one API request text over NFC (the Type 4 Tag write, then read), resolves
   * with the answer text and leaves.
   */
  phoneRequest(text: string): Promise<string>;
  /** The simulated phone in the reader's field (it enters when called and none is there). */
  nfcPhone(): SimulatedPhone;
  /** Bytes and APDUs the simulated PN532 has moved so far (live counters). */
  nfcStats(): WireStats;
  /** What the simulated network manager was asked at the last start (the network settings), if anything yet. */
  network(): { appliedAt: string; commands: string[]; error?: string } | undefined;
  /** The house, PV system, grid meter and ripple-control contact around the charge point (docs/energy.md). */
  site?: SimulatedSite | undefined;
}

/**
 * The simulator of HARDWARE=sim. `pn532` is the simulated chip, undefined when the reader is the real PN532 on
 * NFC_PORT (docs/hardware.md, Real devices on a PC): then the plant's controls work, and cards and phones are real.
 */
export function createSimulator(
  charging: ChargingService,
  pn532: SimulatedPn532 | undefined,
  reader: ReaderHardware,
  network?: Pick<Network, 'lastApplied'>,
  site?: SimulatedSite,
): Simulator {
  let phone: SimulatedPhone | undefined;
  const chip = (): SimulatedPn532 => {
    if (!pn532) throw invalid('The reader is the real PN532 on NFC_PORT: present a real card or phone to it');
    return pn532;
  };
  const nfcPhone = () => {
    if (!phone || phone.gone) phone = chip().phone();
    return phone;
  };
  return {
    control: (command) => charging.simulate(command),
    presentTag(uid, technology) {
      let tag;
      try {
        tag = checkTagUid(uid, technology);
      } catch (err) {
        throw invalid((err as Error).message);
      }
      chip().tap(tag.uid, tag.technology);
    },
    async phoneRequest(text) {
      chip();
      if (reader.nfc?.mode() !== 'hybrid') throw new Error('RFID Mode is RFID only, so the reader does not look for phones: set it to RFID/NFC hybrid first');
      // A tap: the phone comes, writes the request, reads the answer and leaves.
      const tapping = nfcPhone();
      try {
        return await tapping.request(text);
      } finally {
        tapping.leave();
      }
    },
    nfcPhone,
    site,
    nfcStats: () => chip().stats,
    network() {
      const last = network?.lastApplied();
      if (!last) return undefined;
      const shown = { appliedAt: new Date(last.at).toISOString(), commands: last.commands.map((c) => `nmcli ${c.map(quoteArg).join(' ')}`) };
      return last.error === undefined ? shown : { ...shown, error: last.error };
    },
  };
}
