/**
 * Pi's cycling keys typed in the chat's input, in a real VS Code (code-server, chromium): Ctrl+P
 * steps to the next model and Shift+Tab to the next thinking level, as in Pi, and neither reaches
 * the workbench (no Quick Open, no focus move). The workbench's keybindings do not see keys typed in
 * a webview's text field, so the page handles them.
 */
import { strict as assert } from "node:assert";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";
import { createScratchFolder, openWorkbench, WorkbenchSession } from "./harness";
import { chatView, waitUntil } from "./harness/arbor-views";

describe("Pi's cycling keys in the chat's input in a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let session: WorkbenchSession | undefined;
  let server: ScriptedServer;
  const chat = () => chatView(session!.workbench);
  const input = () => chat().locator("textarea.input");
  const modelName = async () => ((await chat().locator("button.model-picker").textContent()) ?? "").trim();

  before(async () => {
    scratch = createScratchFolder("e2e-chat-keys");
    const workspace = join(scratch.path, "workspace");
    const agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    mkdirSync(agentDir);
    server = await startScriptedServer();
    const provider = { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "local", models: [{ id: "first-model", reasoning: true }, { id: "second-model", reasoning: true }] };
    writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { keys: provider } }));
    session = await openWorkbench({ folder: workspace, env: { PI_CODING_AGENT_DIR: agentDir }, viewport: { width: 1280, height: 800 } });
    await session.workbench.openViewContainer("Arbor");
    await session.workbench.runCommand("Arbor: Open Chat");
    await input().waitFor({ state: "visible" });
    // The thinking level belongs to a session: one is open before the keys are pressed.
    await session.workbench.runCommand("Arbor: New Session");
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  after(async () => {
    await session?.close();
    await server?.close();
    scratch?.dispose();
  });

  it("Ctrl+P steps to the next model and Shift+Tab to the next thinking level; the workbench sees neither", async () => {
    await input().click();
    await session!.page.keyboard.type("draft");
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
