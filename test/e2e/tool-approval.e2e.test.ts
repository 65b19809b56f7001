/**
 * Approving a tool call in a real VS Code (code-server, the packaged arbor.vsix, chromium): the
 * model (the scripted OpenAI-compatible server on 127.0.0.1) calls the bash tool, VS Code's modal
 * dialog shows the exact command, and a real click on Allow Once runs it, or on Deny records the
 * denial in the session file without running anything.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, startScriptedServer, type ScriptedServer } from "../support/scripted-openai-server";
import { clickModalButton, createScratchFolder, openWorkbench, readModalDialog, WorkbenchSession, writePiModelsJson } from "./harness";
import { sendInChat, waitUntil } from "./harness/arbor-views";

/** Every session file under a folder, depth first. */
function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sessionFiles(path) : entry.name.endsWith(".jsonl") ? [path] : [];
  });
}

/** The toolResult message of a call, from whichever session file holds it. */
function toolResultOnDisk(agentDir: string, toolCallId: string): { isError: boolean; text: string } | undefined {
  for (const file of sessionFiles(join(agentDir, "sessions"))) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.includes(toolCallId) || !line.includes('"toolResult"')) continue;
      const entry = JSON.parse(line) as { message?: { role: string; toolCallId: string; isError: boolean; content: { text?: string }[] } };
      if (entry.message?.role === "toolResult" && entry.message.toolCallId === toolCallId) {
        return { isError: entry.message.isError, text: entry.message.content.map((b) => b.text ?? "").join("") };
      }
    }
  }
  return undefined;
}

describe("approving a tool call in a real VS Code (e2e)", function () {
  this.timeout(180_000);
  let scratch: { readonly path: string; dispose(): void };
  let server: ScriptedServer;
  let session: WorkbenchSession | undefined;
  let workspace: string;
  let agentDir: string;

  before(async () => {
    scratch = createScratchFolder("e2e-approval");
    workspace = join(scratch.path, "workspace");
    agentDir = join(scratch.path, "agent");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "README.md"), "# e2e workspace\n");
    server = await startScriptedServer();
    // The scripted server set up as a Pi user sets up a local server: a provider in models.json.
    writePiModelsJson(agentDir, server.baseUrl);
    session = await openWorkbench({
      folder: workspace,
      env: { PI_CODING_AGENT_DIR: agentDir },
    });
    await session.workbench.openViewContainer("Arbor");
  });

  afterEach(async function () {
    if (this.currentTest?.state === "failed" && session) {
      await session.reportFailure(this.currentTest.fullTitle());
      await session.page.keyboard.press("Escape").catch(() => undefined);
    }
  });

  after(async () => {
    await session?.close();
    await server?.close();
    scratch?.dispose();
  });

  it("shows the exact command in VS Code's modal and runs it after a click on Allow Once", async () => {
    const { page, workbench } = session!;
    server.script(
      reply.toolCall({ id: "call_e2e_allow", name: "bash", arguments: { command: "printf 'approved in the workbench' > approved.txt" } }),
      reply.text("Created approved.txt."),
    );
    await sendInChat(session!.workbench, "Please create approved.txt.");
    const dialog = await readModalDialog(page);
    assert.equal(dialog.message, "The agent wants to run this command");
    assert.ok(dialog.detail.startsWith(`printf 'approved in the workbench' > approved.txt`), dialog.detail);
    assert.match(dialog.detail, new RegExp(`in ${workspace.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    // (The workbench lays the buttons out in its platform's order, the primary one, Allow Once, last on Linux.)
    assert.deepEqual([...dialog.buttons].sort(), ["Allow Once", "Allow for This Session", "Deny"].sort());
    assert.equal(existsSync(join(workspace, "approved.txt")), false, "nothing runs before the answer");
    await workbench.screenshot("tool-approval-dialog");
    await clickModalButton(page, "Allow Once");
    const written = await waitUntil("the approved command to run", () => existsSync(join(workspace, "approved.txt")) && (readFileSync(join(workspace, "approved.txt"), "utf8") || undefined));
    assert.equal(written, "approved in the workbench");
    const result = await waitUntil("the tool result in the session file", () => toolResultOnDisk(agentDir, "call_e2e_allow"), 30_000);
    assert.deepEqual(result, { isError: false, text: "(no output)" });
  });

  it("a click on Deny runs nothing and records the denial in the session file", async () => {
    const { page } = session!;
    server.script(reply.toolCall({ id: "call_e2e_deny", name: "bash", arguments: { command: "touch denied.txt" } }), reply.text("Understood."));
    await sendInChat(session!.workbench, "Now create denied.txt.");
    const dialog = await readModalDialog(page);
    assert.ok(dialog.detail.startsWith("touch denied.txt"), dialog.detail);
    await clickModalButton(page, "Deny");
    const result = await waitUntil("the denial in the session file", () => toolResultOnDisk(agentDir, "call_e2e_deny"), 30_000);
    assert.equal(result.isError, true);
    assert.match(result.text, /^The user denied this command, so it did not run\./);
    assert.equal(existsSync(join(workspace, "denied.txt")), false);
  });
});
