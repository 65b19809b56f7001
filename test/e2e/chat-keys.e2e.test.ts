/**
 * Pi's cycling keys typed in the chat's input, in a real VS Code (code-server, chromium): Ctrl+P
 * steps to the next model and Shift+Tab to the next thinking level, as in Pi, and neither reaches
 * the workbench (no Quick Open, no focus move). The workbench's keybindings do not see keys typed in
 * a webview's text field, so the page handles them.
 */
import { strict as assert } from "node:assert";
import type { WorkbenchSession } from "./harness";
import { waitUntil } from "./harness/arbor-views";
import { openChatWorkbench, type ChatWorkbench } from "./harness/chat-workbench";

describe("Pi's cycling keys in the chat's input in a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let bench: ChatWorkbench | undefined;
  let session: WorkbenchSession | undefined;
  const chat = () => bench!.chat();
  const input = () => bench!.input();
  const modelName = async () => ((await chat().locator("button.model-picker").textContent()) ?? "").trim();

  before(async () => {
    bench = await openChatWorkbench("e2e-chat-keys", { models: [{ id: "first-model", reasoning: true }, { id: "second-model", reasoning: true }], viewport: { width: 1280, height: 800 } });
    session = bench.session;
    // The thinking level belongs to a session: one is open before the keys are pressed.
    await session.workbench.runCommand("Arbor: New Session");
    // New Session puts the caret in the input: typing before that lands could go elsewhere.
    await waitUntil("the chat's input to have the focus", async () => (await input().evaluate((node) => node.ownerDocument.hasFocus() && node.ownerDocument.activeElement === node)) === true);
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await bench?.close();
  });

  it("Ctrl+P steps to the next model and Shift+Tab to the next thinking level; the workbench sees neither", async () => {
    await session!.page.keyboard.type("draft");
    assert.equal(await input().inputValue(), "draft");
    await waitUntil("a model in the picker", async () => /-model/.test(await modelName()));
    const before = await modelName();
    await session!.page.keyboard.press("Control+P");
    await waitUntil("the next model in the picker", async () => (await modelName()) !== before && /-model/.test(await modelName()));
    assert.equal(await session!.page.locator(".quick-input-widget").isVisible(), false, "no Quick Open");

    const level = () => chat().locator("select.thinking-picker").inputValue();
    const levelBefore = await level();
    await session!.page.keyboard.press("Shift+Tab");
    await waitUntil("the next thinking level", async () => (await level()) !== levelBefore);
    assert.equal(await input().evaluate((node) => node.ownerDocument.activeElement === node), true, "the caret stays in the input");
    assert.equal(await input().inputValue(), "draft", "the typed text is untouched");
  });
});
