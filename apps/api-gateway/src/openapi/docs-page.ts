import type { OpenApiDocument } from './openapi.builder';

const escape = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A self-contained reference page (no external assets) rendered from the OpenAPI document. */
export function renderDocsPage(doc: OpenApiDocument): string {
  const rows = Object.entries(doc.paths)
    .flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => {
        const o = op as {
          operationId: string;
          summary: string;
          parameters: Array<{ name: string; in: string; required: boolean }>;
          requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
        };
        const params = o.parameters
          .map((p) => `<code>${escape(p.name)}</code> <small>(${escape(p.in)}${p.required ? ', required' : ''})</small>`)
          .join(', ');
        const body = o.requestBody
          ? Object.keys(o.requestBody.content['application/json'].schema.properties)
              .map((n) => `<code>${escape(n)}</code>`)
              .join(', ')
          : '';
        return `<tr><td><span class="m ${escape(method)}">${escape(method.toUpperCase())}</span></td><td><code>${escape(path)}</code></td><td>${escape(o.summary)}</td><td>${params}${body ? `<br>body: ${body}` : ''}</td></tr>`;
      }),
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>CRM API v3 reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1a1a1a}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}code{font-size:.9em}.m{font-weight:700;font-size:.8em;padding:.1rem .4rem;border-radius:3px;background:#eee}.get{background:#d8f0e0}.post{background:#dde8fb}.put,.patch{background:#fbefd5}.delete{background:#f8dcdc}</style>
</head><body><main>
<h1>CRM API v3</h1>
<p>Base URL <code>${escape(doc.servers[0].url)}</code>. Authenticate with HTTP Basic (<code>user_id:api_key</code>) or an OAuth bearer token. Every path also answers with a <code>.json</code> suffix. Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<table><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Summary</th><th scope="col">Parameters</th></tr></thead><tbody>
${rows}
</tbody></table></main></body></html>`;
}
