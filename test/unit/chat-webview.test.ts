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

  it("draws the items after a message of 8 KB of nested quotes and a list nested 1,000 deep", async () => {
    const deepList = Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i * 2)}- level ${i}`).join("\n");
    await send(chatState([userItem("u1", `${">".repeat(8192)} deep`), userItem("u2", "still **here**")]));
    await waitForPage(page, "document.querySelectorAll('.item:not(.item-placeholder)').length === 2");
    assert.match(await text(".item-user .md"), />>>> deep[\s\S]*still here/);
    assert.equal(await count(".item-user strong"), 1);
    await send(chatState([replyItem("a1", deepList), replyItem("a2", "and the reply **after** it")], { generation: 2 }));
    // A megabyte of plain text is drawn over several tasks: wait for its end, the view kept at the bottom.
    await waitForPage(page, "document.querySelectorAll('.item-assistant strong').length === 1 && document.querySelector('.item-assistant .md').textContent.includes('level 999')", 50_000);
    assert.match(await text(".item-assistant .md"), /level 999[\s\S]*and the reply after it/);
    assert.equal(await count(".item-broken"), 0);
  });

  it("draws a streaming reply by its appended part: settled blocks stay the same nodes as the reply grows", async () => {
    await send(chatState([userItem("u1", "hello")]));
    await send({ type: "replyStart", provider: "demo", model: "demo-model" });
    await send({ type: "replyDelta", index: 0, part: "text", delta: "First **block**.\n\nSecond" });
    await frame();
    await page.evaluate("document.querySelector('.live .md strong').dataset.mark = 'kept'");
    for (const delta of [" block", " grows", "\n\nThird ", "*block*"]) {
      await send({ type: "replyDelta", index: 0, part: "text", delta });
      await frame();
    }
    assert.equal(await count(".live .md strong[data-mark='kept']"), 1);
    assert.equal(await count(".live .md em"), 1);
    assert.match((await text(".live .md")).replace(/\s+/g, " "), /First block\. Second block grows Third block/);
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

  it("names the context files at the top, each opening with one click, and lists prompt templates with their argument hint after /", async () => {
    const state = chatState([]);
    state.session = { ...state.session!, contextFiles: [{ path: "/home/u/.pi/agent/AGENTS.md", label: "~/.pi/agent/AGENTS.md" }, { path: "/work/AGENTS.md", label: "AGENTS.md" }] };
    state.commands = [...state.commands, { name: "fix", description: "Fix an issue", args: "<issue> [notes]", source: "prompt template" }, { name: "skill:review", description: "Reviews a change", args: "[instructions]", source: "skill" }];
    await send(state);
    assert.match(await text(".context-files"), /Context: 2 files.*~\/\.pi\/agent\/AGENTS\.md.*AGENTS\.md/s);
    await page.locator(".context-file", { hasText: /^AGENTS\.md$/ }).click();
    assert.deepEqual((await posted()).filter((m) => m.type === "openContextFile"), [{ type: "openContextFile", path: "/work/AGENTS.md" }]);
    const input = page.locator("textarea.input");
    await input.click();
    await page.keyboard.type("/fi");
    assert.match(await text(".slash-row"), /\/fix\s*<issue> \[notes\]\s*Fix an issue\s*prompt template/);
    await page.keyboard.press("Escape");
    await send({ ...state, session: { ...state.session!, contextFiles: [] } });
    assert.equal(await page.evaluate("document.querySelector('.context-files').hidden"), true, "no line without context files");
  });

  it("opens links through the host", async () => {
    await send(chatState([replyItem("a1", "See [the docs](https://example.com/docs).")]));
    await frame();
    await page.locator(".item a", { hasText: "the docs" }).click();
    assert.deepEqual((await posted()).filter((m) => m.type === "openLink"), [{ type: "openLink", href: "https://example.com/docs" }]);
  });

  it("offers Copy and Insert at Cursor on a code block, recorded or streaming, and sends the code as written", async () => {
    const code = "const a = 1;\nconsole.log(a < 2);";
    await send(chatState([replyItem("a1", `Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nand \`inline\`.`)]));
    await frame();
    assert.equal(await count(".item .md pre > .code-actions button.code-action"), 2, "one toolbar on the block, none on inline code");
    const pre = page.locator(".item .md pre").first();
    await pre.hover();
    await pre.locator("button[aria-label='Copy']").click();
    await pre.locator("button[aria-label='Insert at Cursor']").click();
    assert.deepEqual((await posted()).filter((m) => m.type === "copy" || m.type === "insertCode"), [{ type: "copy", text: code }, { type: "insertCode", text: code }]);
    assert.equal(await page.evaluate("document.querySelector('.item .md pre code').textContent"), code, "the block's own text is untouched");
  });

  it("shows each reply's tokens and cost in a muted line under it, tokens only where the model has no prices, nothing for a stopped reply", async () => {
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const priced = { input: 3210, output: 154, cacheRead: 6100, cacheWrite: 2890, totalTokens: 12_354, cost: { input: 0.00963, output: 0.00231, cacheRead: 0.00183, cacheWrite: 0.0108375, total: 0.0246075 } };
    const local = { input: 5120, output: 230, cacheRead: 0, cacheWrite: 0, totalTokens: 5350, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    await send(chatState([userItem("u1", "hi"), replyItem("a1", "Half an ans", { stopReason: "aborted", usage: zero }), replyItem("a2", "Done.", { usage: priced }), replyItem("a3", "Local.", { usage: local })]));
    await frame();
    const lineOf = async (id: string): Promise<string[]> => (await page.evaluate(`[...document.querySelectorAll('.item[data-entry-id="${id}"] > .reply-usage')].map((n) => n.textContent)`)) as string[];
    assert.deepEqual(await lineOf("a1"), [], "a reply that used nothing has no line");
    assert.deepEqual(await lineOf("a2"), ["↑3.2k ↓154 R6.1k W2.9k $0.025"]);
    assert.deepEqual(await lineOf("a3"), ["↑5.1k ↓230"], "no prices: tokens only");
    const tip = (await page.evaluate(`document.querySelector('.item[data-entry-id="a2"] > .reply-usage').title`)) as string;
    assert.match(tip, /Input: 3,210 tokens\nOutput: 154 tokens\nCache read: 6,100 tokens\nCache write: 2,890 tokens\nTotal: 12,354 tokens\nCost: \$0\.0246/);
    assert.doesNotMatch(await text(".item-head"), /tokens/, "the count is not repeated in the header");
    const [itemBox, lineBox] = (await page.evaluate(`(() => { const n = document.querySelector('.item[data-entry-id="a2"]'); const l = n.querySelector('.reply-usage'); return [n.getBoundingClientRect().bottom, l.getBoundingClientRect().bottom]; })()`)) as number[];
    assert.ok(lineBox! <= itemBox! + 0.5, "the line sits inside the reply, at its end");
  });

  it("/session shows Pi's Session Info with a column for the current path and one for the whole file, until closed or the next send", async () => {
    const totals = (n: number, cost: number, unpriced = 0) => ({
      messages: { user: n, assistant: n, toolCalls: 2 * n, toolResults: 2 * n, bash: 0, custom: 0, branchSummaries: 0, compactions: n > 2 ? 1 : 0, total: 5 * n + (n > 2 ? 1 : 0) },
      tokens: { input: 1000 * n, output: 100 * n, cacheRead: 0, cacheWrite: 0, total: 1100 * n },
      cost,
      unpriced,
    });
    await send(chatState([userItem("u1", "hi")]));
    await send({ type: "sessionStats", stats: { name: "Fix <b>CI</b>", file: "/home/u/.pi/s.jsonl", id: "01a2", path: totals(2, 0.0123), wholeFile: totals(3, 0.5, 1) } });
    await frame();
    const row = async (key: string): Promise<string[]> => (await page.evaluate(`[...document.querySelectorAll('.notice-stats tr[data-row="${key}"] td')].map((n) => n.textContent)`)) as string[];
    assert.equal(await page.evaluate("document.querySelector('.notice-stats').hidden"), false);
    assert.match(await text(".notice-stats .stats-facts"), /Name:Fix <b>CI<\/b>File:\/home\/u\/\.pi\/s\.jsonlID:01a2/);
    assert.deepEqual(await row("Messages:User"), ["User", "2", "3"]);
    assert.deepEqual(await row("Messages:Tool Calls"), ["Tool Calls", "4", "6"]);
    assert.deepEqual(await row("Messages:Compactions"), ["Compactions", "0", "1"]);
    assert.deepEqual(await row("Messages:Total"), ["Total", "10", "16"]);
    assert.deepEqual(await row("Messages:Shell"), [], "a kind that is 0 in both columns is left out");
    assert.deepEqual(await row("Tokens:Input"), ["Input", "2,000", "3,000"]);
    assert.deepEqual(await row("Tokens:Cache Read"), [], "as in Pi: no cache rows without caching");
    assert.deepEqual(await row("Cost:Total"), ["Total", "$0.0123", "$0.5000"]);
    assert.match(await text(".notice-stats .stats-note"), /1 reply came from a model without prices/);
    await page.locator(".notice-stats .stats-close").click();
    assert.equal(await page.evaluate("document.querySelector('.notice-stats').hidden"), true, "Close hides it");
    await send({ type: "sessionStats", stats: { name: null, file: null, id: "01a2", path: totals(1, 0), wholeFile: totals(1, 0) } });
    await frame();
    assert.match(await text(".notice-stats .stats-facts"), /File:Not saved yet/);
    assert.equal(await count(".notice-stats tr[data-row^='Cost']"), 0, "no cost section when nothing had a cost");
    await page.locator("textarea.input").click();
    await page.keyboard.type("next prompt");
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate("document.querySelector('.notice-stats').hidden"), true, "the next send hides it");
    assert.deepEqual(await page.evaluate("window.__arbor.violations"), []);
  });

  it("keeps the / list inside a short chat view, its first and selected row reachable", async () => {
    // A new user's side bar at 1280x800 gave the chat about 280 px: the list ran off the top.
    await page.setViewportSize({ width: 300, height: 150 });
    try {
      await send(chatState([]));
      await page.locator("textarea.input").click();
      await page.keyboard.type("/");
      const box = (await page.evaluate(`(() => {
        const popup = document.querySelector(".slash-popup");
        const first = popup.querySelector(".slash-row");
        return { popupTop: popup.getBoundingClientRect().top, firstTop: first.getBoundingClientRect().top, rows: popup.querySelectorAll(".slash-row").length, scrolls: popup.scrollHeight > popup.clientHeight };
      })()`)) as { popupTop: number; firstTop: number; rows: number; scrolls: boolean };
      assert.ok(box.rows >= 3, `the list has rows to show (${box.rows})`);
      assert.ok(box.popupTop >= 0, `the list starts inside the view (top ${box.popupTop})`);
      assert.ok(box.firstTop >= 0, `the first row is in view (top ${box.firstTop})`);
      assert.ok(box.scrolls, "what does not fit scrolls inside the list");
      await page.keyboard.press("Escape");
      await page.locator("textarea.input").fill("");
    } finally {
      await page.setViewportSize({ width: 480, height: 800 });
    }
  });

  it("shows the model's and the thinking level's names whole under the input of a 300 px side bar", async () => {
    await page.setViewportSize({ width: 300, height: 800 });
    try {
      const state = chatState([userItem("u1", "hi")]);
      await send({ ...state, model: { ...state.model, name: "Claude Sonnet 4.5" }, thinkingLevel: "medium" });
      await frame();
      const fits = (await page.evaluate(`(() => {
        const label = document.querySelector(".model-picker span:not(.codicon)");
        const select = document.querySelector(".thinking-picker");
        const probe = document.createElement("span");
        probe.style.cssText = "position:absolute;visibility:hidden;white-space:nowrap;font:" + getComputedStyle(select).font;
        probe.textContent = select.selectedOptions[0].textContent;
        document.body.append(probe);
        const needed = probe.getBoundingClientRect().width;
        probe.remove();
        return { model: label.scrollWidth <= label.clientWidth, thinking: select.clientWidth >= needed + 16, tip: document.querySelector(".model-picker").title, send: document.querySelector("button.send").title };
      })()`)) as { model: boolean; thinking: boolean; tip: string; send: string };
      assert.ok(fits.model, "the model's name is not cut");
      assert.ok(fits.thinking, "the thinking level's name is not cut");
      assert.match(fits.tip, /Claude Sonnet 4\.5/);
      assert.match(fits.send, /Send/);
    } finally {
      await page.setViewportSize({ width: 480, height: 800 });
    }
  });

  it("says a tool call has no result on this path when it is not running and its result is elsewhere", async () => {
    const reply = replyItem("a1", "Reading.", { stopReason: "toolUse", parts: [{ type: "text", text: "Reading." }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } }] });
    await send(chatState([userItem("u1", "read a.ts"), reply]));
    await frame();
    assert.match(await text("details.tool summary"), /read\s*a\.ts\s*no result on this path/);
    assert.equal(await count("details.tool summary .codicon-loading"), 0, "not drawn as running");
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
