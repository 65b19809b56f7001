/**
 * The chat end to end in a real VS Code (code-server) with the packaged extension, driven in
 * chromium, against a scripted OpenAI-compatible server on 127.0.0.1: type a prompt and watch the
 * reply stream, press Stop, run `!echo hi`, check out an earlier user message in the tree and find
 * its text in the chat's input. One click per action: nothing here clicks twice.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";
import { createScratchFolder, openWorkbench, WorkbenchSession, writePiModelsJson } from "./harness";
import { chatView, conversationTree, revealTreeRow, waitUntil } from "./harness/arbor-views";

describe("the chat in a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let server: ScriptedServer;
  let sessionDir: string;

  const chat = () => chatView(session!.workbench);
  const input = () => chat().locator("textarea.input");

  /** Types into the chat's input and presses Enter, as a user would. */
  async function type(text: string): Promise<void> {
    await input().click();
    await input().pressSequentially(text, { delay: 5 });
    await session!.page.keyboard.press("Enter");
  }

  /** The session file the chat writes (one session in this workspace). */
  function sessionEntries(): { id: string; type: string; parentId: string | null; message?: { role: string; content: unknown; stopReason?: string } }[] {
    const files = readdirSync(sessionDir).filter((f) => f.endsWith(".jsonl"));
    assert.equal(files.length, 1, `one session file in ${sessionDir}: ${files.join(", ")}`);
    return readFileSync(join(sessionDir, files[0]!), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.type !== "session");
  }

  before(async () => {
    scratch = createScratchFolder("e2e-chat");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# chat e2e\n");
    writeFileSync(join(workspace, "NOTES.md"), "Notes the user keeps open.\n");
    sessionDir = join(scratch.path, "sessions");
    mkdirSync(sessionDir);
    server = await startScriptedServer();
    // The scripted server set up as a Pi user sets up a local server: a provider in models.json.
    writePiModelsJson(agentDir, server.baseUrl);
    session = await openWorkbench({
      folder: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir },
      viewport: { width: 1400, height: 1000 },
      settings: { "arbor.sessionsDirectory": sessionDir },
    });
    await session.workbench.openViewContainer("Arbor");
    // Both webviews loaded and answered by the host before anything is typed (the tree in the panel).
    await session.workbench.runCommand("Arbor: Show Conversation Tree");
    await conversationTree(session.workbench).locator(".empty", { hasText: "No session is open" }).waitFor({ state: "visible" });
    await session.workbench.runCommand("Arbor: Open Chat");
    await input().waitFor({ state: "visible" });
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await session?.close();
    await server?.close();
    scratch?.dispose();
  });

  it("streams the reply to a typed prompt into the transcript", async () => {
    // The reply pauses half-way, long enough to see it drawn live whatever the machine's load.
    server.script(
      reply.steps(
        { type: "chunk", delta: { role: "assistant", content: "Streaming **works**:" } },
        { type: "chunk", delta: { content: " one piece" }, delayMs: 100 },
        { type: "chunk", delta: { content: " at a time." }, delayMs: 6_000 },
        { type: "finish", finishReason: "stop" },
        { type: "usage", usage: { promptTokens: 40, completionTokens: 12 } },
        { type: "done" },
      ),
    );
    await type("Hello, model");
    // While the reply streams, it is drawn live and the button says Stop.
    await chat().locator(".live .md", { hasText: "Streaming works" }).waitFor({ state: "visible" });
    await chat().locator("button.send", { hasText: "Stop" }).waitFor({ state: "visible" });
    const reply1 = chat().locator(".item-assistant:not(.live)", { hasText: "one piece at a time" });
    await reply1.waitFor({ state: "visible" });
    assert.equal(await reply1.locator("strong").textContent(), "works");
    await chat().locator("button.send", { hasText: "Send" }).waitFor({ state: "visible" });
    assert.equal(await chat().locator(".chat-title").textContent(), "Hello, model");
    await waitUntil("the reply in the file", () => sessionEntries().some((e) => e.message?.role === "assistant"));
  });

  it("Stop ends a streaming reply, and the partial reply stays, marked as stopped", async () => {
    server.script(reply.hang("This reply never ends on its own", { chunks: 6, delayMs: 150 }));
    await type("Tell me a long story");
    await chat().locator(".live .md", { hasText: "never" }).waitFor({ state: "visible" });
    await chat().locator("button.send", { hasText: "Stop" }).click();
    const stopped = chat().locator(".item-assistant:not(.live)", { has: chat().locator(".reply-stopped") });
    await stopped.waitFor({ state: "visible" });
    assert.match((await stopped.textContent()) ?? "", /This reply never/);
    await waitUntil("the aborted reply in the file", () => sessionEntries().some((e) => e.message?.stopReason === "aborted"));
  });

  it("runs !echo hi and shows its output and exit code", async () => {
    await type("!echo hi");
    const bash = chat().locator(".item-bash:not(.live)", { hasText: "$ echo hi" });
    await bash.waitFor({ state: "visible" });
    assert.match((await bash.locator(".exit").textContent()) ?? "", /exit 0/);
    await bash.locator("summary").click();
    assert.equal((await bash.locator("pre.output").textContent())?.trim(), "hi");
  });

  it("Ctrl+A and Ctrl+Z in the chat's input act on the input, never on the text editor open beside it", async () => {
    const { page, workbench } = session!;
    await workbench.openFile("NOTES.md");
    const editorText = page.locator(".part.editor .monaco-editor .view-lines");
    await editorText.click();
    // A quick pick that opens and closes leaves the workbench's idea of focus on the editor.
    await page.keyboard.press("F1");
    await page.locator(".quick-input-widget input").waitFor({ state: "visible" });
    await page.keyboard.press("Escape");
    // Click and press at once, as a quick hand does: the workbench learns which webview has focus by
    // polling (every 250 ms), so keys in that gap were run by the workbench on the text editor.
    const box = await input().boundingBox();
    assert.ok(box, "the input is drawn");
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.keyboard.press("Control+A");
    await page.keyboard.type("long reply please");
    assert.equal(await input().inputValue(), "long reply please", "the keys went into the chat's input");
    await page.keyboard.press("Control+Z");
    await waitUntil("Ctrl+Z to undo the typing in the input", async () => (await input().inputValue()) !== "long reply please");
    assert.equal((await editorText.textContent())?.replace(/\s+/g, " ").trim(), "Notes the user keeps open.", "the editor's text is untouched");
    assert.equal(await page.locator(".part.editor .tab.active.dirty").count(), 0, "the file is not modified");
    await input().fill("");
  });

  it("a click on an earlier user message in the tree puts its text in the chat's input", async () => {
    const first = sessionEntries().find((e) => e.message?.role === "user" && JSON.stringify(e.message.content).includes("Hello, model"));
    assert.ok(first);
    const row = await revealTreeRow(conversationTree(session!.workbench), first.id);
    await row.click();
    // The checkout leaves the later turns behind, so Arbor asks whether to summarize them (a model is set up).
    await session!.workbench.pickQuickInput("", "Check out, no summary");
    await waitUntil("the message text in the input", async () => (await input().inputValue()) === "Hello, model");
    // The transcript now shows the path up to that message's parent: nothing of the later turns.
    await waitUntil("the transcript of the new position", async () => (await chat().locator(".item-assistant").count()) === 0);
  });

  it("a reload of the browser tab opens the session that was open", async () => {
    const title = (await chat().locator(".chat-title").textContent())?.trim();
    assert.ok(title, "a session is open");
    const { page, workbench } = session!;
    await page.reload({ waitUntil: "domcontentloaded" });
    await workbench.waitForReady();
    await workbench.openViewContainer("Arbor");
    await workbench.runCommand("Arbor: Open Chat");
    await chatView(workbench).locator(".chat-title", { hasText: title }).waitFor({ state: "visible" });
    // The status bar names the session only while one is open.
    await page.locator(".part.statusbar .statusbar-item", { hasText: title.slice(0, 20) }).first().waitFor({ state: "visible" });
  });

  it("New Session from the palette puts the caret in the chat's input: the first prompt is typed at once", async () => {
    const { page, workbench } = session!;
    // The input starts empty. Once in CI, after the reload above, the chat came back with an older draft
    // ("long reply please", typed and undone two tests earlier) from the view state VS Code restores; a
    // draft is kept across a new session on purpose, so it preceded the words typed here.
    await input().fill("");
    await workbench.runCommand("Arbor: New Session");
    await waitUntil("the chat's input to have the focus", async () => (await input().evaluate((node) => node.ownerDocument.hasFocus() && node.ownerDocument.activeElement === node)) === true);
    await page.keyboard.type("first words");
    assert.equal(await input().inputValue(), "first words");
    // A new session: the earlier turns are not shown.
    assert.equal(await chat().locator(".item").count(), 0);
  });
});
