import { declare, onOff, type Text } from './settings/types.js';

/**
 * The network settings (group Network: LAN static address, GSM), applied by services/network.ts through
 * NetworkManager at the next start (they are marked reboot).
 */

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV4_HINT: Text = {
  gb: 'an IPv4 address such as {default}',
  de: 'eine IPv4-Adresse wie {default}',
  nl: 'een IPv4-adres zoals {default}',
  fr: 'une adresse IPv4 telle que {default}',
};
/** The static address fields: shown when the assignment is static. */
const STATIC = [{ name: 'LanMode', value: [1] }];

/** The netmasks of a LAN address, /8 to /30. */
export const NETMASKS = Array.from({ length: 23 }, (_, i) => {
  const prefix = 8 + i;
  const n = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
});

export const NETWORK_SETTINGS = declare({
  LanMode: {
    label: { gb: 'IP address assignment', de: 'IP-Adressvergabe', nl: 'Toewijzing IP-adres', fr: "Attribution de l'adresse IP" },
    description: {
      gb: 'DHCP: the controller gets its address from the network. Static: the address below is used.',
      de: 'DHCP: Der Controller bezieht seine Adresse aus dem Netzwerk. Statisch: Die unten angegebene Adresse wird verwendet.',
      nl: 'DHCP: de controller krijgt zijn adres van het netwerk. Statisch: het adres hieronder wordt gebruikt.',
      fr: "DHCP : le contrôleur obtient son adresse du réseau. Statique : l'adresse ci-dessous est utilisée.",
    },
    type: 'enum',
    options: [
      { value: 0, label: { gb: 'DHCP', de: 'DHCP', nl: 'DHCP', fr: 'DHCP' } },
      { value: 1, label: { gb: 'Static', de: 'Statisch', nl: 'Statisch', fr: 'Statique' } },
    ],
    default: 0,
    role: 'operator',
    reboot: true,
  },
  LanIpAddress: {
    label: { gb: 'Static IP address', de: 'Statische IP-Adresse', nl: 'Statisch IP-adres', fr: 'Adresse IP statique' },
    description: {
      gb: 'IPv4 address of the controller when the assignment is static.',
      de: 'IPv4-Adresse des Controllers bei statischer Vergabe.',
      nl: 'IPv4-adres van de controller bij statische toewijzing.',
      fr: 'Adresse IPv4 du contrôleur en attribution statique.',
    },
    type: 'string',
    length: [7, 15],
    pattern: IPV4,
    hint: IPV4_HINT,
    default: '192.168.1.50',
    role: 'operator',
    parents: STATIC,
    reboot: true,
  },
  LanNetmask: {
    label: { gb: 'Netmask', de: 'Netzmaske', nl: 'Netmasker', fr: 'Masque de sous-réseau' },
    description: {
      gb: 'IPv4 netmask of the static address.',
      de: 'IPv4-Netzmaske der statischen Adresse.',
      nl: 'IPv4-netmasker van het statische adres.',
      fr: "Masque de sous-réseau IPv4 de l'adresse statique.",
    },
    type: 'string',
    length: [7, 15],
    pattern: new RegExp(`^(${NETMASKS.map((m) => m.replaceAll('.', '\\.')).join('|')})$`),
    hint: {
      gb: 'a netmask from /8 to /30 such as {default}',
      de: 'eine Netzmaske von /8 bis /30 wie {default}',
      nl: 'een netmasker van /8 tot /30 zoals {default}',
      fr: 'un masque de sous-réseau de /8 à /30 tel que {default}',
    },
    default: '255.255.255.0',
    role: 'operator',
    parents: STATIC,
    reboot: true,
  },
  LanGateway: {
    label: { gb: 'Gateway', de: 'Gateway', nl: 'Gateway', fr: 'Passerelle' },
    description: {
      gb: 'IPv4 address of the default gateway for the static address.',
      de: 'IPv4-Adresse des Standard-Gateways für die statische Adresse.',
      nl: 'IPv4-adres van de standaardgateway voor het statische adres.',
      fr: "Adresse IPv4 de la passerelle par défaut pour l'adresse statique.",
    },
    type: 'string',
    length: [7, 15],
    pattern: IPV4,
    hint: IPV4_HINT,
    default: '192.168.1.1',
    role: 'operator',
    parents: STATIC,
    reboot: true,
  },
  GsmEnabled: onOff({
    label: { gb: 'Mobile network', de: 'Mobilfunknetz', nl: 'Mobiel netwerk', fr: 'Réseau mobile' },
    description: {
      gb: 'Connect the backend over the built-in modem instead of the LAN.',
      de: 'Verbindung zum Backend über das eingebaute Modem statt über das LAN.',
      nl: 'Verbind met de backend via de ingebouwde modem in plaats van via het LAN.',
      fr: 'Se connecter au backend par le modem intégré au lieu du réseau local.',
    },
    default: 0,
    role: 'operator',
    reboot: true,
  }),
  GsmApn: {
    label: { gb: 'APN', de: 'APN', nl: 'APN', fr: 'APN' },
    description: {
      gb: 'Access point name of the mobile network provider.',
      de: 'Zugangspunktname (APN) des Mobilfunkanbieters.',
      nl: 'Naam van het toegangspunt (APN) van de mobiele provider.',
      fr: "Nom du point d'accès (APN) de l'opérateur mobile.",
    },
    type: 'string',
    length: [0, 64],
    // APN labels (3GPP TS 23.003): letters, digits and hyphens, separated by dots.
    pattern: /^$|^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
    hint: {
      gb: 'empty or an APN of letters, digits, "-" and dots such as internet.provider.com',
      de: 'leer oder ein APN aus Buchstaben, Ziffern, "-" und Punkten wie internet.provider.de',
      nl: 'leeg of een APN van letters, cijfers, "-" en punten zoals internet.provider.nl',
      fr: 'vide ou un APN de lettres, chiffres, « - » et points tel que internet.operateur.fr',
    },
    default: '',
    role: 'operator',
    parents: [{ name: 'GsmEnabled', value: [1] }],
    reboot: true,
  },
});

export type LanProblem = 'address-is-network' | 'address-is-broadcast' | 'gateway-outside' | 'gateway-is-address';

/** Why the network check refuses a write (services/network.ts networkCheck), in each language. */
export const NETWORK_REASONS: Record<'noNetworkManager' | LanProblem, Text> = {
  'address-is-network': {
    gb: 'makes the static address the network address of its subnet (not a host address)',
    de: 'macht die statische Adresse zur Netzadresse ihres Subnetzes (keine Host-Adresse)',
    nl: 'maakt van het statische adres het netwerkadres van zijn subnet (geen hostadres)',
    fr: "fait de l'adresse statique l'adresse réseau de son sous-réseau (pas une adresse d'hôte)",
  },
  'address-is-broadcast': {
    gb: 'makes the static address the broadcast address of its subnet (not a host address)',
    de: 'macht die statische Adresse zur Broadcast-Adresse ihres Subnetzes (keine Host-Adresse)',
    nl: 'maakt van het statische adres het broadcastadres van zijn subnet (geen hostadres)',
    fr: "fait de l'adresse statique l'adresse de diffusion de son sous-réseau (pas une adresse d'hôte)",
  },
  'gateway-outside': {
    gb: 'puts the gateway outside the subnet of the static address',
    de: 'legt das Gateway außerhalb des Subnetzes der statischen Adresse',
    nl: 'plaatst de gateway buiten het subnet van het statische adres',
    fr: "place la passerelle hors du sous-réseau de l'adresse statique",
  },
  'gateway-is-address': {
    gb: "makes the gateway the controller's own address",
    de: 'macht das Gateway zur eigenen Adresse des Controllers',
    nl: 'maakt van de gateway het eigen adres van de controller',
    fr: "fait de la passerelle l'adresse du contrôleur lui-même",
  },
  noNetworkManager: {
    gb: 'cannot be applied: this controller has no NetworkManager (nmcli)',
    de: 'kann nicht angewendet werden: Dieser Controller hat keinen NetworkManager (nmcli)',
    nl: 'kan niet worden toegepast: deze controller heeft geen NetworkManager (nmcli)',
    fr: "ne peut pas être appliqué : ce contrôleur n'a pas de NetworkManager (nmcli)",
  },
};
