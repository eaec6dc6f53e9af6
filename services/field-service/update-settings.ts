import { declare } from '../settings/types.js';

/**
 * How a running charge meets an installed update (docs/field-service.md#a-charge-running): used by OCPP
 * UpdateFirmware, the in-controller installer and `npm run update` without `--finish-charge`/`--wait-for-idle`.
 */
export const UPDATE_SETTINGS = declare({
  UpdateSwitchMode: {
    label: {
      gb: 'Update during a charge',
      de: 'Update während eines Ladevorgangs',
      nl: 'Update tijdens een laadsessie',
      fr: 'Mise à jour pendant une recharge',
    },
    description: {
      gb: 'Wait for idle: charges may still start; the update waits for a moment without one. Finish the charge: no new charge starts.',
      de: 'Auf Leerlauf warten: Ladevorgänge können noch beginnen; das Update wartet auf einen Moment ohne. Ladevorgang beenden: Kein neuer beginnt.',
      nl: 'Wachten op inactief: laadsessies kunnen nog starten; de update wacht op een moment zonder. Laadsessie afmaken: er start geen nieuwe.',
      fr: "Attendre l'inactivité : des recharges peuvent commencer ; la mise à jour attend un moment sans. Terminer la recharge : aucune nouvelle.",
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'Wait for idle', de: 'Auf Leerlauf warten', nl: 'Wachten op inactief', fr: "Attendre l'inactivité" } },
      { value: 1, label: { gb: 'Finish the charge', de: 'Ladevorgang beenden', nl: 'Laadsessie afmaken', fr: 'Terminer la recharge' } },
    ],
    default: 0,
    role: 'installer',
  },
});

/** The switch modes by the setting's value (docs/field-service.md#a-charge-running). */
export const SWITCH_MODES = ['wait-for-idle', 'finish-charge'] as const;
export type SwitchMode = (typeof SWITCH_MODES)[number];

/**
 * Shown among the messages (GET /v1/messages, the dashboard) while an installed update waits in `finish-charge`:
 * why no new charge starts although charging is enabled.
 */
export const UPDATE_WAITING = {
  severity: 'WARNING',
  errorCode: 'UPDATE_WAITING',
  message: 'An update is installed: the running charge is finished, no new charge starts until the controller has restarted into the update',
  correctiveActions: 'None: the controller restarts into the update once no charge runs; charging is available again after the restart.',
} as const;
