/**
 * How Arbor's webview pages start (watchWebviewStart), in real webview panels of the workbench: a
 * page without a script never says anything and gets its page again, a page whose script posts at
 * once does not. (That pages load one at a time is tested in webview-start-queue.test.ts, and the e2e
 * tier counts every start-up of the real views.)
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import { watchWebviewStart } from "../../../src/extension/webview-start";
import { WebviewStartQueue } from "../../../src/extension/webview-start-queue";
import { until } from "./host-helpers";

const silentPage = (n: number) => `<!DOCTYPE html><html><body><p>load ${n}, no script</p></body></html>`;
const speakingPage = () => `<!DOCTYPE html><html><body><script>acquireVsCodeApi().postMessage({ type: "ready" });</script></body></html>`;

describe("a webview page that never starts", function () {
  this.timeout(60_000);
  const panels: vscode.WebviewPanel[] = [];
  afterEach(() => {
    for (const panel of panels.splice(0)) panel.dispose();
  });

  /** Opens a watched panel in `column`: two panels in one column would hide the first (a hidden page does not load). */
  function open(html: (n: number) => string, options: { afterMs: number; attempts: number }, column = vscode.ViewColumn.One, queue = new WebviewStartQueue(60_000), order?: { readonly name: string; readonly log: string[] }) {
    const panel = vscode.window.createWebviewPanel("arborTest.webviewStart", "Start watch", { viewColumn: column, preserveFocus: true }, { enableScripts: true });
    panels.push(panel);
    const warnings: string[] = [];
    const infos: string[] = [];
    const events: string[] = [];
    let renders = 0;
    const render = () => {
      events.push(`render ${++renders}`);
      order?.log.push(`${order.name} render`);
      return html(renders);
    };
    let gaveUp = 0;
    panel.webview.onDidReceiveMessage(() => {
      events.push("message");
      order?.log.push(`${order.name} message`);
    });
    const watch = watchWebviewStart(panel.webview, {
      render, visible: () => panel.visible, name: "test page", queue,
      log: { warn: (m: string) => void warnings.push(m), info: (m: string) => void infos.push(m) },
      gaveUp: () => gaveUp++,
    }, options);
    panel.onDidDispose(() => watch.dispose());
    return { panel, warnings, infos, events, renders: () => renders, gaveUp: () => gaveUp };
  }

  it("is given its page again while visible, up to the attempts allowed, and each time is logged", async () => {
    const page = open(silentPage, { afterMs: 400, attempts: 2 });
    await until(() => page.warnings.length === 3, "two reloads and the final warning", 20_000);
    assert.equal(page.renders(), 3, "the first page and two more");
    assert.match(page.warnings[0]!, /^the test page page did not start within 0\.4 s; loading it again \(1 of 2\)$/);
    assert.match(page.warnings[2]!, /^The test page did not load \(VS Code never started its webview\)\. Collapse and expand the view, or reload the window\.$/);
    assert.equal(page.gaveUp(), 1, "the user is told once");
    assert.deepEqual(page.infos, [], "no start is logged");
    // A second watch with the same delay, begun after the first gave up: by the time it reloads its
    // page, the first would have reloaded again had it not stopped.
    const later = open(silentPage, { afterMs: 400, attempts: 1 }, vscode.ViewColumn.Two);
    await until(() => later.warnings.length >= 1, "the later page's first reload", 20_000);
    assert.equal(page.renders(), 3, "no more after the last attempt");
  });

  it("is left alone once its script has said anything, and its start is logged", async () => {
    // Long enough for a page to start on a busy machine (a first panel can take 2 s).
    const afterMs = 8_000;
    const page = open(speakingPage, { afterMs, attempts: 2 });
    await until(() => page.events.includes("message"), "the page's message", 20_000);
    // A silent page watched with the same delay, opened after the first: when it is loaded again,
    // the first page's watch would have been due too.
    const silent = open(silentPage, { afterMs, attempts: 1 }, vscode.ViewColumn.Two);
    await until(() => silent.warnings.length >= 1, "the silent page's reload", 20_000);
    assert.equal(page.renders(), 1, `one page: ${JSON.stringify({ events: page.events, infos: page.infos, warnings: page.warnings })}`);
    assert.deepEqual(page.warnings, []);
    assert.equal(page.infos.length, 1);
    assert.match(page.infos[0]!, /^the test page page started \(\d+ ms after its page was set\)$/);
  });
});
