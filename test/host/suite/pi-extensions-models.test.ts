/**
 * Issue 8.3: a reference example that uses `ctx.modelRegistry` runs unchanged in the real extension
 * host. custom-compaction.ts summarises with its own model (google/gemini-2.5-flash, found with
 * `modelRegistry.find`, its key from `getApiKeyAndHeaders`, called with pi-ai's `complete`). Here the
 * user's Pi models.json points that model at a second scripted OpenAI-compatible server (as a Pi user
 * points a provider at a proxy), so the test sees the extension's own request, with its key, and the
 * session file records that summary as the compaction, marked as an extension's.
 */
import { strict as assert } from "node:assert";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { PiExtensions } from "../../../src/extension/pi/pi-extensions";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { fileLines, localProviderConfig, modelApi, setPiProvider, until, useScriptedModel } from "./model-helpers";
import { recordNotifications, RecordingSurface } from "./ui-helpers";

interface Api {
  readonly testing?: { readonly agentSession: AgentSession | undefined; readonly chat: ChatController; readonly piExtensions: PiExtensions };
}

const EXAMPLES = join(__dirname, "../../../../node_modules/@mariozechner/pi-coding-agent/examples/extensions");

describe("a Pi example that uses ctx.modelRegistry: custom-compaction.ts (issue 8.3)", function () {
  this.timeout(120_000);
  let arbor: Api;
  let chatServer: ScriptedServer;
  let summaryServer: ScriptedServer;
  let folder: string;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  let notes: ReturnType<typeof recordNotifications>;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const session = (): AgentSession => arbor.testing!.agentSession!;
  const idle = () => until(() => surface.of("runState").at(-1)?.run === null && session().isIdle(), "the run to end", 30_000);

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    chatServer = await startScriptedServer();
    summaryServer = await startScriptedServer({ apiKey: "summary-key" });
    await useScriptedModel("compaction-chat", chatServer.baseUrl);
    // The model the example asks for, served by the summary server (pi-ai's google entry replaced).
    setPiProvider("google", localProviderConfig(summaryServer.baseUrl, ["gemini-2.5-flash"], { apiKey: "summary-key" }));
    const { models } = await modelApi();
    await until(() => models.findEntry({ provider: "google", id: "gemini-2.5-flash" })?.keyMissing === false, "the summary model in models.json");
    folder = mkdtempSync(join(tmpdir(), "arbor-pi-models-"));
    for (const name of ["custom-compaction.ts", "qna.ts", "handoff.ts"]) copyFileSync(join(EXAMPLES, name), join(folder, name));
    await config().update("extensions.paths", [folder], vscode.ConfigurationTarget.Global);
    // Keep only the last exchange verbatim, so that the first one is what gets summarised.
    await config().update("compaction.keepRecentTokens", 1, vscode.ConfigurationTarget.Global);
    surface = new RecordingSurface();
    detach = arbor.testing!.chat.attach(surface);
    notes = recordNotifications();
  });

  after(async () => {
    notes?.dispose();
    detach?.dispose();
    await config().update("extensions.paths", undefined, vscode.ConfigurationTarget.Global);
    await config().update("compaction.keepRecentTokens", undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("arbor.newSession");
    rmSync(folder, { recursive: true, force: true });
    setPiProvider("google", undefined);
    setPiProvider("compaction-chat", undefined);
    await chatServer?.close();
    await summaryServer?.close();
  });

  it("/compact is summarised by the extension's own model; the session file records its summary", async () => {
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.piExtensions.statuses().some((s) => s.extension.name === "custom-compaction" && s.state === "loaded"), "custom-compaction loaded");
    const send = (text: string) => arbor.testing!.chat.receive(surface, { type: "send", text });
    const replies = () => session().getBranch().filter((e) => e.type === "message" && e.message.role === "assistant").length;
    chatServer.script(reply.text("Paris is the capital of France."), reply.text("Berlin is the capital of Germany."));
    send("what is the capital of France?");
    await until(() => replies() === 1, "the first reply", 30_000);
    await idle();
    send("and of Germany?");
    await until(() => replies() === 2, "the second reply", 30_000);
    await idle();
    const secondQuestion = session().getBranch().filter((e) => e.type === "message" && e.message.role === "user")[1]!;
    const ids = session().getBranch().map((e) => e.id);
    const chatRequests = chatServer.requests.length;

    const summary = "## Goals\nName the capital of France.\n\n## State\nAnswered: Paris.";
    summaryServer.script(reply.text(summary));
    send("/compact");
    await until(() => session().getBranch().some((e) => e.type === "compaction"), "the compaction", 30_000);
    await idle();

    // The extension's request: its model, its key, the conversation it serialised.
    assert.equal(summaryServer.requests.length, 1, "one request to the summary model");
    const request = summaryServer.requests[0]!;
    assert.equal(request.headers.authorization, "Bearer summary-key");
    const body = request.body as { model: string; messages: { role: string; content: unknown }[] };
    assert.equal(body.model, "gemini-2.5-flash");
    const prompt = JSON.stringify(body.messages);
    assert.match(prompt, /<conversation>/);
    assert.match(prompt, /what is the capital of France\?/);
    assert.match(prompt, /Paris is the capital of France\./);
    assert.equal(chatServer.requests.length, chatRequests, "Arbor's own summariser was not asked");

    await session().sessionManager.flush();
    const compactions = fileLines(session().sessionManager.getSessionFile()!).filter((line) => line.type === "compaction");
    assert.equal(compactions.length, 1);
    assert.equal(compactions[0]!.summary, summary);
    // The extension keeps Arbor's cut point (here in the last exchange, as keepRecentTokens asks).
    assert.ok(ids.indexOf(compactions[0]!.firstKeptEntryId as string) >= ids.indexOf(secondQuestion.id), "what is kept is in the last exchange");
    assert.equal(compactions[0]!.fromHook, true, "marked as an extension's compaction, as Pi marks it");
    assert.ok(notes.infos.includes("custom-compaction: Custom compaction extension triggered"), notes.infos.join("\n"));
    assert.deepEqual(notes.warnings.filter((m) => m.startsWith("custom-compaction")), []);
    assert.deepEqual(notes.errors.filter((m) => m.startsWith("custom-compaction")), []);
  });

  /** Records the titles of VS Code's progress notifications (and still shows them). */
  const recordProgress = (): { titles: string[]; dispose(): void } => {
    const w = vscode.window as unknown as { withProgress: typeof vscode.window.withProgress };
    const original = w.withProgress;
    const titles: string[] = [];
    w.withProgress = ((options, task) => (titles.push(options.title ?? ""), original.call(vscode.window, options, task))) as typeof vscode.window.withProgress;
    return { titles, dispose: () => void (w.withProgress = original) };
  };

  it("qna.ts: its loader is a progress notification while the model extracts the questions, which land in the chat input", async () => {
    const progress = recordProgress();
    try {
      const lastReply = "Berlin is the capital of Germany.";
      const questions = "Q: Which country next?\nA: ";
      chatServer.script(reply.text(questions));
      const before = chatServer.requests.length;
      arbor.testing!.chat.receive(surface, { type: "send", text: "/qna" });
      await until(() => surface.of("setInput").at(-1)?.text === questions, "the questions in the chat input", 30_000);
      assert.deepEqual(progress.titles, [`qna: Extracting questions using ${session().getModel()!.id}...`]);
      // The extension's own request, through pi-ai's complete() with the window's model and key.
      assert.equal(chatServer.requests.length, before + 1);
      const body = chatServer.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
      assert.match(JSON.stringify(body.messages.filter((m) => m.role === "user")), new RegExp(lastReply));
      assert.match(JSON.stringify(body.messages.filter((m) => m.role === "system")), /question extractor/);
      assert.ok(notes.infos.includes("qna: Questions loaded. Edit and submit when ready."), notes.infos.join("\n"));
    } finally {
      progress.dispose();
    }
  });

  it("handoff.ts: a progress notification while the model writes the prompt, the prompt edited in an editor, then a new session linked to this one", async () => {
    const progress = recordProgress();
    const w = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
    const info = w.showInformationMessage!;
    // The user edits the generated prompt in the editor that opens, then chooses Done.
    w.showInformationMessage = async (message: unknown, ...rest: unknown[]) => {
      if (message !== "handoff: Edit handoff prompt") return info(message, ...rest);
      const editor = vscode.window.activeTextEditor!;
      await editor.edit((edit) => edit.insert(editor.document.positionAt(editor.document.getText().length), "\nAlso check Rome."));
      return "Done";
    };
    try {
      const previous = session().sessionManager.getSessionFile();
      chatServer.script(reply.text("Continue the capitals quiz with Italy."));
      arbor.testing!.chat.receive(surface, { type: "send", text: "/handoff quiz Italy next" });
      await until(() => session().sessionManager.getSessionFile() !== previous && surface.of("setInput").at(-1)?.text === "Continue the capitals quiz with Italy.\nAlso check Rome.", "the new session with the prompt in the input", 30_000);
      assert.deepEqual(progress.titles, ["handoff: Generating handoff prompt..."]);
      assert.equal(session().sessionManager.getHeader()?.parentSession, previous, "the new session names the one it came from");
      const prompt = JSON.stringify((chatServer.requests.at(-1)!.body as { messages: unknown[] }).messages);
      assert.match(prompt, /User's Goal for New Thread/);
      assert.match(prompt, /quiz Italy next/);
      await until(() => notes.infos.includes("handoff: Handoff ready. Submit when ready."), "the replacement session's notice");
      const untitled = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === "untitled");
      assert.deepEqual(untitled.map((t) => t.label), [], "the prompt's editor closed once its text was taken, without asking to save");
    } finally {
      w.showInformationMessage = info;
      progress.dispose();
    }
  });
});
