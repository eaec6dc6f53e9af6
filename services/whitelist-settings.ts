import { declare, onOff } from './settings/types.js';

/** Whether the local whitelist (services/whitelist.ts) authorizes tags. */
export const WHITELIST_SETTINGS = declare({
  FLLEnabled: onOff({
    label: { gb: 'Local whitelist', de: 'Lokale Whitelist', nl: 'Lokale whitelist', fr: 'Liste blanche locale' },
    description: {
      gb: 'On: tags in the local whitelist may charge. Off: the local whitelist is not used.',
      de: 'Ein: Tags in der lokalen Whitelist dürfen laden. Aus: Die lokale Whitelist wird nicht verwendet.',
      nl: 'Aan: tags in de lokale whitelist mogen laden. Uit: de lokale whitelist wordt niet gebruikt.',
      fr: "Activé : les badges de la liste blanche locale peuvent charger. Désactivé : la liste blanche locale n'est pas utilisée.",
    },
    default: 1,
    role: 'operator',
    app: true,
  }),
});
