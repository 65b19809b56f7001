import { createHash } from "node:crypto";
import { escapeHtml } from "../../protocol/webview-html";
import { exportTitle } from "./page-model";
import { EXPORT_APP_ELEMENT_ID, EXPORT_DATA_ELEMENT_ID, encodeExportData, type ExportPageData } from "./page-data";

/** The page's own code and style, inlined into every export (built from webview/export/). */
export interface ExportAssets {
  script: string;
  style: string;
}

/** The CSP source that allows exactly this inline text: `'sha256-<base64>'`. */
export function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * The policy of an exported page: nothing may load or run but the page's own inline script and
 * style (allowed by hash, so a script that session text might smuggle in has no way to match),
 * images only from `data:` URLs (those inside the session's messages), no base URL, no forms.
 */
export function exportCsp(assets: ExportAssets): string {
  return [
    "default-src 'none'",
    `script-src ${cspHash(assets.script)}`,
    `style-src ${cspHash(assets.style)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/** The HTML parser turns CR LF into LF inside an element: hash what the browser will hash. */
function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * Script text that can sit between `<script>` tags. Only two sequences matter to the HTML parser
 * there: `</script`, which ends the element, and `<!--`, which starts the "escaped" states where a
 * later `<script` keeps the real end tag from ending it. A bundler prints both only inside string,
 * template or regular-expression literals and comments (never as code), where `\x3C` means `<`:
 * so each such `<` is written `\x3C`. An odd run of backslashes before it was an identity escape
 * (`\<`) and gives up one backslash, so the escape stays an escape.
 */
export function inlineScriptText(js: string): string {
  const out = normalizeNewlines(js).replace(/(\\*)<(?=!--|\/script)/gi, (_m, slashes: string) => `${slashes.length % 2 ? slashes.slice(1) : slashes}\\x3C`);
  if (/<!--|<\/script/i.test(out)) throw new Error("export page: the script cannot be inlined safely");
  return out;
}

/** Style text that can sit between `<style>` tags: ours never holds `</style`; refuse rather than break the page. */
export function inlineStyleText(css: string): string {
  if (/<\/style/i.test(css)) throw new Error('export page: the stylesheet contains "</style" and cannot be inlined');
  return normalizeNewlines(css);
}

/**
 * One self-contained HTML document: a strict CSP, the page's own style and script inline, and the
 * session as JSON in a data element the script reads. The only session text outside the JSON is
 * the title, escaped. Nothing from the session is ever markup here; the page renders it as text
 * or as sanitised markdown.
 */
export function renderExportHtml(data: ExportPageData, assets: ExportAssets): string {
  const page: ExportAssets = { script: inlineScriptText(assets.script), style: inlineStyleText(assets.style) };
  const title = `${exportTitle(data.session.name, data.entries, data.session.id)} · Arbor session`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(exportCsp(page))}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta name="generator" content="${escapeHtml(data.generator)}">
<title>${escapeHtml(title)}</title>
<style>${page.style}</style>
</head>
<body>
<noscript><p class="noscript">This page draws the session with JavaScript, which is turned off. The session itself is in this file as JSON (the element with id "${EXPORT_DATA_ELEMENT_ID}").</p></noscript>
<div id="${EXPORT_APP_ELEMENT_ID}" class="app"></div>
<script type="application/json" id="${EXPORT_DATA_ELEMENT_ID}">${encodeExportData(data)}</script>
<script>${page.script}</script>
</body>
</html>
`;
}
