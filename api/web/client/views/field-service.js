// Field service (extension /v1/backup, /v1/backup/restore, /v1/factory-reset, /v1/diagnostics; role installer or
// higher): download a backup or the diagnostics bundle, restore a backup (optionally keeping this controller's network
// settings and identity), factory reset. Restore and reset restart the controller: the page then waits until the old
// session is unknown and shows the login.
import { useState } from 'preact/hooks';
import { ApiError, call, request, restarting, session } from '../api.js';
import { t } from '../i18n.js';
import { ConfirmButton, Heading, html, Note, refusal } from '../ui.js';

const RESTART_POLL_MS = 1000;

/** Waits for the restart: a call with the old session answers 401 once the controller is back (api.js logs out). */
async function awaitRestart() {
  restarting.value = true;
  const current = session.peek();
  while (session.peek() === current) {
    await new Promise((resolve) => setTimeout(resolve, RESTART_POLL_MS));
    await request('GET', '/v1/session').catch(() => undefined);
  }
}

/** The file as base64 (in slices: one String.fromCharCode call per byte range stays within the argument limit). */
async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function FieldService() {
  const [note, setNote] = useState(null);
  const [busy, setBusy] = useState(false);
  const run = async (work, ok) => {
    setBusy(true);
    setNote(null);
    try {
      await work();
      if (ok) setNote({ kind: 'ok', text: ok });
    } catch (err) {
      setNote({ kind: 'error', text: refusal(err) });
    } finally {
      setBusy(false);
    }
  };

  const download = (path, ok) =>
    run(async () => {
      let res;
      try {
        res = await fetch(path, { headers: { Authorization: session.peek().id }, cache: 'no-store' });
      } catch {
        throw new ApiError(0, null);
      }
      if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
      const name = (/filename="([^"]+)"/.exec(res.headers.get('content-disposition') || '') || [])[1] || 'charge-controller.gz';
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = name;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }, ok);

  async function restore(event) {
    event.preventDefault();
    const f = event.currentTarget.elements;
    const file = f.backupFile.files[0];
    if (!file) return setNote({ kind: 'error', text: t('service.noFile') });
    if (!window.confirm(t('service.restoreConfirm', { name: file.name }))) return;
    await run(async () => {
      await call('POST', '/v1/backup/restore', { backup: await base64Of(file), keepNetwork: f.keepNetwork.checked, keepIdentity: f.keepIdentity.checked });
      await awaitRestart();
    });
  }

  const factoryReset = () =>
    run(async () => {
      const { confirmation } = await call('POST', '/v1/factory-reset');
      if (!window.confirm(t('service.resetConfirmAgain'))) return;
      await call('POST', '/v1/factory-reset', { confirmation });
      await awaitRestart();
    });

  return html`<${Heading}>${t('nav.service')}<//>
    <${Note} note=${note} id="service-note" />
    <section class="card" aria-labelledby="service-backup">
      <h2 id="service-backup">${t('service.backup')}</h2>
      <p class="hint">${t('service.backupHint')}</p>
      <div class="actions">
        <button type="button" id="download-backup" disabled=${busy} onClick=${() => download('/v1/backup', t('service.downloaded'))}>
          ${t('service.download')}
        </button>
      </div>
    </section>
    <section class="card" aria-labelledby="service-diagnostics">
      <h2 id="service-diagnostics">${t('service.diagnostics')}</h2>
      <p class="hint">${t('service.diagnosticsHint')}</p>
      <div class="actions">
        <button type="button" id="download-diagnostics" disabled=${busy} onClick=${() => download('/v1/diagnostics', t('service.diagnosticsDownloaded'))}>
          ${t('service.diagnosticsDownload')}
        </button>
      </div>
    </section>
    <section class="card" aria-labelledby="service-restore">
      <h2 id="service-restore">${t('service.restore')}</h2>
      <p class="hint">${t('service.restoreHint')}</p>
      <form onSubmit=${restore}>
        <label>${t('service.file')} <input type="file" name="backupFile" accept=".ccbackup,application/gzip" /></label>
        <label><input type="checkbox" name="keepNetwork" /> ${t('service.keepNetwork')}</label>
        <label><input type="checkbox" name="keepIdentity" /> ${t('service.keepIdentity')}</label>
        <div class="actions"><button type="submit" class="danger" id="restore-backup" disabled=${busy}>${t('service.restoreButton')}</button></div>
      </form>
    </section>
    <section class="card" aria-labelledby="service-reset">
      <h2 id="service-reset">${t('service.reset')}</h2>
      <p class="hint">${t('service.resetHint')}</p>
      <div class="actions">
        <${ConfirmButton} label=${t('service.resetButton')} question=${t('service.resetConfirm')} disabled=${busy} onConfirm=${factoryReset} />
      </div>
    </section>`;
}
