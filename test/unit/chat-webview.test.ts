/**
 * The Chat webview in headless Chromium (no VS Code): the real bundle, the real HTML and CSP, a
 * fake host. Skipped only when /usr/bin/chromium is missing.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import type { Page } from "playwright-core";
import type { TranscriptItem } from "../../src/core/transcript/transcript";
import { chatState, mixedItems, replyItem, userItem } from "../support/chat-fixtures";
import { buildWebviewBundle, chromiumAvailable, repoRoot, startHarness, waitForPage, type Harness } from "../support/webview-harness";

const HOSTILE_ITEMS: TranscriptItem[] = [
  userItem("u1", "<script>window.__pwned = 1</script> and <img src=x onerror=\"window.__pwned = 2\"> [x](javascript:window.__pwned=3)"),
  {
    kind: "assistant",
    entryId: "a1",
    parts: [
      { type: "text", text: "Let me edit it." },
      { type: "toolCall", id: "c1", name: "edit", arguments: { path: "src/a.ts", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] }, result: { entryId: "t1", content: [{ type: "text", text: "<img src=x onerror=\"window.__pwned = 4\">Edited src/a.ts" }], isError: false } },
      { type: "toolCall", id: "c2", name: "bash", arguments: { command: "false" }, result: { entryId: "t2", content: [{ type: "text", text: "boom" }], isError: true } },
    ],
    provider: "demo",
    model: "demo-model",
    stopReason: "toolUse",
    timestamp: 1,
  },
  { kind: "bash", entryId: "b1", command: "echo hi", output: "hi\n", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 2 },
  { kind: "compaction", entryId: "k1", summary: "## Goal\nFix the parser", tokensBefore: 48_213, firstKeptEntryId: "u1", timestamp: 3 },
  replyItem("a2", "", { parts: [], stopReason: "error", errorMessage: "HTTP 500: the server broke" }),
];

describe("Chat webview in Chromium", function () {
  this.timeout(60_000);
  let harness: Harness;
  let page: Page;

  const send = (message: unknown): Promise<unknown> => page.evaluate((m) => (globalThis as unknown as { __arbor: { send(m: unknown): unknown } }).__arbor.send(m), message);
  const posted = async (): Promise<{ type: string; [k: string]: unknown }[]> => (await page.evaluate("window.__arbor.posted")) as { type: string }[];
  const clearPosted = (): Promise<unknown> => page.evaluate("window.__arbor.posted.length = 0");
  const text = async (selector: string): Promise<string> => (await page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((n) => n.textContent).join("\\n")`)) as string;
  const count = async (selector: string): Promise<number> => (await page.evaluate(`document.querySelectorAll(${JSON.stringify(selector)}).length`)) as number;
  const frame = (): Promise<unknown> => page.evaluate("window.__arbor.nextPaint()");

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    const bundle = await buildWebviewBundle(path.join(repoRoot(), "out", "test-webview", "chat.js"), "webview/chat/main.ts");
    harness = await startHarness({ bundlePath: bundle, stylesheet: "chat.css", dataImages: true, width: 480, height: 800 });
    page = harness.page;
  });
  after(async () => harness?.close());
  beforeEach(async () => harness.load());

  it("draws the transcript with hostile text inert, tool runs folded and the failed reply's error", async () => {
    await send(chatState(HOSTILE_ITEMS));
    await frame();
    await page.waitForTimeout(100);
    assert.equal(await page.evaluate("window.__pwned"), undefined);
    assert.deepEqual(await page.evaluate("window.__arbor.violations"), []);
    assert.equal(await count(".item script, .item img[src='x'], .item a[href^='javascript']"), 0);
    assert.match(await text(".item-user .md"), /<script>window.__pwned = 1<\/script>/);
    // Folded by default: the tool runs show their summary, not their output.
    assert.equal(await count("details.tool[open]"), 0);
    assert.match(await text("details.tool summary"), /edit\s*src\/a\.ts/);
    assert.equal(await count("details.tool .output"), 0);
    assert.match(await text(".item-bash summary"), /\$ echo hi.*exit 0.*not sent to the model/s);
    assert.match(await text(".item-compaction summary"), /Compacted 48k tokens/);
    assert.match(await text(".reply-error"), /HTTP 500: the server broke/);
    assert.equal(await page.evaluate("document.querySelector('.chat-title').textContent"), "Parser work");
  });

  it("opens a tool run with one click: the edit as a diff, then the result", async () => {
    await send(chatState(HOSTILE_ITEMS));
    await frame();
    await page.locator("details.tool summary", { hasText: "edit" }).click();
    assert.equal(await text("details.tool[open] .diff-del"), "- const a = 1;\n");
    assert.equal(await text("details.tool[open] .diff-add"), "+ const a = 2;\n");
    assert.match(await text("details.tool[open] .output"), /Edited src\/a\.ts/);
    assert.equal(await page.evaluate("window.__pwned"), undefined);
    // An error result reads as one.
    await page.locator("details.tool summary", { hasText: "bash" }).click();
    assert.equal(await count("details.tool[open] .output.error"), 1);
  });

  it("draws what Pi extensions show: widgets around the input, a title, the working message and frames, the thinking label", async () => {
    const thinking = replyItem("a1", "Done.", { parts: [{ type: "thinking", text: "Let me think.", redacted: false }, { type: "text", text: "Done." }] });
    await send(chatState([userItem("u1", "hi"), thinking]));
    const ui = {
      widgets: [
        { extension: "plan", key: "todos", placement: "above", lines: ["1. read", "<img src=x onerror=\"window.__pwned = 5\">"] },
        { extension: "plan", key: "hint", placement: "below", lines: ["below the input"] },
      ],
      title: "pi - demo",
      workingMessage: "Cooking…",
      workingVisible: true,
      workingIndicator: { frames: ["◐", "◓"], intervalMs: 20 },
      thinkingLabel: "Pondering...",
    };
    await send({ type: "extensionUi", ui });
    await frame();
    assert.equal(await text(".ext-widgets.above .ext-widget"), '1. read\n<img src=x onerror="window.__pwned = 5">');
    assert.equal(await count(".ext-widgets img"), 0);
    assert.equal(await text(".ext-widgets.below"), "below the input");
    // Above the input and below it, in the page's order.
    assert.equal(await page.evaluate("document.querySelector('.ext-widgets.above').compareDocumentPosition(document.querySelector('.composer')) & Node.DOCUMENT_POSITION_FOLLOWING"), 4);
    assert.equal(await page.evaluate("document.querySelector('.composer').compareDocumentPosition(document.querySelector('.ext-widgets.below')) & Node.DOCUMENT_POSITION_FOLLOWING"), 4);
    assert.equal(await text(".chat-header .ext-title"), "pi - demo");
    assert.equal(await text("details.thinking summary"), "Pondering...");

    await send({ type: "runState", run: { kind: "reply", label: "Replying…" } });
    assert.equal(await text(".run-indicator .run-label"), "Cooking…");
    assert.equal(await count(".run-indicator .codicon-loading"), 0);
    // The frames turn at the extension's interval.
    await waitForPage(page, "document.querySelector('.run-indicator .run-frame').textContent === '◓'");
    // Other runs (a shell command, a compaction) keep Arbor's own indicator.
    await send({ type: "runState", run: { kind: "bash", label: "Running !ls…" } });
    assert.equal(await text(".run-indicator .run-label"), "Running !ls…");
    assert.equal(await count(".run-indicator .codicon-loading"), 1);
    await send({ type: "extensionUi", ui: { ...ui, workingVisible: false } });
    await send({ type: "runState", run: { kind: "reply", label: "Replying…" } });
    assert.equal(await page.evaluate("document.querySelector('.run-indicator').hidden"), true);
    assert.match(await text("button.send"), /Stop/, "the reply can still be stopped");

    // The session's extensions ended: Arbor's own chrome again.
    await send({ type: "extensionUi", ui: { widgets: [], title: null, workingMessage: null, workingVisible: true, workingIndicator: null, thinkingLabel: null } });
    assert.equal(await page.evaluate("document.querySelector('.ext-widgets.above').hidden && document.querySelector('.ext-widgets.below').hidden && document.querySelector('.ext-title').hidden"), true);
    assert.equal(await text("details.thinking summary"), "Thinking");
    assert.equal(await text(".run-indicator .run-label"), "Replying…");
    assert.equal(await page.evaluate("window.__pwned"), undefined);
    assert.deepEqual(await page.evaluate("window.__arbor.violations"), []);
  });

  it("while a retry waits, the run line says when and the Stop button is Cancel", async () => {
    await send(chatState([userItem("u1", "hello")]));
    await send({ type: "runState", run: { kind: "reply", label: "Retrying in 4 s (2 of 3)…", stopLabel: "Cancel" } });
    assert.equal(await text(".run-indicator .run-label"), "Retrying in 4 s (2 of 3)…");
    assert.match(await text("button.send"), /Cancel/);
    await clearPosted();
    await page.locator("button.send").click();
    assert.deepEqual(await posted(), [{ type: "stop" }]);
    await send({ type: "runState", run: { kind: "reply", label: "Replying…" } });
    assert.match(await text("button.send"), /Stop/);
  });

  it("streams a reply as it arrives and shows it once when it is recorded", async () => {
    await send(chatState([userItem("u1", "hello")]));
    await send({ type: "runState", run: { kind: "reply", label: "Replying…" } });
    await send({ type: "replyStart", provider: "demo", model: "demo-model" });
    await send({ type: "replyDelta", index: 0, part: "text", delta: "Hel" });
    await send({ type: "replyDelta", index: 0, part: "text", delta: "lo **world**" });
    await frame();
    assert.equal((await text(".live .md")).trim(), "Hello world");
    assert.equal(await count(".live .md strong"), 1);
    assert.match(await text(".run-indicator"), /Replying/);
    assert.match(await text("button.send"), /Stop/);
    await send({ type: "itemsAppended", generation: 1, total: 2, start: 1, items: [replyItem("a1", "Hello **world**")] });
    await send({ type: "replyEnd" });
    await send({ type: "runState", run: null });
    await frame();
    assert.equal(await count(".live"), 0);
    assert.equal(await count(".item-assistant"), 1);
    assert.match(await text("button.send"), /Send/);
  });

  it("sends on Enter, keeps Shift+Enter as a new line, recalls the last prompt with Up, and stops with Escape", async () => {
    await send(chatState([]));
    const input = page.locator("textarea.input");
    await input.click();
    await page.keyboard.type("first line");
    await page.keyboard.press("Shift+Enter");
    await page.keyboard.type("second line");
    assert.deepEqual((await posted()).filter((m) => m.type === "send"), []);
    await page.keyboard.press("Enter");
    assert.deepEqual((await posted()).filter((m) => m.type === "send"), [{ type: "send", text: "first line\nsecond line" }]);
    assert.equal(await input.inputValue(), "");
    await page.keyboard.press("ArrowUp");
    assert.equal(await input.inputValue(), "first line\nsecond line");
    await input.fill("");
    await send({ type: "runState", run: { kind: "reply", label: "Replying…" } });
    await clearPosted();
    await page.keyboard.press("Escape");
    assert.deepEqual(await posted(), [{ type: "stop" }]);
    await clearPosted();
    await page.locator("button.send").click();
    assert.deepEqual(await posted(), [{ type: "stop" }]);
  });

  it("offers the commands after / and completes the chosen one", async () => {
    await send(chatState([]));
    const input = page.locator("textarea.input");
    await input.click();
    await page.keyboard.type("/co");
    assert.equal(await page.evaluate("document.querySelector('.slash-popup').hidden"), false);
    assert.match(await text(".slash-row"), /\/compact/);
    await page.keyboard.press("Enter");
    assert.equal(await input.inputValue(), "/compact ");
    await page.keyboard.type("keep the decisions");
    await page.keyboard.press("Enter");
    assert.deepEqual((await posted()).filter((m) => m.type === "send"), [{ type: "send", text: "/compact keep the decisions" }]);
    // A command without arguments runs when picked.
    await page.keyboard.type("/ne");
    await page.keyboard.press("Enter");
    assert.deepEqual((await posted()).filter((m) => m.type === "send").pop(), { type: "send", text: "/new" });
  });

  it("puts text taken back for editing in the input", async () => {
    await send(chatState([]));
    await send({ type: "setInput", text: "try it the other way" });
    assert.equal(await page.locator("textarea.input").inputValue(), "try it the other way");
  });

  it("tells the host what the input holds as it changes (extensions read it with getEditorText)", async () => {
    await send(chatState([]));
    const input = page.locator("textarea.input");
    await input.click();
    await clearPosted();
    await page.keyboard.type("ab");
    const changes = async () => (await posted()).filter((m) => m.type === "inputChanged").map((m) => m.text);
    assert.deepEqual(await changes(), ["a", "ab"]);
    await send({ type: "setInput", text: "set by the host" });
    assert.equal((await changes()).at(-1), "set by the host");
    await page.keyboard.press("Enter");
    assert.equal((await changes()).at(-1), "", "a sent prompt leaves the input empty");
  });

  it("opens links through the host", async () => {
    await send(chatState([replyItem("a1", "See [the docs](https://example.com/docs).")]));
    await frame();
    await page.locator(".item a", { hasText: "the docs" }).click();
    assert.deepEqual((await posted()).filter((m) => m.type === "openLink"), [{ type: "openLink", href: "https://example.com/docs" }]);
  });

  it("holds only the tail of a 10,000-item transcript and asks for earlier items as the reader scrolls up", async () => {
    const tail = mixedItems(60, 9_940);
    await send(chatState(tail, { total: 10_000 }));
    await frame();
    await frame();
    const drawn = await count(".item:not(.item-placeholder)");
    assert.ok(drawn > 0 && drawn <= 60, `drawn ${drawn}`);
    assert.ok((await text(".item")).includes("Question 9995"), "the last prompt is drawn");
    await clearPosted();
    await page.evaluate("document.querySelector('.transcript').scrollTop = 0");
    await waitForPage(page, "window.__arbor.posted.some((m) => m.type === 'requestItems')");
    const request = (await posted()).find((m) => m.type === "requestItems") as unknown as { start: number; end: number; generation: number };
    assert.equal(request.generation, 1);
    assert.equal(request.start, 0);
    assert.ok(request.end > 0 && request.end - request.start <= 2_000);
    await send({ type: "items", generation: 1, start: request.start, items: mixedItems(request.end - request.start, request.start) });
    await waitForPage(page, "[...document.querySelectorAll('.item')].some((n) => n.textContent.includes('Question 0:'))");
    // Items of an older generation are ignored.
    await send({ type: "items", generation: 0, start: 0, items: [userItem("zz", "stale generation")] });
    await frame();
    assert.equal((await text(".item")).includes("stale generation"), false);
  });
});
