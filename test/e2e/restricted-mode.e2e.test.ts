/**
 * Restricted Mode in a real VS Code (code-server with workspace trust on, the folder not trusted):
 * the chat says why the agent only reads here, `!cmd` runs nothing, the model is offered read-only
 * tools only, and a bash call it makes anyway is refused without a dialog, the refusal recorded as
 * the call's result.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";
import { createScratchFolder, modalDialog, openWorkbench, WorkbenchSession, writePiModelsJson } from "./harness";
import { chatView, sendInChat, waitUntil } from "./harness/arbor-views";

describe("Restricted Mode in a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let server: ScriptedServer;
  let session: WorkbenchSession | undefined;
  let workspace: string;

  before(async () => {
    scratch = createScratchFolder("e2e-restricted");
    workspace = join(scratch.path, "workspace");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# untrusted workspace\n");
    server = await startScriptedServer();
    // The model is the user's own (Pi's models.json in the user's agent folder), not the workspace's.
    const agentDir = join(scratch.path, "agent");
    writePiModelsJson(agentDir, server.baseUrl);
    session = await openWorkbench({
      folder: workspace,
      restrictedMode: true,
      env: { PI_CODING_AGENT_DIR: agentDir },
    });
    await session.workbench.openViewContainer("Arbor");
  });

  after(async () => {
    await session?.close();
    await server?.close();
    scratch?.dispose();
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) await session.reportFailure(this.currentTest.fullTitle());
  });

  it("the chat says why; !cmd runs nothing", async () => {
    await sendInChat(session!.workbench, "!touch from-bang.txt");
    const notice = chatView(session!.workbench).locator(".notice-restricted .notice-text");
    await notice.waitFor({ state: "visible", timeout: 60_000 });
    assert.match(await notice.innerText(), /^Restricted Mode: this workspace is not trusted, so the agent only reads files here\./);
    await chatView(session!.workbench).getByText(/Shell commands are disabled in this workspace/).first().waitFor({ state: "visible", timeout: 60_000 });
    assert.equal(existsSync(join(workspace, "from-bang.txt")), false);
    await session!.workbench.screenshot("restricted-mode-chat");
  });

  it("the model is offered read-only tools; a bash call is refused without a dialog and the refusal is what the model reads", async () => {
    const completions = () => server.requests.filter((r) => r.path.endsWith("/chat/completions"));
    const before = completions().length;
    server.script(reply.toolCall({ id: "call_restricted", name: "bash", arguments: { command: "touch from-tool.txt" } }), reply.text("I cannot run commands here."));
    await sendInChat(session!.workbench, "Create from-tool.txt");
    await waitUntil("the second request, after the refused call", () => completions().length >= before + 2, 60_000);
    const first = completions()[before]!.body as { tools?: { function: { name: string } }[] };
    assert.deepEqual((first.tools ?? []).map((t) => t.function.name), ["read", "grep", "find", "ls"]);
    assert.match(JSON.stringify(completions()[before + 1]!.body), /Shell commands are disabled in this workspace/);
    assert.equal(await modalDialog(session!.page).count(), 0, "no approval was asked for");
    assert.equal(existsSync(join(workspace, "from-tool.txt")), false);
  });
});
