import path from 'node:path';
import type { OpenApiDocument } from './openapi.builder';

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** swagger-ui-dist's directory in the project's own node_modules (no CDN: the reference works offline). */
export const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** Files under /api/v3/docs/: Swagger UI's own, served from SWAGGER_UI_DIR, and ours, served from memory. */
export const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'oauth2-redirect.html', 'oauth2-redirect.js'] as const;

/**
 * Starts Swagger UI on the document. No request leaves the gateway's origin: the validator badge
 * (validator.swagger.io) is off. OAuth "Authorize" runs the authorization code flow with PKCE;
 * it needs a client whose redirect URI is this page's oauth2-redirect.html (docs/oauth-clients.md).
 */
export const DOCS_INIT_JS = `window.addEventListener('load', function () {
  var ui = SwaggerUIBundle({
    url: new URL('openapi.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    filter: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    defaultModelExpandDepth: 2,
    displayRequestDuration: true,
    showExtensions: false,
    validatorUrl: null,
    oauth2RedirectUrl: new URL('docs/oauth2-redirect.html', window.location.href).href,
  });
  ui.initOAuth({ usePkceWithAuthorizationCodeGrant: true, scopes: ['crm'] });
  window.ui = ui;
});
`;

/**
 * Fits Swagger UI to a phone (390 px and up) without horizontal page scrolling: long paths and
 * words wrap, wide tables and code scroll inside their own box. The Servers label loses Swagger
 * UI's 15 px right margin beside its full-width select: Chromium 156.0.8078.108 lays that select
 * out wider and the margin pushed the page 3 px past a 390 px phone.
 */
export const DOCS_CSS = `html { box-sizing: border-box; overflow-y: scroll; }
*, *::before, *::after { box-sizing: inherit; }
body { margin: 0; background: #fafafa; }
.crm-docs-header { font: 14px/1.5 system-ui, sans-serif; padding: .75rem 1rem; background: #1f2933; color: #f5f7fa; }
.crm-docs-header a { color: #9fd3ff; }
.crm-docs-header code { overflow-wrap: anywhere; }
.swagger-ui .wrapper { padding: 0 12px; max-width: 100%; }
.swagger-ui .opblock .opblock-summary { flex-wrap: wrap; }
.swagger-ui .opblock .opblock-summary-path, .swagger-ui .opblock .opblock-summary-path__deprecated,
.swagger-ui .opblock .opblock-summary-description, .swagger-ui .info .title, .swagger-ui .info p,
.swagger-ui .markdown p, .swagger-ui .renderedMarkdown p, .swagger-ui .parameter__name, .swagger-ui .model-title,
.swagger-ui .response-col_description, .swagger-ui .prop-type, .swagger-ui .info a { overflow-wrap: anywhere; word-break: break-word; }
.swagger-ui table { display: block; max-width: 100%; overflow-x: auto; }
.swagger-ui pre, .swagger-ui .highlight-code, .swagger-ui .microlight, .swagger-ui textarea { max-width: 100%; overflow-x: auto; }
.swagger-ui .model-box, .swagger-ui .model-example, .swagger-ui section.models { max-width: 100%; overflow-x: auto; }
.swagger-ui .scheme-container .schemes { flex-wrap: wrap; gap: .5rem; }
.swagger-ui .filter-container .operation-filter-input { max-width: 100%; }
.swagger-ui .servers > label { margin-right: 0; max-width: 100%; }
.swagger-ui .servers > label select { min-width: 0; }
@media (max-width: 600px) {
  .swagger-ui .info { margin: 16px 0; }
  .swagger-ui .info .title { font-size: 24px; }
  .swagger-ui .opblock .opblock-summary-method { min-width: 64px; }
  .swagger-ui .opblock-tag { font-size: 18px; padding: 8px 4px; }
  .swagger-ui .opblock-tag small { display: none; }
  .swagger-ui .parameters-col_name { width: auto; min-width: 7rem; }
  .swagger-ui .opblock-section-header { flex-wrap: wrap; }
  .swagger-ui .btn { margin-top: 4px; }
}
`;

/**
 * The interactive reference: Swagger UI from the project's own dependencies (the page links only
 * files under /api/v3/docs/ and the document). Without JavaScript, a list of the operations.
 */
export function renderDocsPage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(
        ([method, op]) =>
          `<li><code>${escape(method.toUpperCase())} ${escape(path)}</code>: ${escape((op as { summary: string }).summary)}</li>`,
      ),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>CRM API v3 reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="stylesheet" href="docs/docs.css">
</head><body>
<header class="crm-docs-header">CRM API v3 · base URL <code>${escape(doc.servers[0].url)}</code> · <a href="openapi.json">openapi.json</a> (OpenAPI ${escape(doc.openapi)})</header>
<main id="swagger-ui"></main>
<noscript><section style="font:15px/1.5 system-ui,sans-serif;padding:0 1rem"><h1>CRM API v3</h1>
<p>The interactive reference needs JavaScript; the operations are below and the whole document is <a href="openapi.json">openapi.json</a>.</p>
<ul>
${operations}
</ul></section></noscript>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body></html>`;
}

/** Only what the page needs; inline styles because Swagger UI sets style attributes. */
export function docsContentSecurityPolicy(serverUrl: string, authUrl: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${serverUrl} ${authUrl}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}
