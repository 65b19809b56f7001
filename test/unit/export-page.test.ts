/**
 * The HTML export opened in Chromium from a file, as a reader opens it: the tree and the transcript
 * are drawn, another leaf can be picked, and a session full of `<script>`, `onerror=` and
 * `javascript:` text runs nothing. The detector is checked against deliberately unescaped pages,
 * so this test fails when escaping fails. Skipped only when /usr/bin/chromium is missing.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { renderSessionExport, type ExportAssets } from "../../src/core/export";
import { SessionManager } from "../../src/core/session/session-manager";
import { buildTranscript } from "../../src/core/transcript";
import { chromiumFlags } from "../e2e/harness/browser";
import { exportAssets } from "../support/export-build";
import { PAYLOADS, writeExportFixture, type ExportFixture } from "../support/export-fixtures";
import { makeTempDir } from "../support/temp-dir";
import { CHROMIUM_PATH, chromiumAvailable, waitForPage } from "../support/webview-harness";

/** Runs in every frame before the page: records CSP violations (which reveal a blocked injection). */
const PROBE = `(() => {
  window.__probe = { violations: [] };
  document.addEventListener("securitypolicyviolation", (e) => window.__probe.violations.push(e.violatedDirective + " " + e.blockedURI + " " + (e.sample || "")), true);
})();`;

/** Everything that shows session text ran, or tried to, or became live markup. */
const EVIDENCE = `(() => {
  const found = [];
  if (window.__pwned !== undefined) found.push("window.__pwned = " + window.__pwned);
  for (const v of window.__probe.violations) found.push("CSP violation: " + v);
  const scripts = [...document.querySelectorAll("script")].filter((s) => s.type !== "application/json");
  if (scripts.length !== 1) found.push(scripts.length + " executable script elements");
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      if (/^on/i.test(attr.name)) found.push("handler attribute " + attr.name + " on <" + el.localName + ">");
      if (/^\\s*javascript:/i.test(attr.value)) found.push("javascript: URL in " + attr.name + " of <" + el.localName + ">");
    }
  }
  for (const sel of ["iframe", "object", "embed", "svg", "meta[http-equiv=refresh]", "#app style", "#app link", "form"]) {
    const n = document.querySelectorAll(sel).length;
    if (n) found.push(n + " x " + sel);
  }
  for (const img of document.querySelectorAll("img")) if (!img.src.startsWith("data:image/")) found.push("img from " + img.src);
  for (const a of document.querySelectorAll("a[href]")) if (!/^(https?:|mailto:)/i.test(a.getAttribute("href"))) found.push("link to " + a.getAttribute("href"));
  return found;
})()`;

interface Opened {
  page: Page;
  /** Dialogs, "PWNED" logs, page errors and requests that left the file. */
  events: string[];
}

describe("HTML export in Chromium", function () {
  this.timeout(90_000);
  let browser: Browser;
  let tmp: ReturnType<typeof makeTempDir>;
  let assets: ExportAssets;
  let plain: ExportFixture;
  let plainHtml: string;
  let hostileHtml: string;

  const write = (name: string, html: string): string => {
    const file = join(tmp.dir, name);
    writeFileSync(file, html);
    return file;
  };

  const open = async (file: string, hash = ""): Promise<Opened> => {
    const events: string[] = [];
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.addInitScript(PROBE);
    page.on("dialog", (d) => {
      events.push(`dialog ${d.type()}: ${d.message()}`);
      void d.dismiss();
    });
    page.on("console", (m) => {
      if (/PWNED/.test(m.text())) events.push(`console: ${m.text()}`);
    });
    page.on("pageerror", (e) => events.push(`page error: ${e.message}`));
    page.on("request", (r) => {
      if (!/^(file|data):/.test(r.url())) events.push(`request: ${r.url()}`);
    });
    await page.goto(pathToFileURL(file).href + hash);
    await new Promise((r) => setTimeout(r, 300));
    return { page, events };
  };

  /** Draws every row and item the page can show: all entries in the tree, every branch's transcript, every fold open. */
  const exercise = async (page: Page): Promise<void> => {
    await page.selectOption(".tree-filter select", "all");
    const ids = (await page.evaluate(`[...new Set(JSON.parse(document.getElementById("arbor-session-data").textContent).entries.map((e) => e.id))]`)) as string[];
    for (const id of ids) {
      await page.evaluate(`location.hash = "#leaf=" + encodeURIComponent(${JSON.stringify(id)})`);
      await page.evaluate(`document.querySelectorAll("details").forEach((d) => (d.open = true))`);
    }
    await page.evaluate(`(() => { const t = document.querySelector(".tree"); t.scrollTop = t.scrollHeight; t.dispatchEvent(new Event("scroll")); })()`);
    await new Promise((r) => setTimeout(r, 200));
  };

  const evidence = async (opened: Opened): Promise<string[]> => [...((await opened.page.evaluate(EVIDENCE)) as string[]), ...opened.events];

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    tmp = makeTempDir();
    assets = await exportAssets(tmp.dir);
    mkdirSync(join(tmp.dir, "plain"));
    mkdirSync(join(tmp.dir, "hostile"));
    plain = writeExportFixture(join(tmp.dir, "plain"));
    const hostile = writeExportFixture(join(tmp.dir, "hostile"), { hostile: true });
    const render = async (file: string) => renderSessionExport(await SessionManager.open(file, { readOnly: true }), { format: "html", generator: "Arbor test", assets });
    plainHtml = write("plain.html", await render(plain.file));
    hostileHtml = write("hostile.html", await render(hostile.file));
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...chromiumFlags], headless: true });
  });
  after(async () => {
    await browser?.close();
    tmp?.cleanup();
  });

  it("draws the tree and the transcript of the exported leaf", async () => {
    const { page, events } = await open(plainHtml);
    await waitForPage(page, `document.querySelectorAll(".item").length > 0`);
    const sm = await SessionManager.open(plain.file, { readOnly: true });
    const items = buildTranscript(sm.getBranch());
    assert.equal(await page.evaluate(`document.querySelectorAll(".transcript .item").length`), items.length);
    assert.equal(await page.evaluate(`document.querySelector("h1").textContent`), "Parser: tolerate torn lines");
    const rows = (await page.evaluate(`[...document.querySelectorAll(".tree .row")].map((r) => ({ id: r.dataset.entryId, path: r.classList.contains("on-path"), leaf: r.classList.contains("shown-leaf"), text: r.textContent }))`)) as { id: string; path: boolean; leaf: boolean; text: string }[];
    // The default filter hides model, thinking-level, label, custom and name entries, as the Conversation Tree does.
    const shown = sm.getSummaries().filter((s) => !["model_change", "thinking_level_change", "label", "custom", "session_info"].includes(s.type));
    assert.deepEqual(rows.map((r) => r.id).sort(), shown.map((s) => s.id).sort());
    assert.ok(rows.find((r) => r.id === plain.ids.a2)!.text.includes("diagnosis"), "labels are badges");
    assert.ok(rows.filter((r) => r.leaf).length === 1, "one row marks the shown leaf");
    assert.ok(!rows.find((r) => r.id === plain.otherLeafId)!.path, "the other branch is off the path");
    const text = (await page.evaluate(`document.querySelector(".transcript").innerText`)) as string;
    for (const expected of ["Fix the parser", "Let me read the parser", "The parser splits on newlines", "FAIL parser.test.ts", "Run the benchmarks before merging.", "429 rate limited", "Adding the te"]) assert.ok(text.includes(expected), expected);
    assert.ok(!text.includes("NOT DISPLAYED"));
    // Markdown is rendered (sanitised): bold, highlighted code in tool arguments, the PNG from the message, not the SVG.
    assert.equal(await page.evaluate(`document.querySelector(".item-user strong")?.textContent`), "parser");
    assert.ok(await page.evaluate(`document.querySelectorAll(".tool-arguments code.hljs .hljs-attr").length > 0`));
    assert.equal(await page.evaluate(`[...document.querySelectorAll(".item-user img")].map((i) => i.src.slice(0, 22)).join()`), "data:image/png;base64,");
    assert.deepEqual(await evidence({ page, events }), []);
    await page.close();
  });

  it("shows another branch when the reader picks it in the tree, and keeps the choice in the address", async () => {
    const { page } = await open(plainHtml);
    await waitForPage(page, `document.querySelectorAll(".item").length > 0`);
    await page.click(`.tree .row[data-entry-id="${plain.otherLeafId}"]`);
    const text = (await page.evaluate(`document.querySelector(".transcript").innerText`)) as string;
    assert.ok(text.includes("Done: the reader now streams chunks."));
    assert.ok(!text.includes("Run the benchmarks"));
    assert.equal(await page.evaluate("location.hash"), `#leaf=${plain.otherLeafId}`);
    assert.equal(await page.evaluate(`document.querySelector(".tree .row.shown-leaf").dataset.entryId`), plain.otherLeafId);
    await page.click(".tree-back");
    assert.ok(((await page.evaluate(`document.querySelector(".transcript").innerText`)) as string).includes("Run the benchmarks"));
    await page.close();
    const reopened = await open(plainHtml, `#leaf=${plain.otherLeafId}`);
    await waitForPage(reopened.page, `document.querySelectorAll(".item").length > 0`);
    assert.ok(((await reopened.page.evaluate(`document.querySelector(".transcript").innerText`)) as string).includes("Done: the reader now streams chunks."));
    await reopened.page.close();
  });

  it("runs nothing from a session full of <script>, onerror= and javascript: text, and shows it as text", async () => {
    const opened = await open(hostileHtml);
    await waitForPage(opened.page, `document.querySelectorAll(".item").length > 0`);
    await exercise(opened.page);
    assert.deepEqual(await evidence(opened), []);
    const text = (await opened.page.evaluate(`document.body.innerText`)) as string;
    assert.ok(text.includes(`<script>window.__pwned=(window.__pwned||0)+1;console.log("PWNED")</script>`), "the payload is shown as text");
    assert.ok(await opened.page.evaluate(`document.querySelectorAll(".tree .row").length > 20`), "the tree drew every entry");
    await opened.page.close();
  });

  describe("the detector", () => {
    // Session text written into the page raw, as a broken exporter would: the same detector must see it.
    const unescaped = (html: string, keepCsp: boolean): string => {
      const body = html.replace(`<div id="app" class="app"></div>`, `<div id="app" class="app"></div><div class="raw">${PAYLOADS}</div>`);
      return keepCsp ? body : body.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "");
    };

    it("catches script that runs when session text is not escaped (no CSP)", async () => {
      const opened = await open(write("unescaped.html", unescaped(readFileSync(plainHtml, "utf8"), false)));
      const found = await evidence(opened);
      assert.ok(found.some((f) => f.startsWith("window.__pwned")), found.join("\n"));
      assert.ok(found.some((f) => f.startsWith("dialog") || f.startsWith("console")), found.join("\n"));
      await opened.page.close();
    });

    it("catches unescaped session text even when the CSP blocks it from running", async () => {
      const opened = await open(write("unescaped-csp.html", unescaped(readFileSync(plainHtml, "utf8"), true)));
      const found = await evidence(opened);
      assert.ok(!found.some((f) => f.startsWith("window.__pwned")), "the CSP held");
      assert.ok(found.some((f) => f.startsWith("CSP violation")), found.join("\n"));
      assert.ok(found.some((f) => f.startsWith("handler attribute")), found.join("\n"));
      await opened.page.close();
    });
  });
});
