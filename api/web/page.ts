import { IMPORT_MAP_SCRIPT } from './vendor.js';

/**
 * The start of a page of the controller up to its body: the import map, style sheets, then scripts (`defer` classic
 * scripts run before the module, in this order). Shared by the web interface and the inspector.
 */
export function pageHead(p: { title: string; icon: string; styles: string[]; classicScripts?: string[]; module: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${p.title}</title>
<link rel="icon" href="${p.icon}" type="image/svg+xml">
${p.styles.map((href) => `<link rel="stylesheet" href="${href}">\n`).join('')}${IMPORT_MAP_SCRIPT}
${(p.classicScripts ?? []).map((src) => `<script src="${src}" defer></script>\n`).join('')}<script type="module" src="${p.module}"></script>
</head>
`;
}

/**
 * The web interface's page (`/`): a shell that loads the application (api/web/client/app.js, an ES module) and
 * its libraries from the controller. Everything else is rendered by the application; it needs JavaScript.
 */
export const PAGE_HTML = `${pageHead({
  title: 'Charge controller',
  icon: '/web/icon.svg',
  styles: ['/web/vendor/uplot.css', '/web/app.css'],
  classicScripts: ['/web/vendor/uplot.js'],
  module: '/web/app.js',
})}<body>
<div id="app"><p class="loading">Charge controller: loading…</p><noscript><p>This web interface needs JavaScript.</p></noscript></div>
</body>
</html>
`;
