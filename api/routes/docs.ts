import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { FIRMWARE_VERSION } from '../../services/settings/index.js';
import type { Router } from '../types.js';
import { buildDocument, type DocumentedRoute, type JsonSchema } from '../openapi.js';
import { COMPONENTS, NotLoggedIn, OperationFailed } from '../responses.js';
import { pageHeaders } from '../web/assets.js';
import { fileOperation } from '../web/routes.js';
import { packageFile } from '../web/vendor.js';

/**
 * The page's Content-Security-Policy: the web interface's (nothing from elsewhere, no inline script), and images
 * from `data:` URLs, which Swagger UI's style sheet uses for its icons.
 */
const DOCS_HEADERS = (() => {
  const headers = pageHeaders();
  headers['Content-Security-Policy'] = headers['Content-Security-Policy']!.replace("img-src 'self'", "img-src 'self' data:");
  return headers;
})();

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Charge controller API</title>
<link rel="icon" href="/web/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/contrast.css">
<script src="/docs/swagger-ui-bundle.js" defer></script>
<script src="/docs/init.js" defer></script>
</head>
<body>
<div id="swagger-ui"><noscript><p>This page needs JavaScript; the document itself is <a href="/openapi.json">/openapi.json</a>.</p></noscript></div>
</body>
</html>
`;

/** Swagger UI's colours darkened where text on them is too faint (axe colour-contrast, WCAG AA 4.5:1). */
const DOCS_CONTRAST = `.swagger-ui .opblock .opblock-summary-method { color: #fff; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1b5c9e; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #1a7047; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #8a4f00; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b0221b; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #146b5c; }
.swagger-ui .opblock.opblock-head .opblock-summary-method, .swagger-ui .opblock.opblock-options .opblock-summary-method { background: #5a3b8c; }
.swagger-ui .info .title small { background: #4a505c; }
.swagger-ui .info .title small.version-stamp { background: #1a7047; }
.swagger-ui .info .title small pre, .swagger-ui .info .title small .version { color: #fff; }
.swagger-ui .info .url, .swagger-ui .info .url a { color: #1b5c9e; }
.swagger-ui .btn.authorize { color: #1a7047; border-color: #1a7047; }
.swagger-ui .btn.authorize svg { fill: #1a7047; }
.swagger-ui .parameter__in { color: #555; }
.swagger-ui .microlight span, .swagger-ui .highlight-code span { color: #fff !important; }
`;

/** Swagger UI on the document; no validator badge (it would call validator.swagger.io). */
const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'none',
  validatorUrl: null,
  tryItOutEnabled: false,
});
`;

/** The document's own description of itself. */
const OpenApiDocument = v.pipe(
  v.looseObject({ openapi: v.literal('3.1.0'), info: v.looseObject({ title: v.string(), version: v.string() }), paths: v.record(v.string(), v.unknown()) }),
  v.description('OpenAPI 3.1'),
);

/**
 * `GET /openapi.json`, the API document (generated on first request from the routes as registered, then kept), and
 * `/docs`, Swagger UI on it from the controller itself (swagger-ui-dist from node_modules: no CDN). Neither needs a
 * session: they describe the API, they hold no data. Returns the document's builder.
 */
export function documentRoutes(router: Router, routes: readonly DocumentedRoute[]): () => Promise<JsonSchema> {
  let built: Promise<{ document: JsonSchema; text: string }> | undefined;
  const document = () =>
    (built ??= buildDocument({
      routes,
      components: COMPONENTS,
      errors: { operationFailed: OperationFailed, notLoggedIn: NotLoggedIn },
      version: FIRMWARE_VERSION,
    }).then(
      (d) => ({ document: d, text: JSON.stringify(d) }),
      (err: unknown) => {
        built = undefined;
        throw err;
      },
    ));
  const system = { public: true, tag: 'System' };
  router.resource(
    '/openapi.json',
    {
      GET: {
        summary: 'This API document (OpenAPI 3.1)',
        responses: { 200: { description: 'The document', body: OpenApiDocument } },
        handle: async (c) => c.body((await document()).text, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' }),
      },
    },
    system,
  );
  router.resource('/docs', { GET: fileOperation('The API document in Swagger UI', 'text/html; charset=utf-8', () => DOCS_PAGE, DOCS_HEADERS) }, system);
  router.resource(
    '/docs/contrast.css',
    { GET: fileOperation('Swagger UI colours with enough contrast', 'text/css; charset=utf-8', () => DOCS_CONTRAST, DOCS_HEADERS) },
    system,
  );
  router.resource('/docs/init.js', { GET: fileOperation('Swagger UI set-up', 'text/javascript; charset=utf-8', () => DOCS_INIT, DOCS_HEADERS) }, system);
  for (const [path, file, type] of [
    ['/docs/swagger-ui.css', 'swagger-ui.css', 'text/css; charset=utf-8'],
    ['/docs/swagger-ui-bundle.js', 'swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ] as const) {
    const source = packageFile('swagger-ui-dist', file);
    router.resource(path, { GET: fileOperation(`Swagger UI (${file})`, type, () => readFileSync(source), DOCS_HEADERS) }, system);
  }
  return async () => (await document()).document;
}
