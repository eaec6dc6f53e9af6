import type { ChargeSettings } from '../machines/charge-cycle.js';
import type { ChargingService } from './charging.js';
import type { LogLevel } from './logger.js';
import { mqttOptionsOf, type MqttOptions } from './mqtt/options.js';
import type { NfcService } from './nfc/index.js';
import type { Settings } from './settings/index.js';
import { PHASE_SWITCH_MODES, type PhaseSwitchMode } from './core/phase-switch-mode.js';

/**
 * The settings that take effect at once, handed to the features that obey them (the settings mechanism itself knows
 * no feature's code, so it imports none of them).
 */

/** What the charge cycle obeys, from the settings. */
export function chargeSettingsOf(settings: Pick<Settings, 'get'>): ChargeSettings {
  return {
    freeCharging: settings.get('FreeCharging') === 1,
    chargingEnabled: settings.get('ChargingEnabled') === 1,
    ventilationAvailable: settings.get('Ventilation') === 1,
    authTimeoutMs: settings.get('AuthTimeout') * 1000,
    maxCurrentA: Math.min(settings.get('MaxCurrent'), ...settings.get('PhaseCurrentLimits')),
  };
}

const LOG_LEVEL_OF = { 0: 'error', 1: 'warn', 2: 'info', 3: 'debug' } as const;

/** The phase switching mode the core obeys, from the setting PhaseSwitchMode. */
export function phaseSwitchModeOf(settings: Pick<Settings, 'get'>): PhaseSwitchMode {
  return PHASE_SWITCH_MODES[settings.get('PhaseSwitchMode')] ?? 'auto';
}

/**
 * Applies the settings that take effect at once: charge cycle, local whitelist use, reader mode, log level (unless
 * LOG_LEVEL is set, which wins; see createLogLevel), MQTT.
 */
export function applySettings(
  settings: Pick<Settings, 'get'>,
  to: { charging: ChargingService; logLevel: LogLevel; nfc: Pick<NfcService, 'setRfidMode'>; mqtt: { configure(options: MqttOptions): void } },
): void {
  to.charging.applySettings(chargeSettingsOf(settings));
  to.charging.setPhaseSwitch({ mode: phaseSwitchModeOf(settings) });
  to.nfc.setRfidMode(settings.get('RFIDMode') === 1 ? 'hybrid' : 'rfid');
  to.charging.setLocalWhitelist(settings.get('FLLEnabled') === 1);
  to.logLevel.applySetting(LOG_LEVEL_OF[settings.get('LogLevel')] ?? 'info');
  to.mqtt.configure(mqttOptionsOf(settings));
}
