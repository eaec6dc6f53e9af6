import type { ChargingService } from '../charging.js';
import type { LogLevel } from '../logger.js';
import { mqttOptionsOf, type MqttOptions } from '../mqtt/options.js';
import type { NfcService } from '../nfc/index.js';
import { chargeSettingsOf, type Settings } from './index.js';

const LOG_LEVEL_OF: Record<number, string> = { 0: 'error', 1: 'warn', 2: 'info', 3: 'debug' };

/**
 * Applies the settings that take effect at once: charge cycle, local whitelist use, reader mode, log level (unless
 * LOG_LEVEL is set, which wins; see createLogLevel), MQTT.
 */
export function applySettings(
  settings: Pick<Settings, 'get'>,
  to: { charging: ChargingService; logLevel: LogLevel; nfc: Pick<NfcService, 'setRfidMode'>; mqtt: { configure(options: MqttOptions): void } },
): void {
  to.charging.applySettings(chargeSettingsOf(settings));
  to.nfc.setRfidMode(settings.get('RFIDMode') === 1 ? 'hybrid' : 'rfid');
  to.charging.setLocalWhitelist(settings.get('FLLEnabled') === 1);
  to.logLevel.applySetting(LOG_LEVEL_OF[settings.get('LogLevel') as number] ?? 'info');
  to.mqtt.configure(mqttOptionsOf(settings));
}
