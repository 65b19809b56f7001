/**
 * The project's own Pi defaults in the real extension host: a `.pi/settings.json` in the workspace
 * naming a model and a thinking level gives a new session that model and level, over the model last
 * chosen in Arbor (as Pi's project setting beats the choice it keeps in the user's file); without it,
 * the last chosen model comes back.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { localProviderConfig, modelApi, setPiProvider, until } from "./model-helpers";

describe("a project's Pi defaults in the extension host", function () {
  this.timeout(60_000);
  const workspace = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const settingsFile = () => join(workspace(), ".pi", "settings.json");
  let saved: string | undefined;

  before(() => {
    saved = existsSync(settingsFile()) ? readFileSync(settingsFile(), "utf8") : undefined;
  });
  after(() => {
    setPiProvider("project-defaults", undefined);
    if (saved === undefined) rmSync(settingsFile(), { force: true });
    else writeFileSync(settingsFile(), saved);
  });

  it("a new session takes the model and level the project's .pi/settings.json names, over the last chosen", async () => {
    const arbor = await modelApi();
    // Reasoning models, so that a thinking level is kept.
    setPiProvider("project-defaults", localProviderConfig("http://127.0.0.1:9", [], { models: [{ id: "chosen-model", reasoning: true }, { id: "project-model", reasoning: true }] }));
    await until(() => arbor.models.findEntry({ provider: "project-defaults", id: "project-model" }) !== undefined, "the models.json provider");
    assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "project-defaults", id: "chosen-model" }), true);

    mkdirSync(join(workspace(), ".pi"), { recursive: true });
    writeFileSync(settingsFile(), JSON.stringify({ defaultProvider: "project-defaults", defaultModel: "project-model", defaultThinkingLevel: "high" }));
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.agentSession?.getModel()?.id === "project-model", "the project's model in a new session");
    assert.equal(arbor.agentSession!.getThinkingLevel(), "high");

    rmSync(settingsFile());
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.agentSession?.getModel()?.id === "chosen-model", "the last chosen model without the project's file");
  });
});
