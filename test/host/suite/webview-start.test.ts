/**
 * A webview whose page never starts gets its page again (watchWebviewStart), in real webview panels of
 * the workbench: a page without a script never says anything, a page whose script posts at once does.
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import { watchWebviewStart } from "../../../src/extension/webview-start";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe("a webview page that never starts", function () {
  this.timeout(60_000);
  const panels: vscode.WebviewPanel[] = [];
  afterEach(() => {
    for (const panel of panels.splice(0)) panel.dispose();
  });

  function open(html: (n: number) => string, options: { afterMs: number; attempts: number }) {
    const panel = vscode.window.createWebviewPanel("arborTest.webviewStart", "Start watch", vscode.ViewColumn.Active, { enableScripts: true });
    panels.push(panel);
    const warnings: string[] = [];
    let renders = 0;
    const render = () => html(++renders);
    panel.webview.html = render();
    let gaveUp = 0;
    const watch = watchWebviewStart(panel.webview, { render, visible: () => panel.visible, name: "test page", log: { warn: (m: string) => void warnings.push(m) }, gaveUp: () => gaveUp++ }, options);
    panel.onDidDispose(() => watch.dispose());
    return { panel, warnings, renders: () => renders, gaveUp: () => gaveUp };
  }

  it("is given its page again while visible, up to the attempts allowed, and each time is logged", async () => {
    const page = open((n) => `<!DOCTYPE html><html><body><p>load ${n}, no script</p></body></html>`, { afterMs: 400, attempts: 2 });
    await until(() => page.warnings.length === 3, "two reloads and the final warning");
    assert.equal(page.renders(), 3, "the first page and two more");
    assert.match(page.warnings[0], /^the test page page did not start within 0\.4 s; loading it again \(1 of 2\)$/);
    assert.match(page.warnings[2], /^The test page did not load \(VS Code never started its webview\)\. Collapse and expand the view, or reload the window\.$/);
    assert.equal(page.gaveUp(), 1, "the user is told once");
    await sleep(1_000);
    assert.equal(page.renders(), 3, "no more after the last attempt");
  });

  it("is left alone once its script has said anything", async () => {
    const afterMs = 8_000;
    const opened = Date.now();
    const page = open(
      () => `<!DOCTYPE html><html><body><script>acquireVsCodeApi().postMessage({ type: "ready" });</script></body></html>`,
      { afterMs, attempts: 2 },
    );
    let said = false;
    page.panel.webview.onDidReceiveMessage(() => (said = true));
    await until(() => said, "the page's message");
    // Past the moment a silent page would have been loaded again.
    await sleep(Math.max(0, opened + afterMs + 500 - Date.now()));
    assert.equal(page.renders(), 1);
    assert.deepEqual(page.warnings, []);
  });
});
