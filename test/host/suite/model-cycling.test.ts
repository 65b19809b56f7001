/**
 * Model cycling in a real extension host: Next/Previous Scoped Model step the session through the
 * models `arbor.model.enabled` names (with a pattern's thinking level), Next Thinking Level steps
 * through the model's levels, and the keybindings act only in the chat (the backward one only on
 * macOS, where Ctrl+Shift+P is not the Command Palette).
 */
import { strict as assert } from "node:assert";
import * as vscode from "vscode";
import { nextThinkingLevel } from "../../../src/core/models/model-scope";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { modelApi, setPiProvider, until } from "./model-helpers";

describe("model cycling in the extension host", function () {
  this.timeout(90_000);
  const config = () => vscode.workspace.getConfiguration("arbor");
  let server: ScriptedServer;

  before(async () => {
    server = await startScriptedServer();
    setPiProvider("cycle-endpoint", {
      baseUrl: server.baseUrl,
      api: "openai-completions",
      apiKey: "local",
      models: ["cyc-a", "cyc-b", "cyc-c"].map((id) => ({ id, reasoning: true })),
    });
    const { models } = await modelApi();
    await until(() => models.findEntry({ provider: "cycle-endpoint", id: "cyc-c" }) !== undefined, "the cycle-endpoint models");
    assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "cycle-endpoint", id: "cyc-a" }), true);
  });

  after(async () => {
    await config().update("model.enabled", undefined, vscode.ConfigurationTarget.Global);
    setPiProvider("cycle-endpoint", undefined);
    await server.close();
  });

  it("steps through the scoped models, forward and back, with a pattern's thinking level", async () => {
    const api = await modelApi();
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => api.agentSession?.getModel()?.id === "cyc-a", "a new session on cyc-a");
    const session = api.agentSession!;
    session.setThinkingLevel("low");
    await config().update("model.enabled", ["cycle-endpoint/cyc-a", "cyc-c:high"], vscode.ConfigurationTarget.Global);
    assert.equal(await vscode.commands.executeCommand("arbor.cycleModel"), "cycle-endpoint/cyc-c");
    assert.equal(session.getModel()?.id, "cyc-c");
    assert.equal(session.getThinkingLevel(), "high", "the level the pattern names");
    assert.equal(await vscode.commands.executeCommand("arbor.cycleModel"), "cycle-endpoint/cyc-a", "wraps around, skipping cyc-b");
    assert.equal(session.getThinkingLevel(), "high", "no level in the pattern: the session keeps its own");
    assert.equal(await vscode.commands.executeCommand("arbor.cycleModelBackward"), "cycle-endpoint/cyc-c");
    const levels = session.getModel()!.thinkingLevels!;
    const expected = nextThinkingLevel(levels, session.getThinkingLevel());
    assert.ok(expected);
    assert.equal(await vscode.commands.executeCommand("arbor.cycleThinkingLevel"), expected);
    assert.equal(session.getThinkingLevel(), expected);
    const changes = session.sessionManager.getBranch().filter((e) => e.type === "model_change").map((e) => (e as { modelId?: string }).modelId);
    assert.deepEqual(changes.slice(-3), ["cyc-c", "cyc-a", "cyc-c"], "each step is recorded as Pi records a model change");
  });

  it("the keybindings are Pi's keys and act only while the chat has focus", () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    const bindings = (ext.packageJSON as { contributes: { keybindings: { command: string; key: string; when: string }[] } }).contributes.keybindings;
    const byCommand = Object.fromEntries(bindings.map((b) => [b.command, b]));
    assert.equal(byCommand["arbor.cycleModel"]?.key, "ctrl+p");
    assert.equal(byCommand["arbor.cycleThinkingLevel"]?.key, "shift+tab");
    for (const id of ["arbor.cycleModel", "arbor.cycleThinkingLevel"]) assert.equal(byCommand[id]?.when, "focusedView == 'arbor.chat'");
    // Elsewhere Ctrl+Shift+P is the Command Palette, which the chat must not take over.
    assert.equal(byCommand["arbor.cycleModelBackward"]?.key, "ctrl+shift+p");
    assert.equal(byCommand["arbor.cycleModelBackward"]?.when, "isMac && focusedView == 'arbor.chat'");
  });
});
