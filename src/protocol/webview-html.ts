/** What the host fills in: a fresh nonce and the webview URIs of the built assets. */
export interface WebviewHtmlOptions {
  /** Fresh per render: base64 or hex, at least 16 characters. */
  nonce: string;
  /** `webview.cspSource`. */
  cspSource: string;
  /** `asWebviewUri(dist/tree.js)`. */
  scriptUri: string;
  /** `asWebviewUri(media/tree.css)`. */
  styleUri: string;
  /** `asWebviewUri(dist/codicons/codicon.css)`. */
  codiconUri: string;
  /** The document title (screen readers announce it). */
  title?: string;
  /** Allows `data:` images (the chat shows images carried by messages; nothing else may load). */
  dataImages?: boolean;
  /** "view": the side bar (details under the tree, for summaries); "editor": an editor tab (details of the selected entry beside the tree). */
  layout?: "view" | "editor";
}

const NONCE = /^[A-Za-z0-9+/=_-]{16,128}$/;
// A CSP source list (VS Code gives e.g. "'self' https://*.vscode-cdn.net") must not be able to end
// the directive, add another one, or widen it: host sources and the 'self' keyword, space-separated;
// no 'unsafe-*' keywords and no bare "*".
const CSP_SOURCE = /^(?:'self'|[^;,'"\s<>*][^;,'"\s<>]*)(?: (?:'self'|[^;,'"\s<>*][^;,'"\s<>]*)){0,15}$/;

/** Escapes text for an HTML attribute value or text node. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The Content-Security-Policy the webviews run under. */
export function webviewCsp(nonce: string, cspSource: string, dataImages = false): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    ...(dataImages ? ["img-src data:"] : []),
  ].join("; ");
}

/**
 * The whole HTML document of a webview (the Conversation Tree, the Chat), with a strict CSP: scripts only by
 * nonce, styles and fonts only from the extension. Throws on a nonce or CSP source that could
 * widen the policy, rather than emitting a weaker one. The `csp-nonce` meta is where the form
 * controls' library looks for the nonce of the one probe `<style>` it creates.
 */
export function renderWebviewHtml(options: WebviewHtmlOptions): string {
  const { nonce, cspSource } = options;
  if (!NONCE.test(nonce)) throw new Error("renderWebviewHtml: the nonce must be 16-128 base64 or hex characters");
  if (!CSP_SOURCE.test(cspSource)) throw new Error(`renderWebviewHtml: unusable CSP source ${JSON.stringify(cspSource)}`);
  const attr = escapeHtml;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(webviewCsp(nonce, cspSource, options.dataImages === true))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<meta property="csp-nonce" content="${attr(nonce)}">
<link rel="stylesheet" href="${attr(options.codiconUri)}" nonce="${attr(nonce)}">
<link rel="stylesheet" href="${attr(options.styleUri)}" nonce="${attr(nonce)}">
<title>${escapeHtml(options.title ?? "Conversation Tree")}</title>
</head>
<body data-layout="${options.layout === "editor" ? "editor" : "view"}">
<div id="app" class="app"></div>
<script nonce="${attr(nonce)}" src="${attr(options.scriptUri)}"></script>
</body>
</html>
`;
}
