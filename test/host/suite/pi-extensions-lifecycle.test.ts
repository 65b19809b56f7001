/**
 * Issue 8.2 in the real extension host, the parts of Pi's API that reach VS Code's own UI and the
 * window's session: `ctx.shutdown()` (the reference's shutdown-command.ts, unchanged: Pi quits, and
 * in VS Code the window stays and its session closes once idle), and a dialog's `{ signal }` (its
 * abort closes VS Code's quick pick or input box, and the call resolves as Pi's does).
 */
import { strict as assert } from "node:assert";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { PiExtensions } from "../../../src/extension/pi/pi-extensions";
import type { HostToWebviewMessage, TreeMessage } from "../../../src/protocol/messages";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { samples, until } from "./host-helpers";
import { fileLines, setPiProvider, useScriptedModel } from "./model-helpers";

interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly chat: ChatController;
    readonly piExtensions: PiExtensions;
    readonly tree: { readonly lastPosted: ReadonlyMap<HostToWebviewMessage["type"], HostToWebviewMessage>; readonly isVisible: boolean };
    readonly statusBar: { readonly visible: boolean };
  };
  registerSessionExtension(ext: { name: string; handlers: Record<string, (event: never) => unknown> }): vscode.Disposable;
}

const EXAMPLES = join(__dirname, "../../../../node_modules/@mariozechner/pi-coding-agent/examples/extensions");

/** Asks with a signal the test aborts once the dialog is up (globalThis is shared with the extension host's extensions). */
const DIALOGS = `export default function (pi) {
  pi.registerCommand("ask", { handler: async (kind, ctx) => {
    const g = (globalThis.__dialogs ??= {});
    const controller = new AbortController();
    g.abort = () => controller.abort();
    if (kind === "pre-aborted") controller.abort();
    const signal = controller.signal;
    let answer;
    if (kind === "confirm") answer = await ctx.ui.confirm("Sure?", "really", { signal });
    else if (kind === "input") answer = await ctx.ui.input("Name", "a name", { signal });
    else answer = await ctx.ui.select("Pick", ["a", "b"], { signal });
    g.answer = answer;
  } });
}`;

/** Calls ctx.shutdown() in a session_start handler Arbor waits for, then waits on the test before it returns. */
const QUIT_ON_START = `export default function (pi) {
  pi.on("session_start", async (e, ctx) => {
    const g = globalThis.__quitOnStart;
    if (!g || e.reason !== "new") return;
    ctx.shutdown();
    g.called = true;
    await g.gate;
  });
}`;

type QuitOnStart = { gate: Promise<void>; called?: boolean };

type Dialogs = { abort?: () => void; answer?: unknown };
const dialogs = (): Dialogs => ((globalThis as { __dialogs?: Dialogs }).__dialogs ??= {});

type Widget = { title: string; hidden: boolean; box?: vscode.InputBox };
type Window = { createQuickPick: typeof vscode.window.createQuickPick; createInputBox: typeof vscode.window.createInputBox };

/** Records the quick picks and input boxes Arbor shows, and when the workbench reports each hidden. */
function watchWidgets(): { shown: Widget[]; dispose(): void } {
  const w = vscode.window as Window;
  const original = { pick: w.createQuickPick, box: w.createInputBox };
  const shown: Widget[] = [];
  const watch = <T extends vscode.QuickPick<vscode.QuickPickItem> | vscode.InputBox>(widget: T, isBox: boolean): T => {
    const entry: Widget = { title: "", hidden: false, box: isBox ? (widget as vscode.InputBox) : undefined };
    // Subscribed before Arbor's own listener, which disposes the widget (and its events) as it hides.
    widget.onDidHide(() => (entry.hidden = true));
    const show = widget.show.bind(widget);
    widget.show = () => {
      entry.title = widget.title ?? "";
      shown.push(entry);
      show();
    };
    return widget;
  };
  w.createQuickPick = function <T extends vscode.QuickPickItem>() {
    return watch(original.pick.call(vscode.window) as unknown as vscode.QuickPick<vscode.QuickPickItem>, false) as unknown as vscode.QuickPick<T>;
  };
  w.createInputBox = () => watch(original.box.call(vscode.window), true);
  return {
    shown,
    dispose: () => {
      w.createQuickPick = original.pick;
      w.createInputBox = original.box;
    },
  };
}

describe("Pi extensions and the window: ctx.shutdown and dialog signals (issue 8.2)", function () {
  this.timeout(120_000);
  let arbor: Api;
  let server: ScriptedServer;
  let folder: string;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const testing = () => arbor.testing!;
  const loaded = () => testing().piExtensions.statuses().map((s) => `${s.extension.name}:${s.state}`).sort();
  /** A copy of the main sample, resumed with the extensions in `folder` loaded. */
  const resumeCopy = async (name: string, expected: string[]): Promise<string> => {
    const main = samples().mainFile;
    const file = join(dirname(main), `${name}-${basename(main)}`);
    copyFileSync(main, file);
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    await until(() => testing().currentSession?.getSessionFile() === file && expected.every((e) => loaded().includes(`${e}:loaded`)), `${expected.join(", ")} loaded`);
    return file;
  };

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = (await ext.activate()) as Api;
    server = await startScriptedServer();
    folder = mkdtempSync(join(tmpdir(), "arbor-pi-lifecycle-"));
    copyFileSync(join(EXAMPLES, "shutdown-command.ts"), join(folder, "shutdown-command.ts"));
    writeFileSync(join(folder, "dialogs.js"), DIALOGS);
    writeFileSync(join(folder, "quit-on-start.js"), QUIT_ON_START);
    await useScriptedModel("pi-lifecycle-endpoint", server.baseUrl);
    await config().update("extensions.paths", [folder], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    rmSync(folder, { recursive: true, force: true });
    await config().update("extensions.paths", undefined, vscode.ConfigurationTarget.Global);
    // Leave a session without these extensions for the suites that follow.
    await vscode.commands.executeCommand("arbor.newSession");
    setPiProvider("pi-lifecycle-endpoint", undefined);
    delete (globalThis as { __dialogs?: unknown }).__dialogs;
    delete (globalThis as { __quitOnStart?: unknown }).__quitOnStart;
    await server?.close();
  });

  it("/quit (ctx.shutdown() in a command) closes the window's session as Pi quits: session_shutdown 'quit', the file released, every view shows no session", async () => {
    await vscode.commands.executeCommand("arbor.conversationTree.focus");
    await until(() => testing().tree.isVisible, "the Conversation Tree to show");
    const file = await resumeCopy("quit", ["shutdown-command"]);
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({ name: "quit-watch", handlers: { session_shutdown: (e: { reason: string }) => void seen.push(`shutdown ${e.reason}`) } });
    try {
      await vscode.commands.executeCommand("arbor.runExtensionCommand", "quit", "");
      await until(() => testing().currentSession === undefined, "the session to close");
      await until(() => !existsSync(`${file}.lock`), "the file to be released");
      assert.deepEqual(seen, ["shutdown quit"]);
      assert.equal(testing().chat.title(), undefined, "the chat shows no session");
      assert.equal(testing().statusBar.visible, false, "the status bar shows no session");
      await until(() => (testing().tree.lastPosted.get("tree") as TreeMessage | undefined)?.session === null, "the tree to show no session");
    } finally {
      reg.dispose();
    }
  });

  it("finish_and_exit (ctx.shutdown() in a tool) lets the reply finish, then closes the session", async () => {
    const file = await resumeCopy("finish", ["shutdown-command"]);
    assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider: "pi-lifecycle-endpoint", id: "scripted-model" }), true);
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({
      name: "finish-watch",
      handlers: { agent_end: () => void seen.push("agent_end"), session_shutdown: (e: { reason: string }) => void seen.push(`shutdown ${e.reason}`) },
    });
    try {
      server.script(reply.toolCall({ name: "finish_and_exit", arguments: {} }), reply.text("All done; closing."));
      const result = await testing().agentSession!.prompt("finish up");
      assert.equal(result.kind === "reply" && result.message.stopReason, "stop", "the reply ran to its end");
      await until(() => testing().currentSession === undefined, "the session to close");
      assert.deepEqual(seen, ["agent_end", "shutdown quit"]);
      // The window lets go of the session before its close has flushed the reply's last entries (a
      // clean-clone run read the file in between): wait for the close's write, not for a duration.
      type Line = { message?: { role: string; content: { text?: string }[] } };
      await until(() => (fileLines(file).at(-1) as Line).message?.role === "assistant", "the reply's last entry in the file");
      const last = fileLines(file).at(-1) as Line;
      assert.equal(last.message?.role, "assistant");
      assert.equal(last.message?.content[0]?.text, "All done; closing.", "the model's last answer is in the file");
    } finally {
      reg.dispose();
    }
  });

  it("ctx.shutdown() in a handler Arbor waits for (session_start) closes the session once that replacement is done: no deadlock, no lost request", async () => {
    await resumeCopy("quit-on-start", ["quit-on-start"]);
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({ name: "quit-on-start-watch", handlers: { session_shutdown: (e: { reason: string }) => void seen.push(`shutdown ${e.reason}`), session_start: (e: { reason: string }) => void seen.push(`start ${e.reason}`) } });
    let release!: () => void;
    const g: QuitOnStart = { gate: new Promise<void>((resolve) => (release = resolve)) };
    (globalThis as { __quitOnStart?: QuitOnStart }).__quitOnStart = g;
    try {
      const running = vscode.commands.executeCommand("arbor.newSession");
      await until(() => g.called === true, "the handler to ask for the shutdown");
      release();
      await running;
      await until(() => testing().currentSession === undefined, "the session to close after the New Session");
      assert.deepEqual(seen, ["shutdown new", "start new", "shutdown quit"]);
    } finally {
      release();
      delete (globalThis as { __quitOnStart?: unknown }).__quitOnStart;
      reg.dispose();
    }
  });

  it("a dialog's signal closes the quick pick or input box, and the call resolves as Pi's (confirm false, select and input undefined); an aborted one is never shown", async () => {
    await resumeCopy("dialogs", ["dialogs"]);
    const widgets = watchWidgets();
    try {
      for (const [kind, title, expected] of [["confirm", "dialogs: Sure?", false], ["select", "dialogs: Pick", undefined], ["input", "dialogs: Name", undefined]] as const) {
        delete dialogs().answer;
        const from = widgets.shown.length;
        const running = vscode.commands.executeCommand("arbor.runExtensionCommand", "ask", kind);
        await until(() => widgets.shown.slice(from).some((s) => s.title === title), `the ${kind} dialog`);
        const widget = widgets.shown.slice(from).find((s) => s.title === title)!;
        // Typed but not accepted: Pi's input resolves undefined when aborted all the same.
        if (widget.box) widget.box.value = "half typed";
        assert.equal(widget.hidden, false);
        dialogs().abort!();
        await running;
        assert.equal(widget.hidden, true, `the ${kind} dialog was closed`);
        assert.ok("answer" in dialogs(), `the ${kind} call resolved`);
        assert.equal(dialogs().answer, expected, `${kind} resolves as Pi's`);
      }
      const from = widgets.shown.length;
      delete dialogs().answer;
      await vscode.commands.executeCommand("arbor.runExtensionCommand", "ask", "pre-aborted");
      assert.ok("answer" in dialogs());
      assert.equal(dialogs().answer, undefined);
      assert.deepEqual(widgets.shown.slice(from).map((s) => s.title), [], "nothing was shown");
    } finally {
      widgets.dispose();
    }
  });
});
