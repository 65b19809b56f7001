/**
 * The Conversation Tree side view in headless Chromium at the panel's shape (wide and short): the
 * session's name and the status join the toolbar's line, and the rows get the height; in a narrow
 * short view (the tree dragged to the side bar) they keep their own lines, readable.
 */
import * as assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { chain } from "../support/webview-harness.fixtures";
import { buildWebviewBundle, chromiumAvailable, LIGHT_THEME, startHarness, waitForPage, type Harness } from "../support/webview-harness";

type Box = { top: number; bottom: number; left: number; right: number; width: number; height: number };

/** Rows wholly in the list's view, and the boxes of the toolbar, the name and the status. */
const measure = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): Box; textContent: string | null } | null; querySelectorAll(s: string): ArrayLike<{ hidden: boolean; getBoundingClientRect(): Box }> } }).document;
    const box = (s: string) => doc.querySelector(s)?.getBoundingClientRect() ?? null;
    const view = box(".tree")!;
    const rows = Array.from(doc.querySelectorAll(".tree .row")).filter((r) => !r.hidden && r.getBoundingClientRect().top >= view.top - 0.5 && r.getBoundingClientRect().bottom <= view.bottom + 0.5).length;
    return { rows, toolbar: box(".toolbar"), name: box(".session-name"), status: box(".status"), nameText: doc.querySelector(".session-name")?.textContent ?? "" };
  });

describe("Conversation Tree webview: a short view", function () {
  this.timeout(60_000);
  let harness: Harness | undefined;

  before(async function () {
    if (!chromiumAvailable()) this.skip();
  });

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  async function open(width: number, height: number): Promise<Page> {
    harness = await startHarness({ bundlePath: await buildWebviewBundle(), width, height, theme: LIGHT_THEME });
    await harness.load();
    const ids = Array.from({ length: 40 }, (_, i) => `e${i}`);
    harness.host.show({ sessionId: "s", name: "Parser: tolerate torn lines", entries: chain(ids), labels: [], leafId: "e39" });
    await harness.host.idle();
    await waitForPage(harness.page, "document.querySelector('.row.leaf') !== null");
    return harness.page;
  }

  it("in the panel's shape (900x240) puts the name and the status on the toolbar's line and keeps 8 rows in view", async () => {
    const page = await open(900, 240);
    await waitForPage(page, "document.body.classList.contains('compact')");
    const m = await measure(page);
    assert.ok(m.toolbar && m.name && m.status);
    for (const [what, b] of [["name", m.name], ["status", m.status]] as const) {
      assert.ok(b.top >= m.toolbar.top - 0.5 && b.bottom <= m.toolbar.bottom + 0.5, `the ${what} is on the toolbar's line`);
      assert.ok(b.width > 40, `the ${what} has room (${b.width} px)`);
    }
    assert.ok(m.rows >= 8, `${m.rows} rows in view`);
    // Taller again: the name under the toolbar, the status under the rows.
    await page.setViewportSize({ width: 900, height: 600 });
    await waitForPage(page, "!document.body.classList.contains('compact')");
    const tall = await measure(page);
    assert.ok(tall.name!.top >= tall.toolbar!.bottom - 0.5, "the name is under the toolbar");
    assert.ok(tall.status!.top >= tall.toolbar!.bottom - 0.5, "the status is under the toolbar");
  });

  it("in a narrow short view (300x240, the side bar) keeps the name readable on its own line", async () => {
    const page = await open(300, 240);
    const m = await measure(page);
    assert.equal(await page.evaluate("document.body.classList.contains('compact')"), false);
    assert.ok(m.toolbar && m.name);
    assert.ok(m.name.top >= m.toolbar.bottom - 0.5, "the name is under the toolbar");
    assert.ok(m.name.width > 200 && m.name.height > 0, `the name has its line (${m.name.width} px)`);
    assert.equal(m.nameText, "Parser: tolerate torn lines");
  });
});
