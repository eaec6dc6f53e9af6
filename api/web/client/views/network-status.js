// The network as it is now (extension GET /v1/network, role operator or higher), above the Network settings: the
// interfaces' addresses, MAC and link, the gateway, the DNS servers, and the OCPP and MQTT connections (connected
// since, last error), so a change made from afar is not made blind. A value the controller cannot read is "unknown".
import { useEffect } from 'preact/hooks';
import { call } from '../api.js';
import { dateTime } from '../format.js';
import { t } from '../i18n.js';
import { html, Note, useLoaded } from '../ui.js';

const REFRESH_MS = 10_000;

export function NetworkStatus() {
  const { data, note, reload } = useLoaded(() => call('GET', '/v1/network'));
  useEffect(() => {
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const unknown = t('common.unknown');
  return html`<section class="card" aria-labelledby="net-now" id="network-status">
    <h2 id="net-now">${t('network.now')}</h2>
    <${Note} note=${note} id="network-note" />
    ${!data && !note && html`<p>${t('common.loading')}</p>`}
    ${
      data &&
      html`${data.interfaces.map(
          (i) =>
            html`<dl class="facts" data-interface=${i.name}>
              <div>
                <dt>${t('network.interface')}</dt>
                <dd>${i.name}</dd>
              </div>
              <div>
                <dt>${t('network.link')}</dt>
                <dd>${i.link ? t(`network.link.${i.link === 'up' ? 'up' : i.link === 'down' ? 'down' : 'other'}`, { state: i.link }) : unknown}</dd>
              </div>
              <div>
                <dt>${t('network.mac')}</dt>
                <dd class="code">${i.mac || unknown}</dd>
              </div>
              <div>
                <dt>${t('network.addresses')}</dt>
                <dd class="code">
                  ${i.addresses.map((a) => html`<span class="address">${a.prefix === null ? a.address : `${a.address}/${a.prefix}`}</span> `)}
                </dd>
              </div>
            </dl>`,
        )}
        ${data.interfaces.length === 0 && html`<p>${t('network.noInterfaces')}</p>`}
        <dl class="facts">
          <div>
            <dt>${t('network.gateway')}</dt>
            <dd class="code" id="network-gateway">${data.gateway || unknown}</dd>
          </div>
          <div>
            <dt>${t('network.dns')}</dt>
            <dd class="code" id="network-dns">${data.dns ? data.dns.join(', ') || t('common.none') : unknown}</dd>
          </div>
          <div>
            <dt>${t('network.backend')}</dt>
            <dd id="network-backend">${connection(data.backend)}</dd>
          </div>
          <div>
            <dt>${t('network.mqtt')}</dt>
            <dd id="network-mqtt">${connection(data.mqtt)}</dd>
          </div>
        </dl>`
    }
  </section>`;
}

/** A connection in words: off, connected since …, or not connected with its last error. */
function connection(c) {
  if (!c.configured) return t('network.off');
  const state = c.connected ? t('network.connectedSince', { time: dateTime(c.since) }) : t('network.notConnected');
  const error = c.lastError && t('network.lastError', { reason: c.lastError.reason, time: dateTime(c.lastError.at) });
  return html`${state}${error && html`<br /><span class="hint">${error}</span>`}`;
}
