// Updates (extension GET and POST /v1/updates; role installer or higher; docs/field-service.md#installing-an-update):
// the installed versions (A/B slots), the update on trial, the history, and installing a signed update file with
// the upload's progress. Offered only where the controller runs under its launcher (elsewhere GET answers 404 and
// the view says so). The controller switches to an installed update at the first moment no charge runs; the page
// then finds its session gone and asks for a login, as after any restart.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, request, upload } from '../api.js';
import { dateTime, number } from '../format.js';
import { t } from '../i18n.js';
import { Cell, Heading, html, Note, refusal } from '../ui.js';

const MiB = 1024 * 1024;

export function Updates() {
  const [status, setStatus] = useState(null); // GET /v1/updates, or 'unavailable'
  const [note, setNote] = useState(null);
  const [progress, setProgress] = useState(null); // {sent, total} while and after an upload
  const [result, setResult] = useState(null);
  const [busy, setBusy] = useState(false);

  async function load() {
    try {
      const r = await request('GET', '/v1/updates');
      if (r.status === 404) setStatus('unavailable');
      else if (!r.ok) throw new ApiError(r.status, r.json);
      else setStatus(r.json);
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    }
  }
  useEffect(() => {
    load();
  }, []);

  async function install(event) {
    event.preventDefault();
    const file = event.currentTarget.elements.updateFile.files[0];
    if (!file) return setResult({ kind: 'error', text: t('updates.noFile') });
    if (file.size > status.maxUploadBytes)
      return setResult({ kind: 'error', text: t('updates.tooLarge', { name: file.name, max: status.maxUploadBytes / MiB }) });
    setBusy(true);
    setResult(null);
    setProgress({ sent: 0, total: file.size });
    try {
      const done = await upload('POST', '/v1/updates', file, (sent, total) => setProgress({ sent, total }));
      setResult({ kind: 'ok', text: t('updates.done', { version: done.version, slot: t(`updates.slot.${done.slot}`) }) });
    } catch (err) {
      setResult({ kind: 'error', text: refusal(err) });
    } finally {
      setBusy(false);
      await load();
    }
  }

  const heading = html`<${Heading}>${t('nav.updates')}<//>`;
  if (status === 'unavailable')
    return html`${heading}
      <p class="note info" role="status" id="updates-unavailable">${t('updates.unavailable')}</p>`;
  if (!status) return html`${heading} <${Note} note=${note || { kind: 'info', text: t('common.loading') }} id="updates-note" />`;

  const { active, versions, trial, history } = status;
  const uploaded = progress && progress.total > 0 && progress.sent >= progress.total;
  const labels = { at: t('updates.at'), event: t('updates.event'), version: t('updates.version'), from: t('updates.from'), reason: t('updates.reason') };
  return html`${heading}
    <p class="hint">${t('updates.hint')}</p>
    <${Note} note=${note} id="updates-note" />
    <section class="card" aria-labelledby="updates-installed">
      <h2 id="updates-installed">${t('updates.installed')}</h2>
      <dl class="facts" id="updates-slots">
        ${['base', 'a', 'b'].map(
          (slot) =>
            html`<div data-slot=${slot}>
              <dt>${t(`updates.slot.${slot}`)}</dt>
              <dd>${versions[slot] || t('common.none')}${slot === active ? ` (${t('updates.running')})` : ''}</dd>
            </div>`,
        )}
      </dl>
      ${
        trial &&
        html`<p class="note warning" id="updates-trial">
          ${
            trial.rollingBack
              ? t('updates.rollingBack', { version: trial.version, reason: trial.rollingBack })
              : t('updates.trial', { version: trial.version, slot: t(`updates.slot.${trial.slot}`), attempts: trial.attempts })
          }
        </p>`
      }
    </section>
    <section class="card" aria-labelledby="updates-install">
      <h2 id="updates-install">${t('updates.install')}</h2>
      <p class="hint">${t('updates.installHint', { max: status.maxUploadBytes / MiB })}</p>
      <form onSubmit=${install}>
        <label for="update-file">${t('updates.file')}</label>
        <input type="file" id="update-file" name="updateFile" accept=".ccupdate" disabled=${busy} />
        <div class="actions">
          <button type="submit" id="update-install" disabled=${busy || Boolean(trial)}>${t('updates.upload')}</button>
        </div>
      </form>
      ${
        progress &&
        html`<div class="upload-progress">
          <label for="update-progress">${t('updates.progress')}</label>
          <progress id="update-progress" max=${progress.total} value=${progress.sent}></progress>
          <p role="status" id="update-stage">
            ${
              uploaded && busy
                ? t('updates.installing')
                : t('updates.uploaded', { percent: number(progress.total ? (100 * progress.sent) / progress.total : 0), size: number(progress.total / MiB, 1) })
            }
          </p>
        </div>`
      }
      <${Note} note=${result} id="update-result" />
    </section>
    <section class="card" aria-labelledby="updates-history">
      <h2 id="updates-history">${t('updates.history')}</h2>
      ${
        history.length === 0
          ? html`<p id="update-history-empty">${t('updates.noHistory')}</p>`
          : html`<table class="responsive" id="update-history">
              <thead>
                <tr>
                  ${Object.values(labels).map((l) => html`<th scope="col">${l}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${[...history].reverse().map(
                  (e) =>
                    html`<tr data-event=${e.event}>
                      <${Cell} label=${labels.at} cls="nowrap">${dateTime(e.at)}<//>
                      <${Cell} label=${labels.event}>${t(`updates.event.${e.event}`)}<//>
                      <${Cell} label=${labels.version}>${e.version}${e.slot ? ` (${t(`updates.slot.${e.slot}`)})` : ''}<//>
                      <${Cell} label=${labels.from}>${e.fromVersion || ''}<//>
                      <${Cell} label=${labels.reason}>${e.reason || ''}<//>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
    </section>`;
}
