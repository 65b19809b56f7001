/**
 * Pi extension files in the real extension host (issue 8.2): the reference's own examples, unchanged
 * from node_modules, listed in `arbor.extensions.paths`, loaded with the session, their dialogs
 * answered in VS Code's real quick picks, their commands run from the chat and the palette, their
 * tool called by the model through the scripted server, and every file read back by the reference.
 */
import { strict as assert } from "node:assert";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { PiExtensions } from "../../../src/extension/pi/pi-extensions";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { quickPickDrawn } from "./host-helpers";
import { setPiProvider, useScriptedModel } from "./model-helpers";
import { QuickPickWatch, recordNotifications, RecordingSurface } from "./ui-helpers";

interface Api {
  readonly testing?: { readonly currentSession: SessionManager | undefined; readonly agentSession: AgentSession | undefined; readonly chat: ChatController; readonly piExtensions: PiExtensions };
}

interface RefManager {
  getLabel(id: string): string | undefined;
  getSessionName(): string | undefined;
}
const loadReference = () => import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{ SessionManager: { open(path: string): RefManager } }>;

/** The reference's examples, in the repository's node_modules (never copied into the repository). */
const EXAMPLES = join(__dirname, "../../../../node_modules/@mariozechner/pi-coding-agent/examples/extensions");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(25);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe("Pi's example extensions in the extension host (issue 8.2)", function () {
  this.timeout(120_000);
  let arbor: Api;
  let server: ScriptedServer;
  let folder: string;
  let surface: RecordingSurface;
  let detach: vscode.Disposable;
  let picks: QuickPickWatch;
  let notes: ReturnType<typeof recordNotifications>;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const testing = () => arbor.testing!;
  const session = (): AgentSession => {
    const s = testing().agentSession;
    assert.ok(s, "a session is open");
    return s;
  };
  const add = (...examples: string[]) => examples.forEach((name) => copyFileSync(join(EXAMPLES, name), join(folder, name)));
  const loaded = () => testing().piExtensions.statuses().map((s) => `${s.extension.name}:${s.state}`).sort();
  const idle = async () => {
    await until(() => session().isIdle(), "the session to be idle");
    await session().sessionManager.flush();
  };
  const readBack = async (): Promise<RefManager> => {
    await session().sessionManager.flush();
    return (await loadReference()).SessionManager.open(session().sessionManager.getSessionFile()!);
  };

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    assert.ok(arbor.testing, "the runner sets ARBOR_TEST_HOOKS=1");
    assert.ok(existsSync(join(EXAMPLES, "hello.ts")), `the reference's examples are at ${EXAMPLES}`);
    server = await startScriptedServer();
    folder = mkdtempSync(join(tmpdir(), "arbor-pi-ext-"));
    mkdirSync(folder, { recursive: true });
    await useScriptedModel("pi-ext-endpoint", server.baseUrl);
    await config().update("extensions.paths", [folder], vscode.ConfigurationTarget.Global);
    surface = new RecordingSurface();
    detach = testing().chat.attach(surface);
    picks = new QuickPickWatch();
    notes = recordNotifications();
  });

  after(async () => {
    // Leave a session without extensions for the suites that follow (confirm-destructive would ask).
    rmSync(folder, { recursive: true, force: true });
    await config().update("extensions.paths", undefined, vscode.ConfigurationTarget.Global);
    const running = vscode.commands.executeCommand("arbor.newSession");
    if (testing().piExtensions.statuses().some((s) => s.extension.name === "confirm-destructive" && s.state === "loaded")) await picks.answer("confirm-destructive: Clear session?", 0);
    await running;
    picks?.dispose();
    notes?.dispose();
    detach?.dispose();
    setPiProvider("pi-ext-endpoint", undefined);
    await server?.close();
  });

  it("loads the examples with a new session and lists them with their source; hello.ts's tool is called by the model", async () => {
    add("hello.ts", "bookmark.ts", "session-name.ts", "protected-paths.ts", "trigger-compact.ts");
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => loaded().length === 5, "five extensions loaded");
    assert.deepEqual(loaded(), ["bookmark:loaded", "hello:loaded", "protected-paths:loaded", "session-name:loaded", "trigger-compact:loaded"]);
    assert.ok(testing().piExtensions.statuses().every((s) => s.extension.scope === "setting" && s.extension.path.startsWith(folder)));
    // The chat offers their commands under "/".
    const names = testing().chat.state().commands.map((c) => c.name);
    for (const name of ["bookmark", "unbookmark", "session-name", "trigger-compact"]) assert.ok(names.includes(name), `/${name} is offered`);

    server.script(reply.toolCall({ name: "hello", arguments: { name: "VS Code" } }), reply.text("The tool said hello."));
    testing().chat.receive(surface, { type: "send", text: "greet VS Code" });
    await until(() => session().getBranch().some((e) => e.type === "message" && e.message.role === "toolResult"), "the tool result");
    await idle();
    const result = session().getBranch().find((e) => e.type === "message" && e.message.role === "toolResult");
    assert.ok(result?.type === "message" && result.message.role === "toolResult");
    assert.deepEqual(result.message.content, [{ type: "text", text: "Hello, VS Code!" }]);
    const toolMessage = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === "tool");
    assert.match(JSON.stringify(toolMessage), /Hello, VS Code!/);
  });

  it("/bookmark from the chat and /session-name from Run Extension Command label and name the session; the reference reads both", async () => {
    testing().chat.receive(surface, { type: "send", text: "/bookmark the greeting" });
    const lastReply = [...session().getBranch()].reverse().find((e) => e.type === "message" && e.message.role === "assistant")!;
    await until(() => session().sessionManager.getLabel(lastReply.id) === "the greeting", "the label");
    await until(() => notes.infos.includes("bookmark: Bookmarked as: the greeting"), "the bookmark notification");
    await vscode.commands.executeCommand("arbor.runExtensionCommand", "session-name", "Greetings from VS Code");
    assert.ok(notes.infos.includes("session-name: Session named: Greetings from VS Code"), notes.infos.join("\n"));
    const ref = await readBack();
    assert.equal(ref.getLabel(lastReply.id), "the greeting");
    assert.equal(ref.getSessionName(), "Greetings from VS Code");
  });

  it("protected-paths.ts blocks a write to .env; the model reads why and no file is written", async () => {
    const env = join(session().sessionManager.getCwd(), ".env");
    assert.equal(existsSync(env), false);
    server.script(reply.toolCall({ name: "write", arguments: { path: ".env", content: "TOKEN=1" } }), reply.text("I will not write it."));
    testing().chat.receive(surface, { type: "send", text: "store the token in .env" });
    await until(() => server.requests.length > 0 && JSON.stringify(server.requests.at(-1)!.body).includes("is protected"), "the blocked result to reach the model");
    await idle();
    assert.equal(existsSync(env), false);
    assert.ok(notes.warnings.includes("protected-paths: Blocked write to protected path: .env"), notes.warnings.join("\n"));
  });

  it("trigger-compact.ts compacts from its command", async () => {
    server.script(reply.text("## Goal\nGreet and protect .env."));
    await vscode.commands.executeCommand("arbor.runExtensionCommand", "trigger-compact", "");
    await until(() => notes.infos.includes("trigger-compact: Compaction completed"), "the compaction to complete");
    assert.ok(session().getBranch().some((e) => e.type === "compaction"), "a compaction is on the path");
  });

  it("confirm-destructive.ts: a new session, a switch and a fork cancelled in VS Code's quick pick change nothing", async () => {
    add("confirm-destructive.ts");
    const previous = session().sessionManager.getSessionFile()!;
    await vscode.commands.executeCommand("arbor.newSession"); // loads it (the session before had no such extension)
    await until(() => loaded().includes("confirm-destructive:loaded"), "confirm-destructive loaded");
    server.script(reply.text("an answer"));
    testing().chat.receive(surface, { type: "send", text: "a question" });
    await until(() => session().getBranch().some((e) => e.type === "message" && e.message.role === "assistant"), "the reply");
    await idle();
    const file = session().sessionManager.getSessionFile()!;
    const leaf = session().sessionManager.getLeafId();

    let running = vscode.commands.executeCommand("arbor.newSession");
    assert.match(await picks.answer("confirm-destructive: Clear session?", 1), /\[Yes \| No\]/); // "No"
    await running;
    assert.equal(session().sessionManager.getSessionFile(), file, "the new session was cancelled");

    running = vscode.commands.executeCommand("arbor.resumeSession", previous);
    await picks.answer("confirm-destructive: Switch session?", 1);
    await running;
    assert.equal(session().sessionManager.getSessionFile(), file, "the switch was cancelled");

    const question = session().getBranch().find((e) => e.type === "message" && e.message.role === "user")!;
    running = vscode.commands.executeCommand("arbor.tree.fork", question.id);
    await picks.answer(`confirm-destructive: Fork from entry ${question.id.slice(0, 8)}?`, 1); // "No, stay in current session"
    await running;
    assert.equal(session().sessionManager.getSessionFile(), file, "the fork was cancelled");
    assert.equal(session().sessionManager.getLeafId(), leaf);
    assert.deepEqual(
      notes.infos.filter((m) => m.startsWith("confirm-destructive:")),
      ["confirm-destructive: Clear cancelled", "confirm-destructive: Switch cancelled", "confirm-destructive: Fork cancelled"],
    );

    running = vscode.commands.executeCommand("arbor.resumeSession", previous);
    await picks.answer("confirm-destructive: Switch session?", 0); // "Yes"
    await running;
    assert.equal(session().sessionManager.getSessionFile(), previous, "an accepted switch goes ahead");
  });

  it("ctx.ui.setEditorText fills the chat's input, setStatus shows a status item, and a dialog's timeout closes the quick pick", async () => {
    writeFileSync(
      join(folder, "ui-parts.ts"),
      `export default function (pi) {
        pi.registerCommand("draft", { handler: async (args, ctx) => {
          ctx.ui.setEditorText("draft: " + args);
          ctx.ui.setStatus("mode", "drafting");
          const choice = await ctx.ui.select("Pick one", ["a", "b"], { timeout: 300 });
          ctx.ui.notify("choice " + String(choice), "info");
        } });
      }`,
    );
    const running = vscode.commands.executeCommand("arbor.newSession");
    if (loaded().includes("confirm-destructive:loaded")) await picks.answer("confirm-destructive: Clear session?", 0);
    await running;
    await until(() => loaded().includes("ui-parts:loaded"), "ui-parts loaded");
    const before = picks.shown.length;
    testing().chat.receive(surface, { type: "send", text: "/draft a letter" });
    await until(() => notes.infos.includes("ui-parts: choice undefined"), "the timed-out select");
    assert.ok(picks.shown.slice(before).some((p) => p.startsWith("ui-parts: Pick one [a | b]")), "the select was a quick pick");
    assert.equal(surface.of("setInput").at(-1)?.text, "draft: a letter");
    assert.equal(testing().piExtensions.ui.statuses().get("ui-parts/mode"), "drafting");
  });

  it("an extension that throws or calls what VS Code lacks is named in a warning; the session and its other commands keep working", async () => {
    writeFileSync(join(folder, "thrower.ts"), `export default function (pi) { pi.on("before_agent_start", () => { throw new Error("thrower broke"); }); }`);
    writeFileSync(
      join(folder, "tui.ts"),
      `export default function (pi) { pi.registerCommand("panel", { handler: async (_a, ctx) => { ctx.ui.setFooter(() => ({})); ctx.ui.notify("still here", "info"); } }); }`,
    );
    writeFileSync(join(folder, "broken.ts"), "export default function (pi) { pi.on("); // for the next test: a file that does not load
    const running = vscode.commands.executeCommand("arbor.newSession");
    if (loaded().includes("confirm-destructive:loaded")) await picks.answer("confirm-destructive: Clear session?", 0);
    await running;
    await until(() => loaded().includes("thrower:loaded") && loaded().includes("tui:loaded"), "the new files loaded");
    server.script(reply.text("still answering"));
    testing().chat.receive(surface, { type: "send", text: "hello again" });
    await until(() => session().getBranch().some((e) => e.type === "message" && e.message.role === "assistant"), "the reply");
    await idle();
    assert.ok(notes.warnings.some((w) => w.includes('"thrower"') && w.includes("thrower broke")), notes.warnings.join("\n"));
    await vscode.commands.executeCommand("arbor.runExtensionCommand", "panel", "");
    assert.ok(notes.warnings.some((w) => w.includes('"tui"') && w.includes("ctx.ui.setFooter()")), notes.warnings.join("\n"));
    assert.ok(notes.infos.includes("tui: still here"));
  });

  it("Arbor: Extensions lists each file with its state (one that does not load among them) and the process.cwd() note", async () => {
    // broken.ts was added with the thrower (loaded with that session).
    assert.ok(loaded().includes("broken:failed"), loaded().join(", "));
    const listing = vscode.commands.executeCommand("arbor.showExtensions");
    const title = "Arbor: Extensions (Pi extension files of this session)";
    const open = await quickPickDrawn(title);
    for (const label of ["$(error) broken", "$(extensions) hello", "$(info) Note"]) assert.ok(open.labels.includes(label), `${label} in ${open.labels.join(" | ")}`);
    // (Choosing one opens its file; not accepted here: in a full run the list was closed by the
    // workbench moments after it was drawn, something earlier taking the focus.)
    await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    await listing;
  });

  it("widget-placement.ts and hidden-thinking-label.ts show in the chat; a session without them shows none of it", async () => {
    const newSession = async () => {
      const running = vscode.commands.executeCommand("arbor.newSession");
      if (loaded().includes("confirm-destructive:loaded")) await picks.answer("confirm-destructive: Clear session?", 0);
      await running;
    };
    add("widget-placement.ts", "hidden-thinking-label.ts");
    await newSession();
    const chrome = () => testing().chat.extensionUiState;
    await until(() => chrome().widgets.length === 2 && chrome().thinkingLabel === "Pondering...", "the widgets and the label");
    const shown = surface.of("extensionUi").at(-1)?.ui;
    assert.deepEqual(shown?.widgets.map((w) => `${w.placement}: ${w.lines.join("|")}`), ["above: Above editor widget", "below: Below editor widget"]);
    assert.equal(shown?.thinkingLabel, "Pondering...");
    assert.deepEqual(testing().chat.state().extensionUi, shown, "a chat that loads now gets them with its state");
    // /thinking-label from the chat changes the label of folded thinking blocks.
    testing().chat.receive(surface, { type: "send", text: "/thinking-label Mulling" });
    await until(() => chrome().thinkingLabel === "Mulling", "the new label");

    rmSync(join(folder, "widget-placement.ts"));
    rmSync(join(folder, "hidden-thinking-label.ts"));
    await newSession();
    await until(() => chrome().widgets.length === 0 && chrome().thinkingLabel === null, "the old session's chrome to go");
    assert.deepEqual(surface.of("extensionUi").at(-1)?.ui.widgets, []);
  });
});
