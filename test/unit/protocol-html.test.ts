import * as assert from "node:assert/strict";
import { escapeHtml, renderWebviewHtml, webviewCsp } from "../../src/protocol/webview-html";

const options = {
  nonce: "abcDEF0123456789xyz",
  cspSource: "https://file+.vscode-resource.vscode-cdn.net",
  scriptUri: "https://file+.vscode-resource.vscode-cdn.net/ext/dist/tree.js",
  styleUri: "https://file+.vscode-resource.vscode-cdn.net/ext/media/tree.css",
  codiconUri: "https://file+.vscode-resource.vscode-cdn.net/ext/dist/codicons/codicon.css",
};

describe("webview HTML", () => {
  const html = renderWebviewHtml(options);

  it("sets a strict CSP: no default source, scripts by nonce, styles and fonts from the extension", () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    assert.equal(csp, webviewCsp(options.nonce, options.cspSource).replace(/'/g, "&#39;"));
    const directives = webviewCsp(options.nonce, options.cspSource).split("; ");
    assert.deepEqual(directives, [
      "default-src 'none'",
      `script-src 'nonce-${options.nonce}'`,
      `style-src ${options.cspSource} 'nonce-${options.nonce}'`,
      `font-src ${options.cspSource}`,
    ]);
    assert.ok(!html.includes("unsafe-inline") && !html.includes("unsafe-eval"));
  });

  it("loads the bundle with the nonce and the stylesheets by link", () => {
    assert.ok(html.includes(`<script nonce="${options.nonce}" src="${options.scriptUri}"></script>`));
    assert.ok(html.includes(`href="${options.styleUri}"`));
    assert.ok(html.includes(`href="${options.codiconUri}"`));
    assert.equal((html.match(/<script/g) ?? []).length, 1, "no inline script");
    assert.ok(!/\son[a-z]+=/i.test(html), "no inline event handlers");
    assert.ok(!/\sstyle=/i.test(html), "no inline styles");
  });

  it("escapes the URIs it is given", () => {
    const out = renderWebviewHtml({ ...options, scriptUri: 'x"><script>alert(1)</script>', title: "<b>t</b>" });
    assert.ok(!out.includes("<script>alert(1)"));
    assert.ok(out.includes("&#34;&#62;&#60;script&#62;"));
    assert.ok(out.includes("<title>&#60;b&#62;t&#60;/b&#62;</title>"));
  });

  it("refuses a nonce or a CSP source that could widen the policy", () => {
    assert.throws(() => renderWebviewHtml({ ...options, nonce: "short" }), /nonce/);
    assert.throws(() => renderWebviewHtml({ ...options, nonce: "abcDEF0123456789' 'unsafe-inline" }), /nonce/);
    assert.throws(() => renderWebviewHtml({ ...options, cspSource: "https://x; script-src *" }), /CSP source/);
    assert.throws(() => renderWebviewHtml({ ...options, cspSource: "'unsafe-inline'" }), /CSP source/);
    assert.throws(() => renderWebviewHtml({ ...options, cspSource: "'self' 'unsafe-eval'" }), /CSP source/);
    assert.throws(() => renderWebviewHtml({ ...options, cspSource: "*" }), /CSP source/);
  });

  it("accepts VS Code's multi-source CSP source", () => {
    const out = renderWebviewHtml({ ...options, cspSource: "'self' https://*.vscode-cdn.net" });
    assert.ok(out.includes("style-src &#39;self&#39; https://*.vscode-cdn.net &#39;nonce-"));
  });

  it("escapes the five HTML-significant characters", () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;");
  });
});
