/**
 * Pi's ExtensionAPI mapped to VS Code (issue 8.2), in the real extension host: `ctx.modelRegistry`,
 * `ctx.model` and `pi.setModel` are the window's models (what Select Model offers), `getEditorText`
 * / `setEditorText` are the chat's input, `ctx.ui.input` is answered in VS Code's input box and
 * `ctx.ui.editor` in an editor. The extension files are written here, each reporting what it saw
 * through `ctx.ui.notify` (what the user would read).
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { PiExtensions } from "../../../src/extension/pi/pi-extensions";
import { until } from "./host-helpers";
import { localProviderConfig, setPiProvider, useScriptedModel, type ModelsProbe } from "./model-helpers";
import { InputBoxWatch, recordNotifications, RecordingSurface } from "./ui-helpers";
import { startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";

interface Api {
  readonly testing?: { readonly agentSession: AgentSession | undefined; readonly chat: ChatController; readonly piExtensions: PiExtensions; readonly models: ModelsProbe };
}

/** What the extensions below report: each notify is one JSON line, prefixed with the extension's name by Arbor. */
const EXTENSION = `export default function (pi) {
  const key = (m) => (m ? m.provider + "/" + m.id : null);
  pi.registerCommand("models", { handler: async (args, ctx) => {
    const auth = ctx.model ? await ctx.modelRegistry.getApiKeyAndHeaders(ctx.model) : undefined;
    ctx.ui.notify(JSON.stringify({
      all: ctx.modelRegistry.getAll().map(key),
      available: ctx.modelRegistry.getAvailable().map(key),
      model: key(ctx.model),
      baseUrl: ctx.model && ctx.model.baseUrl,
      found: key(ctx.modelRegistry.find("ui-second", "other-model")),
      auth: auth && auth.ok ? auth.apiKey : auth && auth.error,
    }));
  } });
  pi.registerCommand("use", { handler: async (args, ctx) => {
    const [provider, id] = args.split("/");
    const model = ctx.modelRegistry.find(provider, id) ?? { provider, id, name: id, api: "openai-completions", baseUrl: "", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 };
    ctx.ui.notify(JSON.stringify({ used: await pi.setModel(model), now: key(ctx.model) }));
  } });
  pi.registerCommand("peek", { handler: async (args, ctx) => {
    const before = ctx.ui.getEditorText();
    if (args) ctx.ui.setEditorText(args);
    ctx.ui.notify(JSON.stringify({ before, after: ctx.ui.getEditorText() }));
  } });
  pi.registerCommand("ask", { handler: async (args, ctx) => {
    const answer = await ctx.ui.input("Your name", "as in the file header");
    ctx.ui.notify(JSON.stringify({ answer: answer === undefined ? "(dismissed)" : answer }));
  } });
  pi.registerCommand("write", { handler: async (args, ctx) => {
    const text = await ctx.ui.editor("Commit message", "first line");
    ctx.ui.notify(JSON.stringify({ text: text === undefined ? "(dismissed)" : text }));
  } });
}`;

describe("Pi's ExtensionAPI in VS Code: models, the chat input, input boxes and editors (issue 8.2)", function () {
  this.timeout(120_000);
  let arbor: Api;
  let server: ScriptedServer;
  let folder: string;
  let notes: ReturnType<typeof recordNotifications>;
  let boxes: InputBoxWatch;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  const testing = () => arbor.testing!;
  const config = () => vscode.workspace.getConfiguration("arbor");
  /** Runs `/name args` from the palette and returns what the extension reported. */
  const run = async (name: string, args: string): Promise<Record<string, unknown>> => {
    const from = notes.infos.length;
    await vscode.commands.executeCommand("arbor.runExtensionCommand", name, args);
    const line = notes.infos.slice(from).find((m) => m.startsWith("ui-probe: "));
    assert.ok(line, `/${name} reported (infos: ${notes.infos.slice(from).join(" | ")})`);
    return JSON.parse(line.slice("ui-probe: ".length)) as Record<string, unknown>;
  };

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    assert.ok(arbor.testing, "the runner sets ARBOR_TEST_HOOKS=1");
    server = await startScriptedServer();
    await useScriptedModel("ui-endpoint", server.baseUrl);
    folder = mkdtempSync(join(tmpdir(), "arbor-pi-ui-"));
    writeFileSync(join(folder, "ui-probe.ts"), EXTENSION);
    await config().update("extensions.paths", [folder], vscode.ConfigurationTarget.Global);
    surface = new RecordingSurface();
    detach = testing().chat.attach(surface);
    boxes = new InputBoxWatch();
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => testing().piExtensions.statuses().some((s) => s.extension.name === "ui-probe" && s.state === "loaded"), "ui-probe loaded");
    notes = recordNotifications();
  });

  after(async () => {
    notes?.dispose();
    boxes?.dispose();
    detach?.dispose();
    await config().update("extensions.paths", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("arbor.newSession");
    rmSync(folder, { recursive: true, force: true });
    setPiProvider("ui-second", undefined);
    setPiProvider("ui-endpoint", undefined);
    await server?.close();
  });

  it("ctx.modelRegistry and ctx.model are the window's models, as Select Model lists them, live; pi.setModel uses one", async () => {
    const models = testing().models;
    const listed = () => models.entries().map((e) => `${e.provider}/${e.id}`);
    let seen = await run("models", "");
    assert.deepEqual(seen.all, listed(), "getAll() is Select Model's list, in its order");
    assert.deepEqual(seen.available, models.entries().filter((e) => !e.keyMissing).map((e) => `${e.provider}/${e.id}`));
    assert.equal(seen.model, "ui-endpoint/scripted-model");
    assert.equal(seen.baseUrl, server.baseUrl, "ctx.model is the models.json model itself, with its address");
    assert.equal(seen.auth, "local", "the key models.json gives the provider");
    assert.equal(seen.found, null);

    // A provider added to models.json while the session runs: the extension sees it without a new session.
    setPiProvider("ui-second", localProviderConfig(server.baseUrl, ["other-model"]));
    await until(() => models.findEntry({ provider: "ui-second", id: "other-model" }) !== undefined, "the second provider");
    seen = await run("models", "");
    assert.equal(seen.found, "ui-second/other-model");
    assert.deepEqual(seen.all, listed());

    assert.deepEqual(await run("use", "ui-second/other-model"), { used: true, now: "ui-second/other-model" });
    assert.equal(testing().agentSession?.getModel()?.id, "other-model");
    await until(() => testing().chat.state().model?.id === "other-model", "the chat to show the model");
    // A model Arbor does not know (no key, no provider) is refused as Pi refuses one without a key.
    const unknown = await run("use", "nowhere/ghost-model");
    assert.deepEqual(unknown, { used: false, now: "ui-second/other-model" });
    assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "ui-endpoint", id: "scripted-model" }), true);
  });

  it("ctx.ui.getEditorText reads what the user has in the chat input; setEditorText puts text there", async () => {
    // What the chat webview reports as the user types (its composer posts each change).
    testing().chat.receive(surface, { type: "inputChanged", text: "half a thought" });
    assert.deepEqual(await run("peek", ""), { before: "half a thought", after: "half a thought" });
    assert.deepEqual(await run("peek", "from the extension"), { before: "half a thought", after: "from the extension" });
    assert.equal(surface.of("setInput").at(-1)?.text, "from the extension", "the chat's input shows it");
    testing().chat.receive(surface, { type: "inputChanged", text: "" });
    assert.deepEqual(await run("peek", ""), { before: "", after: "" });
  });

  it("ctx.ui.input is answered in VS Code's input box, titled with the extension's name; Escape gives undefined", async () => {
    let running = run("ask", "");
    const shown = await boxes.answer("ui-probe: Your name", "Ada");
    assert.equal(shown.placeholder, "as in the file header");
    assert.deepEqual(await running, { answer: "Ada" });
    running = run("ask", "");
    await boxes.answer("ui-probe: Your name", undefined);
    assert.deepEqual(await running, { answer: "(dismissed)" });
  });

  it("ctx.ui.editor opens the prefilled text in an editor; the edited text is the answer once the user chooses Done", async () => {
    const w = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
    const recorded = w.showInformationMessage!;
    let asked = "";
    // The user edits the text in the editor that opened, then chooses "Done" in the notification.
    w.showInformationMessage = async (message: unknown, ...rest: unknown[]) => {
      if (!String(message).startsWith("ui-probe: Commit message")) return recorded(message, ...rest);
      asked = String(message);
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor?.document.isUntitled, "an untitled editor is active");
      assert.equal(editor.document.getText(), "first line");
      await editor.edit((edit) => edit.insert(editor.document.positionAt(editor.document.getText().length), "\n\nbody written in VS Code"));
      return "Done";
    };
    try {
      assert.deepEqual(await run("write", ""), { text: "first line\n\nbody written in VS Code" });
      assert.equal(asked, "ui-probe: Commit message");
      w.showInformationMessage = async (message: unknown, ...rest: unknown[]) => (String(message).startsWith("ui-probe: Commit message") ? undefined : recorded(message, ...rest));
      assert.deepEqual(await run("write", ""), { text: "(dismissed)" });
      // Both editors closed again, without a save prompt.
      assert.deepEqual(vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === "untitled").map((t) => t.label), []);
    } finally {
      w.showInformationMessage = recorded;
    }
  });
});
