/**
 * The Conversation Tree webview in headless Chromium (no VS Code): the real bundle, the real HTML
 * and CSP, a fake host. Skipped only when /usr/bin/chromium is missing.
 */
import * as assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { EntrySummary } from "../../src/core/tree/types";
import { entry } from "../support/webview-harness.fixtures";
import { buildWebviewBundle, chromiumAvailable, LIGHT_THEME, startHarness, waitForPage, type DrawnRow, type Harness, type PageGlobals } from "../support/webview-harness";

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

function stateMessage(entries = fixtureEntries()): unknown {
  return {
    type: "state",
    session: { sessionId: SESSION, name: "Parser work", entries, labels: [{ targetId: "u1", label: "start" }], leafId: "a4" },
    readOnly: null,
  };
}

describe("Conversation Tree webview in Chromium", function () {
  this.timeout(60_000);
  let harness: Harness;
  let page: Page;

  const rows = async (): Promise<DrawnRow[]> => (await page.evaluate("__arbor.rows()")) as DrawnRow[];
  const ids = async (): Promise<string[]> => (await rows()).map((r) => r.id);
  const row = async (id: string): Promise<DrawnRow> => {
    const found = (await rows()).find((r) => r.id === id);
    assert.ok(found, `row ${id} is drawn`);
    return found;
  };
  const posted = async (): Promise<{ type: string; [key: string]: unknown }[]> =>
    (await page.evaluate("__arbor.posted")) as { type: string; [key: string]: unknown }[];
  const lastPosted = async (): Promise<unknown> => (await posted()).at(-1);
  const send = (message: unknown) => page.evaluate((m) => (globalThis as unknown as PageGlobals).__arbor.sendAndPaint(m), message);
  const paint = () => page.evaluate("__arbor.nextPaint()");
  const press = async (key: string) => {
    await page.keyboard.press(key);
    await paint();
  };
  const click = async (id: string) => {
    const point = (await page.evaluate(`__arbor.rowPoint(${JSON.stringify(id)})`)) as { x: number; y: number } | null;
    assert.ok(point, `row ${id} is clickable`);
    await page.mouse.click(point.x, point.y);
    await paint();
  };
  const chooseFilter = async (value: string) => {
    await page.click("vscode-dropdown");
    await page.click(`vscode-option[value="${value}"]`);
    await paint();
  };

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    const bundle = await buildWebviewBundle();
    harness = await startHarness({ bundlePath: bundle, theme: LIGHT_THEME });
    page = harness.page;
  });

  after(async () => {
    if (harness) await harness.close();
  });

  beforeEach(async () => {
    await harness.load();
    await send(stateMessage());
  });

  it("says ready first, then draws the session under the default filter", async () => {
    assert.deepEqual((await posted())[0], { type: "ready" });
    assert.deepEqual(await ids(), ["u1", "a1", "u2", "a2", "u3", "a3", "t3", "u5", "u4", "K", "a4"]);
    assert.equal(await page.textContent(".session-name"), "Parser work");
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
    await waitForPage(page, "__arbor.checkoutTimings.length === 1");
    await paint();
    assert.equal((await row("a3")).current, "true");
    assert.equal((await row("a4")).current, null);
    assert.ok((await row("u3")).classes.includes("on-path"));
    assert.ok(!(await row("u4")).classes.includes("on-path"));
  });

  it("moves with the arrow keys and acts with Enter, L, F and C", async () => {
    await page.focus(".tree");
    await press("Home");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "u1");
    await press("ArrowDown");
    await press("ArrowDown");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "u2");
    assert.deepEqual(await lastPosted(), { type: "selectionChanged", sessionId: SESSION, id: "u2" });
    await press("ArrowUp");
    const selected = (await rows()).find((r) => r.selected === "true");
    assert.equal(selected?.id, "a1");
    assert.equal(await page.getAttribute(".tree", "aria-activedescendant"), selected?.domId);
    await press("Enter");
    assert.deepEqual(await lastPosted(), { type: "checkout", sessionId: SESSION, id: "a1" });
    await press("l");
    assert.deepEqual(await lastPosted(), { type: "label", sessionId: SESSION, id: "a1" });
    await press("f");
    assert.deepEqual(await lastPosted(), { type: "fork", sessionId: SESSION, id: "a1" });
    await press("c");
    assert.deepEqual(await lastPosted(), { type: "copyText", sessionId: SESSION, id: "a1" });
    await press("End");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "a4");
  });

  it("folds with Left, unfolds with Right, and goes to the branch point with Left", async () => {
    await page.focus(".tree");
    await click("u4");
    await press("ArrowLeft");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "a2", "Left goes to the branch point");
    await press("ArrowLeft");
    assert.equal((await row("a2")).expanded, "false");
    assert.deepEqual(await ids(), ["u1", "a1", "u2", "a2"]);
    await press("ArrowRight");
    assert.equal((await row("a2")).expanded, "true");
    await press("ArrowRight");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "u3", "Right goes to the first child");
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
    await paint();
    assert.equal((await ids()).length, 11);
  });

  it("shows a compaction's summary on request and marks the span it replaced", async () => {
    await page.focus(".tree");
    await click("K");
    const request = (await posted()).find((m) => m.type === "requestDetails");
    assert.ok(request, "details were requested");
    assert.equal(request.entryId, "K");
    assert.equal(typeof request.requestId, "string");
    for (const id of ["u1", "a1", "u2", "a2"]) assert.ok((await row(id)).classes.includes("replaced"), id);
    assert.ok((await row("u4")).classes.includes("kept"));
    await send({ type: "entryDetails", requestId: "wrong", entryId: "K", ok: true, details: { kind: "text", text: "stale" } });
    assert.equal(await page.textContent(".details-body"), "Loading…");
    await send({
      type: "entryDetails",
      requestId: request.requestId,
      entryId: "K",
      ok: true,
      details: { kind: "compaction", summary: "<b>Goal</b>: fix it", tokensBefore: 48_213, firstKeptEntryId: "u4", readFiles: ["a.ts"], modifiedFiles: [] },
    });
    assert.ok((await page.textContent(".details-body"))?.startsWith("<b>Goal</b>: fix it"));
    assert.ok((await page.textContent(".details-facts"))?.includes("48k tokens before"));
    assert.equal(await page.evaluate("document.querySelectorAll('.details b').length"), 0);
  });

  it("shows the read-only banner whose Fork button asks the host to fork", async () => {
    assert.equal(await page.isVisible(".banner"), false);
    await send({ type: "readOnly", notice: { message: "Another window is writing this session.", canFork: true } });
    assert.equal(await page.isVisible(".banner"), true);
    assert.equal(await page.textContent(".banner-text"), "Another window is writing this session.");
    await page.click(".banner vscode-button");
    assert.deepEqual(await lastPosted(), { type: "forkSession", sessionId: SESSION });
    await send({ type: "readOnly", notice: null });
    assert.equal(await page.isVisible(".banner"), false);
  });

  it("applies increments: appended entries, labels, rename", async () => {
    await send({ type: "entriesAppended", sessionId: SESSION, entries: [entry("u6", "a4", { role: "user", preview: "next step" })], leafId: "u6" });
    assert.equal((await ids()).at(-1), "u6");
    assert.equal((await row("u6")).current, "true");
    await send({ type: "labelsChanged", sessionId: SESSION, changes: [{ targetId: "u3", label: "keep me" }, { targetId: "u1", label: null }] });
    assert.ok((await row("u3")).label?.includes("label keep me"));
    assert.equal(await page.evaluate("document.querySelectorAll('.badge.label').length"), 1);
    await send({ type: "sessionRenamed", sessionId: SESSION, name: "Renamed" });
    assert.equal(await page.textContent(".session-name"), "Renamed");
    await send({ type: "leafMoved", sessionId: "another-session", leafId: "u3" });
    assert.equal((await row("u6")).current, "true", "increments of another session are dropped");
  });

  it("reveals an entry for the host, and takes the host's filter", async () => {
    await send({ type: "reveal", sessionId: SESSION, entryId: "u3" });
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "u3");
    assert.deepEqual(await lastPosted(), { type: "selectionChanged", sessionId: SESSION, id: "u3" });
    await send({ type: "setFilter", filter: "user-only" });
    assert.deepEqual(await ids(), ["u1", "u2", "u3", "u5", "u4"]);
    assert.equal(await page.evaluate("document.querySelector('vscode-dropdown').value"), "user-only");
  });

  it("keeps folds and selection when the host re-sends the session it shows", async () => {
    await page.focus(".tree");
    await click("u4");
    await press("ArrowLeft");
    await press("ArrowLeft");
    assert.equal((await row("a2")).expanded, "false");
    await send(stateMessage());
    assert.equal((await row("a2")).expanded, "false");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "a2");
  });

  it("drops an invalid message with a log line and keeps its rows", async () => {
    const before = await ids();
    await send({ type: "entriesAppended", sessionId: SESSION, entries: [{ id: 5 }], leafId: null });
    assert.deepEqual(await ids(), before);
    const log = (await lastPosted()) as { type: string; level: string; message: string };
    assert.equal(log.type, "log");
    assert.equal(log.level, "warn");
    assert.ok(log.message.includes("entriesAppended"));
  });

  it("keeps filter, selection and folds across hide/show (a reload with saved state)", async () => {
    await chooseFilter("no-tools");
    await page.focus(".tree");
    await click("u3");
    await press("ArrowLeft");
    await press("ArrowLeft");
    assert.equal((await row("a2")).expanded, "false");
    // The page saves its state shortly after a change; wait for it rather than for a fixed time.
    await waitForPage(page, "(JSON.parse(sessionStorage.getItem('arbor-state') || '{}').folded || []).includes('a2')");
    await harness.load({ fresh: false });
    assert.deepEqual((await posted()).map((m) => m.type), ["ready"]);
    await send(stateMessage());
    assert.ok(!(await ids()).includes("t3"), "filter kept");
    assert.equal(await page.evaluate("document.querySelector('vscode-dropdown').value"), "no-tools");
    assert.equal((await row("a2")).expanded, "false", "fold kept");
    assert.equal((await rows()).find((r) => r.selected === "true")?.id, "a2", "selection kept");
  });
});
