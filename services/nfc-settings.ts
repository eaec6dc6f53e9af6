import { declare } from './settings/types.js';

/** The reader's mode (services/nfc.ts setRfidMode). */
export const NFC_SETTINGS = declare({
  RFIDMode: {
    label: { gb: 'RFID Mode', de: 'RFID-Modus', nl: 'RFID-modus', fr: 'Mode RFID' },
    description: {
      gb: 'RFID only: the reader reads RFID cards. RFID/NFC hybrid: it also answers phones over NFC (the app).',
      de: 'Nur RFID: Der Leser liest RFID-Karten. RFID/NFC-Hybrid: Er antwortet zusätzlich Smartphones über NFC (die App).',
      nl: 'Alleen RFID: de lezer leest RFID-kaarten. RFID/NFC-hybride: hij antwoordt ook telefoons via NFC (de app).',
      fr: "RFID uniquement : le lecteur lit les cartes RFID. Hybride RFID/NFC : il répond aussi aux téléphones par NFC (l'application).",
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'RFID only', de: 'Nur RFID', nl: 'Alleen RFID', fr: 'RFID uniquement' } },
      { value: 1, label: { gb: 'RFID/NFC hybrid', de: 'RFID/NFC-Hybrid', nl: 'RFID/NFC-hybride', fr: 'Hybride RFID/NFC' } },
    ],
    default: 0,
    role: 'operator',
    app: true,
  },
});
