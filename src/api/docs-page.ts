/**
 * The docs page (`/docs`): the OpenAPI document rendered as one self-contained HTML page — no script, no
 * stylesheet, no font from anywhere, so it works on a machine without internet and under a strict CSP.
 */
import type { JsonSchema } from './openapi';

const escape = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function resolve(document: JsonSchema, schema: unknown): unknown {
  const target = (schema as { $ref?: string } | undefined)?.$ref;
  if (typeof target !== 'string') return schema;
  const name = target.split('/').pop() ?? '';
  return (document.components as { schemas: Record<string, unknown> }).schemas[name];
}

/** The HTML of the docs page. */
export function renderDocsPage(document: JsonSchema): string {
  const info = document.info as { title: string; version: string; description: string };
  const sections: string[] = [];
  for (const [path, methods] of Object.entries(
    document.paths as Record<string, Record<string, JsonSchema>>,
  )) {
    for (const [method, operation] of Object.entries(methods)) {
      const body = (operation.requestBody as { content?: Record<string, { schema: unknown }> } | undefined)
        ?.content?.['application/json']?.schema;
      const responses = Object.entries(operation.responses as Record<string, { description: string }>)
        .map(([status, response]) => `<li><code>${status}</code> ${escape(response.description)}</li>`)
        .join('');
      sections.push(
        `<section><h2><code>${method.toUpperCase()} ${escape(path)}</code></h2>` +
          `<p><strong>${escape(String(operation.summary))}</strong></p>` +
          `<p>${escape(String(operation.description)).replace(/\n\n/g, '</p><p>')}</p>` +
          (body === undefined
            ? ''
            : `<details><summary>Request body schema</summary><pre>${escape(JSON.stringify(resolve(document, body), null, 2))}</pre></details>`) +
          `<ul>${responses}</ul></section>`,
      );
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:1rem;overflow:auto}section{border-top:1px solid #ddd}</style>
</head><body><h1>${escape(info.title)} <small>${escape(info.version)}</small></h1>
<p>${escape(info.description)}</p><p>The machine-readable document: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
${sections.join('\n')}
</body></html>`;
}
