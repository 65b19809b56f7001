/**
 * Smoke tests of the packaged extension inside a real VS Code extension host. They hold for any
 * version of the extension: it is present, activates, hands out an API object, and its manifest and
 * its registrations agree.
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import { until } from "./host-helpers";

interface Manifest {
  name: string;
  publisher: string;
  contributes?: {
    commands?: { command: string }[];
    views?: Record<string, { id: string }[]>;
  };
}

function findArbor(): vscode.Extension<unknown> {
  const extension = vscode.extensions.all.find((candidate) => (candidate.packageJSON as Manifest).name === "arbor");
  assert.ok(extension, `Arbor is not among the installed extensions: ${vscode.extensions.all.map((e) => e.id).join(", ")}`);
  return extension;
}

describe("Arbor in the extension host", () => {
  it("is installed under its publisher and name", () => {
    const extension = findArbor();
    const manifest = extension.packageJSON as Manifest;
    assert.equal(extension.id.toLowerCase(), `${manifest.publisher}.${manifest.name}`.toLowerCase());
  });

  it("runs in the workspace (Node) extension host of a remote window", function () {
    // A desktop window without a remote runs every extension locally, where the kind reads UI.
    if (!vscode.env.remoteName) this.skip();
    assert.equal(findArbor().extensionKind, vscode.ExtensionKind.Workspace);
  });

  it("activates and returns an API object", async () => {
    const extension = findArbor();
    const api = await extension.activate();
    assert.equal(extension.isActive, true);
    assert.equal(typeof api, "object");
    assert.notEqual(api, null);
  });

  it("registers every command its manifest contributes", async () => {
    await findArbor().activate();
    const contributed = ((findArbor().packageJSON as Manifest).contributes?.commands ?? []).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(contributed.filter((id) => !registered.has(id)), []);
  });

  it("can focus every view its manifest contributes", async () => {
    const api = await findArbor().activate();
    const views = Object.values((findArbor().packageJSON as Manifest).contributes?.views ?? {}).flat();
    // Sessions and Chat in the Arbor container, the tree in its own container in the panel.
    assert.deepEqual(views.map((v) => v.id), ["arbor.sessions", "arbor.chat", "arbor.conversationTree"]);
    const testing = (api as { testing?: { sessions: { view: { visible: boolean } }; tree: { isVisible: boolean }; chat: { readonly anyVisible: boolean } } }).testing;
    assert.ok(testing, "the runner sets ARBOR_TEST_HOOKS=1");
    const shown: Record<string, () => boolean> = {
      "arbor.sessions": () => testing.sessions.view.visible,
      "arbor.conversationTree": () => testing.tree.isVisible,
      "arbor.chat": () => testing.chat.anyVisible,
    };
    for (const view of views) {
      await vscode.commands.executeCommand(`${view.id}.focus`);
      await until(shown[view.id]!, `${view.id} to show after its focus command`);
    }
  });

  it("opened the workspace folder the runner asked for", () => {
    const expected = process.env.ARBOR_HOST_WORKSPACE;
    assert.ok(expected, "ARBOR_HOST_WORKSPACE is not set: the runner passes the folder it opens");
    assert.deepEqual(vscode.workspace.workspaceFolders?.map((folder) => folder.uri.fsPath), [expected]);
  });
});
