/**
 * File checkpoints in a real extension host, over the scripted model server: a turn with the write
 * tool, a turn with bash, a checkout between them that takes the files ("Conversation and files"),
 * and back; then Pi reads the session file. The workspace's files follow the checkouts.
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import { checkpointOf } from "../../../src/core/checkpoints/session-checkpoints";
import type { SessionManager } from "../../../src/core/session/session-manager";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { setPiProvider, until, useScriptedModel } from "./model-helpers";

interface Api {
  readonly testing?: { readonly currentSession: SessionManager | undefined; readonly agentSession: AgentSession | undefined };
}

const loadReference = () =>
  import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{ SessionManager: { open(path: string): { buildSessionContext(): unknown } } }>;

describe("file checkpoints in the extension host", function () {
  this.timeout(120_000);
  let arbor: Api;
  let server: ScriptedServer;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const workspace = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const notes = () => join(workspace(), "checkpoint-notes.txt");
  const sm = (): SessionManager => arbor.testing!.currentSession!;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    server = await startScriptedServer();
    await useScriptedModel("checkpoint-endpoint", server.baseUrl);
    await config().update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    await config().update("tools.autoApprove", "commands", vscode.ConfigurationTarget.Global);
    // The answer "Conversation and files", given by the setting instead of the question.
    await config().update("checkpoints.restoreOnCheckout", "conversationAndFiles", vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.agentSession !== undefined && arbor.testing!.agentSession.getModel()?.id === "scripted-model", "a new session with the scripted model");
  });

  after(async () => {
    for (const key of ["tree.askToSummarizeBranch", "tools.autoApprove", "checkpoints.restoreOnCheckout"]) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    setPiProvider("checkpoint-endpoint", undefined);
    rmSync(notes(), { force: true });
    await server?.close();
  });

  it("a checkout takes the files back to that point and forward again; Pi reads the file", async () => {
    const session = arbor.testing!.agentSession!;
    server.script(
      reply.toolCall({ id: "w", name: "write", arguments: { path: "checkpoint-notes.txt", content: "written by the tool\n" } }),
      reply.text("written"),
      reply.toolCall({ id: "b", name: "bash", arguments: { command: "echo changed by bash > checkpoint-notes.txt" } }),
      reply.text("changed"),
    );
    await session.prompt("write the notes");
    assert.equal(readFileSync(notes(), "utf8"), "written by the tool\n");
    await session.prompt("change the notes with bash");
    assert.equal(readFileSync(notes(), "utf8"), "changed by bash\n");
    const last = sm().getLeafId()!;
    const user2 = sm().getEntries().find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("with bash"))!;
    assert.ok(checkpointOf(sm().getEntry(user2.parentId!)), "a checkpoint before the second prompt");

    await vscode.commands.executeCommand("arbor.tree.checkout", user2.id);
    await until(() => readFileSync(notes(), "utf8") === "written by the tool\n", "the files of the first turn");
    assert.equal(sm().getLeafId(), user2.parentId);

    // Compare Branches: beside the conversation, the files of the two entries (the last one's were recorded as the leaf left it).
    const said: string[] = [];
    const w = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
    const original = w.showInformationMessage!;
    w.showInformationMessage = (message: unknown, ...items: unknown[]) => {
      said.push(String(message));
      return Promise.resolve(items.includes("Show File Changes") ? "Show File Changes" : undefined);
    };
    try {
      await vscode.commands.executeCommand("arbor.compareBranches", user2.id, last);
      await until(() => said.includes("The workspace's files at the two entries differ in 1 file."), "the file comparison offered");
      await until(() => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.startsWith("Files: "))), "the multi-file diff of the two entries");
    } finally {
      w.showInformationMessage = original;
    }
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");

    await vscode.commands.executeCommand("arbor.tree.checkout", last);
    await until(() => existsSync(notes()) && readFileSync(notes(), "utf8") === "changed by bash\n", "the files of the second turn");

    await vscode.commands.executeCommand("arbor.undoFileRestore");
    await until(() => readFileSync(notes(), "utf8") === "written by the tool\n", "the undo of the last restore");

    await sm().flush();
    const pi = await loadReference();
    const theirs = pi.SessionManager.open(sm().getSessionFile()!).buildSessionContext();
    assert.deepEqual(JSON.parse(JSON.stringify(theirs)), JSON.parse(JSON.stringify(sm().buildSessionContext())));
  });
});
