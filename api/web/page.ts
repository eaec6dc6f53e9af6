import { IMPORT_MAP_SCRIPT } from './vendor.js';

/**
 * The web interface's page (`/`): a shell that loads the application (api/web/client/app.js, an ES module) and
 * its libraries from the controller. Everything else is rendered by the application; it needs JavaScript.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>Charge controller</title>
<link rel="icon" href="/web/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/web/vendor/uplot.css">
<link rel="stylesheet" href="/web/app.css">
${IMPORT_MAP_SCRIPT}
<script src="/web/vendor/uplot.js" defer></script>
<script type="module" src="/web/app.js"></script>
</head>
<body>
<div id="app"><p class="loading">Charge controller: loading…</p><noscript><p>This web interface needs JavaScript.</p></noscript></div>
</body>
</html>
`;
