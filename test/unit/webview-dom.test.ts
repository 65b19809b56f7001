/**
 * The Conversation Tree webview in headless Chromium (no VS Code): the real bundle, the real HTML
 * and CSP, and the real host side of the protocol (TreeHub) running in Node. Skipped only when
 * /usr/bin/chromium is missing.
 */
import * as assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { EntrySummary } from "../../src/core/tree/types";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";
import { buildWebviewBundle, chromiumAvailable, LIGHT_THEME, startHarness, waitForPage, type DrawnRow, type Harness } from "../support/webview-harness";
import type { HarnessSession } from "../support/webview-harness-host";

const SESSION = "session-1";
const HOSTILE_SCRIPT = "<script>window.__pwned = 1</script> run this";
const HOSTILE_IMG = '<img src=x onerror="window.__pwned = 2"> look';

/*
 * m0 (model_change, hidden by default)
 * └ u1 user "Fix the parser"          (label "start")
 *   └ a1 assistant HOSTILE_SCRIPT
 *     └ u2 user HOSTILE_IMG
 *       └ a2 assistant "two ways"      ← branch point
 *         ├ u3 user "first try" ─ a3 assistant "answer one" ─ [marker] ─ u5 user "after marker"
 *         │                                                   └ t3 toolResult (under a3)
 *         └ u4 user "second try" ─ K compaction (keeps u4) ─ a4 assistant "answer two" (leaf)
 * l1 (label entry), c1 (custom entry) hang under a4's parent chain as bookkeeping.
 */
function fixtureEntries(): EntrySummary[] {
  return [
    entry("m0", null, { type: "model_change", provider: "p", modelId: "m", preview: "p/m" }),
    entry("u1", "m0", { role: "user", preview: "Fix the parser" }),
    entry("a1", "u1", { role: "assistant", preview: HOSTILE_SCRIPT }),
    entry("u2", "a1", { role: "user", preview: HOSTILE_IMG }),
    entry("a2", "u2", { role: "assistant", preview: "two ways" }),
    entry("u3", "a2", { role: "user", preview: "first try" }),
    entry("a3", "u3", { role: "assistant", preview: "answer one" }),
    entry("t3", "a3", { role: "toolResult", toolName: "read", preview: "file contents" }),
    entry("mk", "a3", { type: "custom", customType: "arbor.checkout", checkoutMarker: true, preview: "arbor.checkout" }),
    entry("u5", "mk", { role: "user", preview: "after marker" }),
    entry("u4", "a2", { role: "user", preview: "second try" }),
    entry("K", "u4", { type: "compaction", tokensBefore: 48_213, firstKeptEntryId: "u4", preview: "Goal: fix the parser" }),
    entry("l1", "K", { type: "label", targetId: "u1", label: "start", preview: 'label "start"' }),
    entry("c1", "l1", { type: "custom", customType: "todo", preview: "todo" }),
    entry("a4", "c1", { role: "assistant", preview: "answer two" }),
  ];
}

function session(entries = fixtureEntries()): HarnessSession {
  return { sessionId: SESSION, name: "Parser work", entries, labels: [{ targetId: "u1", label: "start" }], leafId: "a4" };
}

describe("Conversation Tree webview in Chromium", function () {
  this.timeout(60_000);
  let harness: Harness;
  let page: Page;
  let bundle: string;

  const rows = async (): Promise<DrawnRow[]> => (await page.evaluate("__arbor.rows()")) as DrawnRow[];
  const ids = async (): Promise<string[]> => (await rows()).map((r) => r.id);
  const row = async (id: string): Promise<DrawnRow> => {
    const found = (await rows()).find((r) => r.id === id);
    assert.ok(found, `row ${id} is drawn`);
    return found;
  };
  const selectedId = async (): Promise<string | undefined> => (await rows()).find((r) => r.classes.split(" ").includes("focused"))?.id;
  const posted = async (): Promise<{ type: string; [key: string]: unknown }[]> =>
    (await page.evaluate("__arbor.posted")) as { type: string; [key: string]: unknown }[];
  /** The last message the page posted, leaving out the viewport reports it sends as it scrolls or settles. */
  const lastPosted = async (): Promise<unknown> => (await posted()).filter((m) => m.type !== "viewport").at(-1);
  /** Lets the host answer everything sent so far, then waits for the frame that shows it. */
  const settle = async () => {
    await harness.host.idle();
    await page.evaluate("__arbor.nextPaint()");
  };
  const inject = async (message: unknown) => {
    await page.evaluate((m) => (globalThis as unknown as { __arbor: { sendAndPaint(m: unknown): Promise<unknown> } }).__arbor.sendAndPaint(m), message);
  };
  const press = async (key: string) => {
    await page.keyboard.press(key);
    await settle();
  };
  const click = async (id: string, modifiers: ("Control")[] = []) => {
    const point = (await page.evaluate(`__arbor.rowPoint(${JSON.stringify(id)})`)) as { x: number; y: number } | null;
    assert.ok(point, `row ${id} is clickable`);
    for (const key of modifiers) await page.keyboard.down(key);
    await page.mouse.click(point.x, point.y);
    for (const key of modifiers) await page.keyboard.up(key);
    await settle();
  };
  const chooseFilter = async (value: string) => {
    await page.click("vscode-dropdown");
    await page.click(`vscode-option[value="${value}"]`);
    await settle();
  };

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    bundle = await buildWebviewBundle();
    harness = await startHarness({ bundlePath: bundle, theme: LIGHT_THEME, width: 640 });
    page = harness.page;
  });

  after(async () => {
    if (harness) await harness.close();
  });

  beforeEach(async () => {
    harness.host.restart();
    await harness.load();
    harness.host.show(session());
    await settle();
  });

  it("says ready first, then draws the session under the default filter", async () => {
    assert.deepEqual((await posted())[0], { type: "ready" });
    assert.deepEqual(await ids(), ["u1", "a1", "u2", "a2", "u3", "a3", "t3", "u5", "u4", "K", "a4"]);
    assert.equal(await page.textContent(".session-name"), "Parser work");
    assert.equal(await page.textContent(".status"), "11 of 14 entries · Default");
  });

  it("exposes an ARIA tree: levels, expansion, selection, active descendant, current leaf", async () => {
    assert.equal(await page.getAttribute(".tree", "role"), "tree");
    const drawn = await rows();
    assert.ok(drawn.every((r) => r.role === "treeitem"));
    const level = Object.fromEntries(drawn.map((r) => [r.id, r.level]));
    assert.deepEqual([level.u1, level.a2, level.u3, level.u5, level.u4, level.a4], ["1", "1", "2", "3", "2", "2"]);
    const position = Object.fromEntries(drawn.map((r) => [r.id, `${r.posinset}/${r.setsize}`]));
    assert.deepEqual([position.u1, position.a2, position.u3, position.a3, position.u4, position.a4, position.t3], ["1/4", "4/4", "1/5", "2/5", "3/5", "5/5", "1/2"]);
    assert.deepEqual(drawn.filter((r) => r.expanded !== null).map((r) => [r.id, r.expanded]), [["a2", "true"], ["a3", "true"]]);
    const selected = drawn.filter((r) => r.selected === "true");
    assert.deepEqual(selected.map((r) => r.id), ["a4"], "the leaf starts selected");
    assert.equal(await page.getAttribute(".tree", "aria-activedescendant"), selected[0].domId);
    assert.deepEqual(drawn.filter((r) => r.current === "true").map((r) => r.id), ["a4"]);
    assert.ok((await row("u3")).label?.startsWith("user: first try"));
    assert.ok((await row("u1")).label?.includes("label start"));
    assert.ok((await row("a2")).classes.includes("on-path"));
    assert.ok(!(await row("u3")).classes.includes("on-path"));
  });

  it("renders hostile previews as inert text", async () => {
    assert.equal((await row("a1")).text, HOSTILE_SCRIPT);
    assert.equal((await row("u2")).text, HOSTILE_IMG);
    assert.equal(await page.evaluate("document.querySelectorAll('#app script, #app img, #app iframe, #app object').length"), 0);
    assert.equal(await page.evaluate("window.__pwned"), undefined);
    assert.deepEqual(await page.evaluate("__arbor.violations"), []);
  });

  it("carries the context-menu data on each row", async () => {
    const ctx = (await row("u1")).context;
    assert.deepEqual(ctx, {
      webviewSection: "entry",
      entryId: "u1",
      entryType: "message",
      role: "user",
      hasLabel: true,
      isLeaf: false,
      preventDefaultContextMenuItems: true,
    });
  });

  it("checks out on click; the host's leaf move repaints the path", async () => {
    await click("a3");
    assert.deepEqual(await lastPosted(), { type: "checkout", sessionId: SESSION, id: "a3" });
    assert.ok(harness.host.actions.includes("checkout a3"));
    assert.equal((await row("a3")).current, "true");
    assert.equal((await row("a4")).current, null);
    assert.ok((await row("u3")).classes.includes("on-path"));
    assert.ok(!(await row("u4")).classes.includes("on-path"));
    assert.equal(await selectedId(), "a3");
  });

  it("selects a second entry with Ctrl+click, without a checkout", async () => {
    await click("u3", ["Control"]);
    assert.deepEqual(await lastPosted(), { type: "select", sessionId: SESSION, id: "u3", add: true });
    assert.deepEqual(harness.host.hub.selection, ["a4", "u3"]);
    assert.deepEqual((await rows()).filter((r) => r.selected === "true").map((r) => r.id).sort(), ["a4", "u3"]);
    assert.ok(!harness.host.actions.some((a) => a.startsWith("checkout")));
  });

  it("moves with the arrow keys (the host decides) and acts with Enter, L, F and C", async () => {
    await page.focus(".tree");
    await press("Home");
    assert.equal(await selectedId(), "u1");
    await press("ArrowDown");
    await press("ArrowDown");
    assert.equal(await selectedId(), "u2");
    assert.deepEqual(await lastPosted(), { type: "navigate", sessionId: SESSION, move: "down", pageSize: (await lastPosted() as { pageSize: number }).pageSize });
    await press("ArrowUp");
    assert.equal(await selectedId(), "a1");
    const selected = (await rows()).find((r) => r.id === "a1");
    assert.equal(await page.getAttribute(".tree", "aria-activedescendant"), selected?.domId);
    harness.host.autoCheckout = false;
    await press("Enter");
    assert.deepEqual(await lastPosted(), { type: "checkout", sessionId: SESSION, id: "a1" });
    await press("l");
    assert.deepEqual(await lastPosted(), { type: "label", sessionId: SESSION, id: "a1" });
    await press("f");
    assert.deepEqual(await lastPosted(), { type: "fork", sessionId: SESSION, id: "a1" });
    await press("c");
    assert.deepEqual(await lastPosted(), { type: "copyText", sessionId: SESSION, id: "a1" });
    assert.deepEqual(harness.host.actions.filter((a) => !a.startsWith("log")), ["checkout a1", "label a1", "fork a1", "copyText a1"]);
    await press("End");
    assert.equal(await selectedId(), "a4");
    harness.host.autoCheckout = true;
  });

  it("folds with Left, unfolds with Right, and goes to the branch point with Left", async () => {
    await page.focus(".tree");
    await click("u4");
    await press("ArrowLeft");
    assert.equal(await selectedId(), "a2", "Left goes to the branch point");
    await press("ArrowLeft");
    assert.equal((await row("a2")).expanded, "false");
    assert.deepEqual(await ids(), ["u1", "a1", "u2", "a2"]);
    await press("ArrowRight");
    assert.equal((await row("a2")).expanded, "true");
    await press("ArrowRight");
    assert.equal(await selectedId(), "u3", "Right goes to the first child");
  });

  it("filters: user messages only, all entries, and never a checkout marker", async () => {
    await chooseFilter("user-only");
    assert.deepEqual(await ids(), ["u1", "u2", "u3", "u5", "u4"]);
    await chooseFilter("all");
    const all = await ids();
    for (const id of ["m0", "l1", "c1", "t3"]) assert.ok(all.includes(id), `${id} under "all"`);
    assert.ok(!all.includes("mk"));
    await chooseFilter("no-tools");
    assert.ok(!(await ids()).includes("t3"));
    await chooseFilter("labeled-only");
    assert.deepEqual(await ids(), ["u1"]);
  });

  it("searches as you type and highlights matches", async () => {
    await page.focus(".tree");
    await page.keyboard.type("try");
    await waitForPage(page, "__arbor.rows().length === 2");
    assert.equal(await page.evaluate("document.querySelector('vscode-text-field').value"), "try", "no character lost");
    assert.deepEqual(await ids(), ["u3", "u4"]);
    assert.equal(await page.evaluate("document.querySelectorAll('.tree mark.match').length"), 2);
    await page.keyboard.press("Escape");
    await settle();
    assert.equal((await ids()).length, 11);
  });

  it("says in the status line that a search is on, also when it matches every row", async () => {
    await chooseFilter("user-only");
    assert.equal(await page.textContent(".status"), "5 of 14 entries · User messages · current entry hidden by the filter");
    await page.focus(".tree");
    await page.keyboard.type("user");
    await waitForPage(page, "document.querySelector('.status').textContent.includes('match')");
    assert.equal(await page.textContent(".status"), "5 of 14 entries match \u201cuser\u201d · User messages · current entry hidden by the filter");
    assert.equal((await ids()).length, 5, "every row matched");
    await page.keyboard.press("Escape");
    await settle();
    assert.equal(await page.textContent(".status"), "5 of 14 entries · User messages · current entry hidden by the filter");
  });

  it("shows a compaction's summary on request and marks the span it replaced", async () => {
    harness.host.details.set("K", { kind: "compaction", summary: "<b>Goal</b>: fix it, **42** tests", tokensBefore: 48_213, firstKeptEntryId: "u4", readFiles: ["a.ts"], modifiedFiles: [] });
    await page.focus(".tree");
    await click("K");
    const request = (await posted()).find((m) => m.type === "requestDetails");
    assert.ok(request, "details were requested");
    assert.equal(request.entryId, "K");
    for (const id of ["u1", "a1", "u2", "a2"]) assert.ok((await row(id)).classes.includes("replaced"), id);
    assert.ok((await row("u4")).classes.includes("kept"));
    await waitForPage(page, "document.querySelector('.details-body').textContent.startsWith('<b>Goal</b>: fix it')");
    await inject({ type: "entryDetails", requestId: "wrong", entryId: "K", ok: true, details: { kind: "text", text: "stale" } });
    assert.ok((await page.textContent(".details-body"))?.startsWith("<b>Goal</b>: fix it"), "an answer to another request is ignored");
    assert.equal(await page.textContent(".details-facts"), "48k tokens before · replaced 5 entries");
    assert.equal(await page.evaluate("document.querySelectorAll('.details b').length"), 0);
    assert.equal(await page.evaluate("document.querySelector('.details-text strong')?.textContent"), "42", "the summary's markdown is rendered");
  });

  it("shows the read-only banner whose Fork button asks the host to fork", async () => {
    assert.equal(await page.isVisible(".banner"), false);
    harness.host.hub.setReadOnly({ message: "Another window is writing this session.", canFork: true });
    await settle();
    assert.equal(await page.isVisible(".banner"), true);
    assert.equal(await page.textContent(".banner-text"), "Another window is writing this session.");
    await page.click(".banner vscode-button");
    await settle();
    assert.deepEqual(await lastPosted(), { type: "forkSession", sessionId: SESSION });
    assert.ok(harness.host.actions.includes("forkSession"));
    harness.host.hub.setReadOnly(null);
    await settle();
    assert.equal(await page.isVisible(".banner"), false);
  });

  it("applies increments: appended entries, labels, rename", async () => {
    harness.host.append([entry("u6", "a4", { role: "user", preview: "next step" })], "u6");
    await settle();
    assert.equal((await ids()).at(-1), "u6");
    assert.equal((await row("u6")).current, "true");
    harness.host.hub.changeLabels([{ targetId: "u3", label: "keep me" }, { targetId: "u1", label: null }]);
    await settle();
    assert.ok((await row("u3")).label?.includes("label keep me"));
    assert.equal(await page.evaluate("document.querySelectorAll('.badge.label').length"), 1);
    harness.host.hub.setTitle("Renamed");
    await settle();
    assert.equal(await page.textContent(".session-name"), "Renamed");
  });

  it("follows the leaf on append when it showed the leaf or the end, judged from what is on screen now", async () => {
    const entries = chain(Array.from({ length: 200 }, (_, i) => `c${i}`));
    harness.host.show({ sessionId: SESSION, name: "Long", entries, labels: [], leafId: "c199" });
    await settle();
    // Page-side code as strings: this file compiles without the DOM library.
    const inView = async (id: string) => (await page.evaluate(`(() => {
      const list = document.querySelector(".tree").getBoundingClientRect();
      const r = Array.from(document.querySelectorAll(".tree .row")).find((e) => !e.hidden && JSON.parse(e.dataset.vscodeContext || "{}").entryId === ${JSON.stringify(id)});
      if (!r) return false;
      const box = r.getBoundingClientRect();
      return box.top >= list.top - 0.5 && box.bottom <= list.bottom + 0.5;
    })()`)) as boolean;
    const scrollTo = (top: number) => page.evaluate(`void (document.querySelector(".tree").scrollTop = ${top})`);
    assert.ok(await inView("c199"), "the leaf is shown first");
    // Scrolled away (and the host told): an append leaves the view where the user put it.
    await scrollTo(0);
    // Until the page has reported the new position (after scrolling settles).
    while ((await posted()).filter((m) => m.type === "viewport").at(-1)?.visibleFrom !== 0) await page.evaluate("new Promise((r) => setTimeout(r, 50))");
    await settle();
    harness.host.append([entry("c200", "c199", { role: "user", preview: "while away" })], "c200");
    await settle();
    assert.equal(await page.evaluate(`document.querySelector(".tree").scrollTop`), 0);
    assert.equal(await inView("c200"), false);
    // Back at the end, and an append comes before the page has told the host where it is now:
    // the page itself follows the new leaf.
    await scrollTo(1e9);
    harness.host.append([entry("c201", "c200", { role: "assistant", preview: "an answer" })], "c201");
    await settle();
    assert.ok(await inView("c201"), "the new leaf is on screen");
  });

  it("reveals an entry for the host, and takes the host's filter", async () => {
    harness.host.hub.reveal("u3");
    await settle();
    assert.equal(await selectedId(), "u3");
    harness.host.hub.setFilter("user-only");
    await settle();
    assert.deepEqual(await ids(), ["u1", "u2", "u3", "u5", "u4"]);
    assert.equal(await page.evaluate("document.querySelector('vscode-dropdown').value"), "user-only");
  });

  it("keeps folds and selection when the host re-sends the session it shows", async () => {
    await page.focus(".tree");
    await click("u4");
    await press("ArrowLeft");
    await press("ArrowLeft");
    assert.equal((await row("a2")).expanded, "false");
    harness.host.show(session());
    await settle();
    assert.equal((await row("a2")).expanded, "false");
    assert.equal(await selectedId(), "a2");
  });

  it("drops an invalid message with a log line and keeps its rows", async () => {
    const before = await ids();
    await inject({ type: "tree", reset: true, session: null, window: { rows: [{ id: 5 }] } });
    assert.deepEqual(await ids(), before);
    const log = (await lastPosted()) as { type: string; level: string; message: string };
    assert.equal(log.type, "log");
    assert.equal(log.level, "warn");
    assert.ok(log.message.includes('"tree"'));
  });

  it("keeps filter, selection, folds and scroll across hide/show (a reload with saved state)", async () => {
    await chooseFilter("no-tools");
    await page.focus(".tree");
    await click("u3");
    await press("ArrowLeft");
    await press("ArrowLeft");
    assert.equal((await row("a2")).expanded, "false");
    // The page saves its state shortly after a change; wait for it rather than for a fixed time.
    await waitForPage(page, "(JSON.parse(sessionStorage.getItem('arbor-state') || '{}').folded || []).includes('a2')");
    await harness.load({ fresh: false });
    await settle();
    assert.equal((await posted())[0].type, "ready");
    assert.ok(!(await ids()).includes("t3"), "filter kept");
    assert.equal(await page.evaluate("document.querySelector('vscode-dropdown').value"), "no-tools");
    assert.equal((await row("a2")).expanded, "false", "fold kept");
    assert.equal(await selectedId(), "a2", "selection kept");
  });

  it("restores what it saved when the host starts afresh (the extension host restarted)", async () => {
    await chooseFilter("user-only");
    harness.host.autoCheckout = false;
    await click("u3");
    await waitForPage(page, "(JSON.parse(sessionStorage.getItem('arbor-state') || '{}').selection || []).includes('u3')");
    harness.host.restart();
    harness.host.show(session());
    await harness.load({ fresh: false });
    await settle();
    assert.equal(harness.host.hub.model.filter, "user-only");
    assert.deepEqual(await ids(), ["u1", "u2", "u3", "u5", "u4"]);
    assert.equal(await selectedId(), "u3");
  });

  describe("a session of 100,000 entries", () => {
    it("holds only the rows around what it shows, and fetches others as it scrolls", async () => {
      const fixture = generateTreeFixture(100_000, 42);
      harness.host.show({ ...fixture, entries: fixture.entries });
      await settle();
      const count = (await page.evaluate("document.querySelectorAll('.tree .row').length")) as number;
      assert.ok(count < 120, `${count} row elements`);
      const window = harness.host.hub.model.rows.count;
      // Pi's default filter hides the tool-call turns without text, about a quarter of this fixture.
      assert.ok(window > 60_000, `${window} rows`);
      await page.evaluate("document.querySelector('.tree').scrollTop = 0");
      await waitForPage(page, "__arbor.rows().length > 10 && __arbor.rows()[0].index === 0");
      const first = (await rows())[0];
      assert.equal(first.id, harness.host.hub.model.idAt(0));
      const held = (await page.evaluate("__arbor.posted.filter((m) => m.type === 'viewport').length")) as number;
      assert.ok(held > 0, "the page asked for the rows it scrolled to");
    });

    /** Settles until the page asks for nothing more (each answer can bring a request for more rows). */
    const settleRows = async () => {
      let asked = -1;
      for (;;) {
        await settle();
        const now = (await page.evaluate("__arbor.posted.filter((m) => m.type === 'viewport').length")) as number;
        if (now === asked) return;
        asked = now;
      }
    };
    /** Scrolls by rows and returns, from the frame that draws the new position (before any answer can arrive), the rows in view still waiting for the host. */
    const scrollBy = async (rowsDown: number): Promise<number> =>
      (await page.evaluate(`new Promise((resolve) => {
        const tree = document.querySelector('.tree');
        tree.scrollTop += ${rowsDown} * Number(tree.dataset.rowHeight);
        requestAnimationFrame(() => {
          const box = tree.getBoundingClientRect();
          resolve(Array.from(tree.querySelectorAll('.row.placeholder:not([hidden])')).filter((r) => {
            const b = r.getBoundingClientRect();
            return b.bottom > box.top && b.top < box.bottom;
          }).length);
        });
      })`)) as number;

    it("asks for rows ahead of the scroll, so that a steady scroll finds them held", async () => {
      const fixture = generateTreeFixture(100_000, 42);
      harness.host.show({ ...fixture, entries: fixture.entries });
      await settleRows();
      await page.evaluate("document.querySelector('.tree').scrollTop = 3000 * Number(document.querySelector('.tree').dataset.rowHeight)");
      await settleRows();
      // The first move down (the jump to row 3,000 went up from the leaf) turns the margin that way.
      await scrollBy(5);
      await settleRows();
      for (let step = 0; step < 6; step++) {
        // Four screens of a fast wheel in one go, each after the host has answered what the last one asked.
        const waiting = await scrollBy(95);
        assert.equal(waiting, 0, `step ${step}: rows in view were not held yet`);
        await settleRows();
      }
      // And up again: the margin follows the direction.
      await scrollBy(-40);
      await settleRows();
      assert.equal(await scrollBy(-95), 0, "scrolling up finds the rows above held");
    });

    it("leaves drawn rows alone when the host's answer to a scroll arrives", async () => {
      const fixture = generateTreeFixture(100_000, 42);
      harness.host.show({ ...fixture, entries: fixture.entries });
      await settleRows();
      await page.evaluate("document.querySelector('.tree').scrollTop = 3000 * Number(document.querySelector('.tree').dataset.rowHeight)");
      await settleRows();
      const deliveries = (await page.evaluate("__arbor.deliveries.length")) as number;
      // Down, the other way than the jump (which went up from the leaf): the rows in view are held,
      // those ahead are not, and the page asks for them.
      const held = (await page.evaluate(`new Promise((resolve) => {
        const tree = document.querySelector('.tree');
        tree.scrollTop += 60 * Number(tree.dataset.rowHeight);
        requestAnimationFrame(() => {
          const drawn = Array.from(tree.querySelectorAll('.row:not([hidden]):not(.placeholder)'));
          window.__heldRows = new Set(drawn);
          window.__rowRecords = [];
          window.__rowMutations = new MutationObserver((records) => window.__rowRecords.push(...records));
          window.__rowMutations.observe(tree, { attributes: true, childList: true, characterData: true, subtree: true });
          resolve(drawn.length);
        });
      })`)) as number;
      assert.ok(held > 0, "some rows were held before the answer");
      await settleRows();
      assert.ok(((await page.evaluate("__arbor.deliveries.length")) as number) > deliveries, "the host answered the scroll");
      const touched = (await page.evaluate(`(() => {
        const records = [...window.__rowRecords, ...window.__rowMutations.takeRecords()];
        window.__rowMutations.disconnect();
        const rows = new Set(records.map((r) => (r.target.nodeType === 1 ? r.target : r.target.parentElement).closest('.row')).filter((r) => r && window.__heldRows.has(r)));
        return rows.size;
      })()`)) as number;
      assert.equal(touched, 0, "rows drawn from held rows were repainted by the answer");
    });
  });
});

describe("Conversation Tree webview: room to read", function () {
  this.timeout(60_000);
  let harness: Harness | undefined;

  before(async function () {
    if (!chromiumAvailable()) this.skip();
  });

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** Characters of each drawn row's text that are on screen (inside the row's box, not clipped away). */
  const visibleText = (page: Page) =>
    page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document;
      type Box = { left: number; right: number; top: number; bottom: number; width: number };
      type El = { getBoundingClientRect(): Box; querySelector(s: string): El | null; hidden: boolean; classList: { contains(c: string): boolean }; dataset: { vscodeContext?: string }; firstChild: unknown; textContent: string | null; childNodes: ArrayLike<unknown> };
      const out: { id: string; visible: number; total: number; tagVisible: boolean; textLeft: number }[] = [];
      const range = (globalThis as unknown as { document: { createRange(): { setStart(n: unknown, o: number): void; setEnd(n: unknown, o: number): void; getClientRects(): ArrayLike<Box> } } }).document.createRange();
      for (const r of Array.from(doc.querySelectorAll(".tree .row")) as El[]) {
        if (r.hidden || r.classList.contains("placeholder")) continue;
        const row = r.getBoundingClientRect();
        const text = r.querySelector(".text") as El;
        const tag = r.querySelector(".tag") as El;
        const tagBox = tag.getBoundingClientRect();
        let visible = 0;
        const walk = (node: { nodeType?: number; textContent: string | null; childNodes: ArrayLike<unknown> }) => {
          if (node.nodeType === 3) {
            const s = node.textContent ?? "";
            for (let i = 0; i < s.length && visible < 80; i++) {
              range.setStart(node, i);
              range.setEnd(node, i + 1);
              const rects = Array.from(range.getClientRects());
              if (rects.some((b) => b.width > 0 && b.left >= row.left && b.right <= row.right + 0.5 && b.top >= row.top - 0.5 && b.bottom <= row.bottom + 0.5)) visible++;
            }
          } else for (const c of Array.from(node.childNodes)) walk(c as never);
        };
        walk(text as never);
        out.push({
          id: JSON.parse(r.dataset.vscodeContext ?? "{}").entryId as string,
          visible,
          total: (text.textContent ?? "").length,
          tagVisible: tagBox.width > 0 && tagBox.right <= row.right && tagBox.left >= row.left,
          textLeft: text.getBoundingClientRect().left - row.left,
        });
      }
      return out;
    });

  it("shows each row's kind and the start of its text at any depth, lanes bounded, in a 300 px side bar", async () => {
    // A ladder 40 branch points deep: every rung is one level deeper than the last.
    const long = "Refactor the session parser so that torn last lines are kept, reported with their line number, and never corrupt the next append";
    const entries: EntrySummary[] = [entry("r", null, { role: "user", preview: long })];
    let parent = "r";
    for (let k = 0; k < 40; k++) {
      entries.push(entry(`side${k}`, parent, { role: "assistant", preview: `${long} (side ${k})` }), entry(`deep${k}`, parent, { role: "user", preview: `${long} (deep ${k})` }));
      parent = `deep${k}`;
    }
    harness = await startHarness({ bundlePath: await buildWebviewBundle(), width: 300, height: 700, theme: LIGHT_THEME });
    await harness.load();
    harness.host.show({ sessionId: "deep", name: "Deep", entries, labels: [], leafId: "deep39" });
    await harness.host.idle();
    await harness.page.evaluate("__arbor.nextPaint()");
    const rows = await visibleText(harness.page);
    assert.ok(rows.some((r) => r.id === "deep39"), `the leaf, 40 levels deep, is in view: ${JSON.stringify(rows.map((r) => r.id))} ${await harness.page.evaluate("document.querySelector('.tree').scrollTop")}`);
    assert.ok((await harness.page.evaluate("document.querySelectorAll('.tree .guide.depth').length")) as number > 0, "deep rows carry a depth marker");
    for (const r of rows) {
      assert.ok(r.tagVisible, `row ${r.id} shows its kind`);
      assert.ok(r.textLeft < 150, `row ${r.id}'s text starts at ${r.textLeft}px`);
      assert.ok(r.visible >= Math.min(r.total, 50), `row ${r.id} shows ${r.visible} of ${r.total} characters`);
    }
  });

  it("wraps a row's text under the entry's icon (a hanging indent, not under the twisty), and centres a one-line row in its height", async () => {
    const long = "A long reply that cannot fit on one line of a narrow side bar and wraps onto a second line";
    const entries = [entry("u1", null, { role: "user", preview: "Fix it" }), entry("a1", "u1", { role: "assistant", preview: long }), entry("u2", "a1", { role: "user", preview: "ok" }), entry("a2", "u1", { role: "assistant", preview: long })];
    harness = await startHarness({ bundlePath: await buildWebviewBundle(), width: 300, height: 500, theme: LIGHT_THEME });
    await harness.load();
    harness.host.show({ sessionId: "s", name: "S", entries, labels: [], leafId: "u2" });
    await harness.host.idle();
    const page = harness.page;
    await waitForPage(page, "document.querySelectorAll('.tree.wrap .row:not([hidden])').length === 4");
    const geometry = (await page.evaluate(() => {
      type Box = { left: number; right: number; top: number; bottom: number };
      type El = { getBoundingClientRect(): Box; querySelector(s: string): El; firstChild: unknown; dataset: { vscodeContext?: string }; hidden: boolean };
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El>; createRange(): { selectNodeContents(n: unknown): void; getClientRects(): ArrayLike<Box> } } }).document;
      const out: Record<string, { lines: Box[]; icon: Box; row: Box }> = {};
      for (const row of Array.from(doc.querySelectorAll(".tree .row"))) {
        if (row.hidden) continue;
        const range = doc.createRange();
        range.selectNodeContents(row.querySelector(".text"));
        out[JSON.parse(row.dataset.vscodeContext ?? "{}").entryId as string] = { lines: Array.from(range.getClientRects()), icon: row.querySelector(".icon").getBoundingClientRect(), row: row.getBoundingClientRect() };
      }
      return out;
    })) as Record<string, { lines: { left: number; top: number; bottom: number }[]; icon: { left: number }; row: { top: number; bottom: number } }>;
    for (const id of ["a1", "a2"]) {
      const g = geometry[id]!;
      assert.ok(g.lines.length >= 2, `${id} wraps (${g.lines.length} line boxes)`);
      const second = g.lines[g.lines.length - 1]!;
      assert.ok(second.left >= g.icon.left - 1, `${id}: the second line starts at ${second.left}, under the entry's icon (at ${g.icon.left}), not under the twisty`);
    }
    const short = geometry["u2"]!;
    const above = short.lines[0]!.top - short.row.top;
    const below = short.row.bottom - short.lines[0]!.bottom;
    assert.ok(Math.abs(above - below) <= 4, `a one-line row sits in the middle of its height (${above} px above, ${below} px below)`);
  });

  it("keeps the side view's rows when a summary is selected: details only on the toggle (remembered, 8 rows kept), beside the rows when wide", async () => {
    const entries = [...chain(Array.from({ length: 30 }, (_, i) => `e${i}`)), entry("K", "e29", { type: "compaction", tokensBefore: 9_000, firstKeptEntryId: "e20", preview: "Goal" })];
    const summary = "Goal: **42** tests\n\n" + "A long summary line.\n\n".repeat(60);
    harness = await startHarness({ bundlePath: await buildWebviewBundle(), width: 300, height: 600, theme: LIGHT_THEME });
    await harness.load();
    harness.host.details.set("K", { kind: "compaction", summary, tokensBefore: 9_000, firstKeptEntryId: "e20", readFiles: [], modifiedFiles: [] });
    harness.host.show({ sessionId: "s", name: "S", entries, labels: [], leafId: "K" });
    await harness.host.idle();
    const page = harness.page;
    const inView = () => page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): { top: number; bottom: number } }; querySelectorAll(s: string): ArrayLike<{ hidden: boolean; getBoundingClientRect(): { top: number; bottom: number } }> } }).document;
      const view = doc.querySelector(".tree").getBoundingClientRect();
      return Array.from(doc.querySelectorAll(".tree .row")).filter((r) => !r.hidden && r.getBoundingClientRect().top >= view.top - 0.5 && r.getBoundingClientRect().bottom <= view.bottom + 0.5).length;
    });
    const detailsShown = () => page.evaluate("(() => { const d = document.querySelector('.details'); return !!d && getComputedStyle(d).display !== 'none' && d.getBoundingClientRect().height > 0; })()");
    await waitForPage(page, "document.querySelector('.row.focused.kind-compaction') !== null");
    assert.equal(await detailsShown(), false, "the side view starts without the details pane");
    const rowsAlone = await inView();
    assert.ok(rowsAlone >= 8, `${rowsAlone} rows in view`);
    await page.click("button.details-toggle");
    await waitForPage(page, "document.querySelector('.details-text strong')?.textContent === '42'");
    assert.equal(await detailsShown(), true);
    assert.equal(await page.getAttribute("button.details-toggle", "aria-pressed"), "true");
    assert.ok((await inView()) >= 8, "the details leave 8 rows in view");
    assert.equal((await page.evaluate("JSON.parse(sessionStorage.getItem('arbor-state') ?? 'null')") as { details?: boolean } | undefined)?.details, true, "the choice is saved with the view's state");
    // The sash sets the height; the list keeps its 8 rows whatever is dragged.
    const sash = (await page.locator(".details-sash").boundingBox())!;
    await page.mouse.move(sash.x + sash.width / 2, sash.y + 2);
    await page.mouse.down();
    await page.mouse.move(sash.x + sash.width / 2, sash.y + 80, { steps: 4 });
    await page.mouse.up();
    const lowered = (await page.locator(".details").boundingBox())!.height;
    assert.ok(Math.abs(lowered - ((await page.evaluate("JSON.parse(sessionStorage.getItem('arbor-state') ?? 'null')") as { detailsHeight: number }).detailsHeight)) <= 1, "the dragged height is saved");
    await page.mouse.move(sash.x + sash.width / 2, sash.y + 80 - 2);
    await page.mouse.down();
    await page.mouse.move(sash.x + sash.width / 2, 10, { steps: 4 });
    await page.mouse.up();
    assert.ok((await inView()) >= 8, "dragged up to the top, the pane still leaves 8 rows");
    // Wide: beside the rows, no toggle needed.
    await page.setViewportSize({ width: 900, height: 600 });
    await waitForPage(page, "document.querySelector('.details').classList.contains('beside')");
    assert.equal(await detailsShown(), true);
    assert.equal(await page.isVisible("button.details-toggle"), false);
  });

  it("shows the selected entry in full beside the tree in an editor tab", async () => {
    const text = "The whole reply, much longer than a row: ".padEnd(400, "x");
    harness = await startHarness({ bundlePath: await buildWebviewBundle(), width: 1100, height: 600, theme: LIGHT_THEME, layout: "editor" });
    await harness.load();
    harness.host.details.set("b", { kind: "text", text });
    harness.host.show({ sessionId: "s", name: "S", entries: [entry("a", null), entry("b", "a", { role: "assistant", preview: text.slice(0, 200) })], labels: [], leafId: "b" });
    await harness.host.idle();
    const page = harness.page;
    await waitForPage(page, `document.querySelector('.details.beside .details-text')?.textContent.trim().length === ${text.length}`);
    const boxes = (await page.evaluate("({ tree: document.querySelector('.tree').getBoundingClientRect().right, details: document.querySelector('.details.beside').getBoundingClientRect().left })")) as { tree: number; details: number };
    assert.ok(boxes.details >= boxes.tree - 1, "the details sit beside the tree");
    assert.match((await page.textContent(".details.beside .details-facts")) ?? "", / · id b$/);
    assert.equal(await page.evaluate("document.querySelector('.tree').classList.contains('wrap')"), false, "a wide tab draws one-line rows");
  });
});
