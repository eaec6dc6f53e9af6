import type { Message } from './core/system-state.js';
import { inLanguage, type LanguageKey, type Translations } from './i18n.js';

/** The core's messages (services/core/messages.ts) in the other languages, for the API and MQTT. */
type MessageTexts = { message: Translations; correctiveActions: Translations };

/** The messages in German, Dutch and French, by errorCode (English: services/core/messages.ts); a test fails when one is missing. */
export const MESSAGE_TRANSLATIONS: Record<string, MessageTexts> = {
  CP_STATE_E: {
    message: {
      de: 'Control-Pilot-Fehler (Zustand E): Die CP-Leitung ist mit dem Schutzleiter kurzgeschlossen oder die Fahrzeugseite hat keine Spannung',
      nl: 'Control-pilotfout (toestand E): de CP-lijn is kortgesloten met de aarde of de voertuigzijde heeft geen spanning',
      fr: "Erreur du Control Pilot (état E) : la ligne CP est en court-circuit avec la terre ou le côté véhicule n'est pas alimenté",
    },
    correctiveActions: {
      de: 'Fahrzeug abstecken, Ladekabel und Fahrzeugdose auf Schäden prüfen, dann wieder einstecken.',
      nl: 'Koppel het voertuig los, controleer de laadkabel en de laadaansluiting van het voertuig op schade en sluit daarna opnieuw aan.',
      fr: 'Débranchez le véhicule, vérifiez que le câble de charge et la prise du véhicule ne sont pas endommagés, puis rebranchez.',
    },
  },
  CP_STATE_F: {
    message: {
      de: 'Control-Pilot-Fehler: Die CP-Leitung bleibt bei -12 V (Diodenfehler oder Fehler im Pilotkreis der Ladestation)',
      nl: 'Control-pilotfout: de CP-lijn blijft op -12 V (diodefout of fout in het pilotcircuit van het laadstation)',
      fr: 'Erreur du Control Pilot : la ligne CP reste à -12 V (défaut de diode ou du circuit pilote de la borne)',
    },
    correctiveActions: {
      de: 'Fahrzeug abstecken und wieder einstecken; bleibt der Fehler ohne angeschlossenes Fahrzeug bestehen, den Service rufen.',
      nl: 'Koppel het voertuig los en sluit het opnieuw aan; blijft de fout zonder aangesloten voertuig bestaan, bel dan de service.',
      fr: "Débranchez puis rebranchez le véhicule ; si l'erreur persiste sans véhicule branché, appelez le service.",
    },
  },
  CP_STATE_D_NO_VENTILATION: {
    message: {
      de: 'Das Fahrzeug fordert Laden mit Belüftung an (Zustand D), die diese Anlage nicht bietet',
      nl: 'Het voertuig vraagt laden met ventilatie (toestand D), wat deze installatie niet biedt',
      fr: 'Le véhicule demande une recharge avec ventilation (état D), que cette installation ne fournit pas',
    },
    correctiveActions: {
      de: 'Dieses Fahrzeug an einem belüfteten Ladepunkt laden.',
      nl: 'Laad dit voertuig bij een geventileerd laadpunt.',
      fr: 'Rechargez ce véhicule sur un point de charge ventilé.',
    },
  },
  CONTACTOR_WELDED: {
    message: {
      de: 'Das Schütz meldet geschlossen, obwohl es geöffnet werden sollte (verschweißte Kontakte)',
      nl: 'De magneetschakelaar meldt gesloten terwijl hij geopend moest worden (vastgelaste contacten)',
      fr: "Le contacteur est signalé fermé alors qu'il devait être ouvert (contacts soudés)",
    },
    correctiveActions: {
      de: 'Die Versorgung des Ladepunkts am Leitungsschutzschalter abschalten und den Service rufen.',
      nl: 'Schakel de voeding van het laadpunt uit met de installatieautomaat en bel de service.',
      fr: "Coupez l'alimentation du point de charge au disjoncteur et appelez le service.",
    },
  },
  CONTACTOR_NOT_CLOSING: {
    message: {
      de: 'Das Schütz hat auf Befehl nicht geschlossen',
      nl: 'De magneetschakelaar sloot niet na het commando',
      fr: "Le contacteur ne s'est pas fermé sur commande",
    },
    correctiveActions: {
      de: 'Fahrzeug abstecken, um es erneut zu versuchen; tritt es wieder auf, den Service das Schütz und seine Versorgung prüfen lassen.',
      nl: 'Koppel het voertuig los om het opnieuw te proberen; gebeurt het weer, laat de service dan de magneetschakelaar en de voeding ervan controleren.',
      fr: 'Débranchez le véhicule pour réessayer ; si cela se reproduit, faites vérifier le contacteur et son alimentation par le service.',
    },
  },
  OVERTEMPERATURE: {
    message: {
      de: 'Die Temperatur im Ladepunkt ist zu hoch (80 °C oder mehr): Das Laden ist gestoppt',
      nl: 'De temperatuur in het laadpunt is te hoog (80 °C of meer): het laden is gestopt',
      fr: "La température à l'intérieur du point de charge est trop élevée (80 °C ou plus) : la recharge est arrêtée",
    },
    correctiveActions: {
      de: 'Unter 75 °C wird das Laden von selbst fortgesetzt. Den Ladepunkt beschatten und seine Lüftungsöffnungen freihalten.',
      nl: 'Onder 75 °C gaat het laden vanzelf verder. Zorg voor schaduw op het laadpunt en houd de ventilatieopeningen vrij.',
      fr: "La recharge reprend d'elle-même en dessous de 75 °C. Mettez le point de charge à l'ombre et dégagez ses aérations.",
    },
  },
  HIGH_TEMPERATURE: {
    message: {
      de: 'Die Temperatur im Ladepunkt ist hoch (60 °C oder mehr)',
      nl: 'De temperatuur in het laadpunt is hoog (60 °C of meer)',
      fr: "La température à l'intérieur du point de charge est élevée (60 °C ou plus)",
    },
    correctiveActions: {
      de: 'Den Ladepunkt beschatten und seine Lüftungsöffnungen freihalten; bei 80 °C stoppt das Laden.',
      nl: 'Zorg voor schaduw op het laadpunt en houd de ventilatieopeningen vrij; bij 80 °C stopt het laden.',
      fr: "Mettez le point de charge à l'ombre et dégagez ses aérations ; la recharge s'arrête à 80 °C.",
    },
  },
  TEMPERATURE_SENSOR_FAILURE: {
    message: {
      de: 'Der Temperatursensor antwortet nicht: Der Übertemperaturschutz ist nicht verfügbar',
      nl: 'De temperatuursensor antwoordt niet: de beveiliging tegen oververhitting is niet beschikbaar',
      fr: "Le capteur de température ne répond pas : la protection contre la surchauffe n'est pas disponible",
    },
    correctiveActions: {
      de: 'Den Service den Temperatursensor und seine Verkabelung prüfen lassen.',
      nl: 'Laat de service de temperatuursensor en de bedrading controleren.',
      fr: 'Faites vérifier le capteur de température et son câblage par le service.',
    },
  },
  METER_NOT_RESPONDING: {
    message: {
      de: 'Der Energiezähler antwortet nicht: Verbrauch und Leistung werden nicht aktualisiert',
      nl: 'De energiemeter antwoordt niet: verbruik en vermogen worden niet bijgewerkt',
      fr: "Le compteur d'énergie ne répond pas : la consommation et la puissance ne sont pas mises à jour",
    },
    correctiveActions: {
      de: 'Verkabelung (RS485) und Versorgung des Zählers prüfen; die Transaktion behält den letzten Zählerstand.',
      nl: 'Controleer de bedrading (RS485) en de voeding van de meter; de transactie behoudt de laatste meterstand.',
      fr: "Vérifiez le câblage (RS485) et l'alimentation du compteur ; la transaction conserve le dernier relevé.",
    },
  },
  UPDATE_WAITING: {
    message: {
      de: 'Ein Update ist installiert: Der laufende Ladevorgang wird beendet, kein neuer beginnt, bis der Controller mit dem Update läuft',
      nl: 'Er is een update geïnstalleerd: de lopende laadsessie wordt afgemaakt, er start geen nieuwe tot de controller met de update opnieuw is gestart',
      fr: 'Une mise à jour est installée : la recharge en cours est terminée, aucune nouvelle ne commence avant le redémarrage sur la mise à jour',
    },
    correctiveActions: {
      de: 'Keine: Der Controller startet mit dem Update neu, sobald kein Ladevorgang läuft; danach ist Laden wieder möglich.',
      nl: 'Geen: de controller start met de update opnieuw zodra er geen laadsessie loopt; daarna kan er weer geladen worden.',
      fr: "Aucune : le contrôleur redémarre sur la mise à jour dès qu'aucune recharge n'est en cours ; on peut recharger après le redémarrage.",
    },
  },
};

/** A message in `lang` (spec 2.14; the errorCode and severity never change). */
export function messageIn(lang: LanguageKey, m: Message): Message {
  const t = MESSAGE_TRANSLATIONS[m.errorCode];
  const out: Message = { ...m, message: inLanguage(lang, m.message, t?.message) };
  if (m.correctiveActions !== undefined) out.correctiveActions = inLanguage(lang, m.correctiveActions, t?.correctiveActions);
  return out;
}
