/**
 * Issue 8.1 in the real extension host, the failure and waiting paths of replacements: a New Session
 * in a sessions folder that cannot be made (what the views, the lock and the extensions see), and a
 * reload for a settings change while a compaction runs (it waits for the compaction, never stops it).
 */
import { strict as assert } from "node:assert";
import { copyFileSync, existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { TreeMessage, HostToWebviewMessage } from "../../../src/protocol/messages";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { messagesShownBy, samples, until } from "./host-helpers";
import { fileLines, modelApi, setPiProvider, useScriptedModel } from "./model-helpers";
import { RecordingSurface } from "./ui-helpers";

interface Ctx {
  readonly sessionFile: string | undefined;
  getLeafId(): string | null;
}
interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly chat: ChatController;
    readonly tree: { readonly lastPosted: ReadonlyMap<HostToWebviewMessage["type"], HostToWebviewMessage>; readonly isVisible: boolean };
    readonly statusBar: { readonly text: string; readonly visible: boolean };
  };
  getSessionContext(): Ctx | undefined;
  registerSessionExtension(ext: { name: string; handlers: Record<string, (event: never, ctx: Ctx) => unknown> }): vscode.Disposable;
}

async function api(): Promise<Api> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext);
  return (await ext.activate()) as Api;
}

/** A copy of the main sample session beside it, for a test to use alone. */
function copyOfMain(name: string): string {
  const s = samples();
  const file = join(dirname(s.mainFile), `${name}-${basename(s.mainFile)}`);
  copyFileSync(s.mainFile, file);
  return file;
}

const config = () => vscode.workspace.getConfiguration("arbor");

/** Resolves once a configuration change of `section` reached this extension host (Arbor's own listener, registered earlier, has run by then). */
function configurationChanged(section: string): Promise<void> {
  return new Promise((resolve) => {
    const sub = vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration(section)) return;
      sub.dispose();
      resolve();
    });
  });
}

describe("replacement failures and waits in the VS Code layer (issue 8.1)", function () {
  this.timeout(90_000);
  let arbor: Api;
  let server: ScriptedServer | undefined;
  const testing = () => arbor.testing!;
  before(async () => (arbor = await api()));
  after(async () => {
    await config().update("sessionsDirectory", undefined, vscode.ConfigurationTarget.Global);
    // The suites that follow expect no model of this one (a checkout would ask to summarise with it).
    setPiProvider("reload-compaction", undefined);
    const { models } = await modelApi();
    await until(() => models.findEntry({ provider: "reload-compaction", id: "scripted-model" }) === undefined, "the test's model to be gone");
    await server?.close();
  });

  it("New Session in a sessions folder that cannot be made changes nothing, says why, and every view still shows the open session", async () => {
    await vscode.commands.executeCommand("arbor.conversationTree.focus");
    await until(() => testing().tree.isVisible, "the Conversation Tree to show");
    const previous = copyOfMain("failed-new");
    await vscode.commands.executeCommand("arbor.resumeSession", previous);
    const session = testing().agentSession!;
    const sm = session.sessionManager;
    assert.equal(sm.getSessionFile(), previous);
    const surface = new RecordingSurface();
    const attached = testing().chat.attach(surface);
    // A plain file where the sessions folder should be: it cannot be made.
    const blocked = join(dirname(dirname(previous)), "blocked-sessions");
    writeFileSync(blocked, "a file, not a folder\n");
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({
      name: "failed-new-watch",
      handlers: {
        session_before_switch: (e: { reason: string }) => void seen.push(`before_switch ${e.reason}`),
        session_shutdown: (e: { reason: string }) => void seen.push(`shutdown ${e.reason}`),
        session_start: (e: { reason: string }) => void seen.push(`start ${e.reason}`),
      },
    });
    const context = arbor.getSessionContext()!;
    try {
      await config().update("sessionsDirectory", blocked, vscode.ConfigurationTarget.Global);
      const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.newSession"));
      assert.ok(shown.errors.some((m) => m.includes(blocked)), `the error names the folder: ${shown.errors.join("\n")}`);
      // As in Pi, the new session is prepared before the old one is shut down: nothing was shut down.
      assert.deepEqual(seen, ["before_switch new"]);
      assert.equal(testing().agentSession, session, "the session is still the open one");
      assert.equal(session.isDisposed(), false);
      assert.equal(context.getLeafId(), sm.getLeafId(), "its extension contexts are live");
      assert.equal(sm.isReadOnly(), false, "it still holds its file for writing");
      assert.equal(existsSync(`${previous}.lock`), true, "its lock is held");
      assert.equal(readdirSync(dirname(blocked)).some((n) => n.startsWith("blocked-sessions") && n !== "blocked-sessions"), false, "nothing else was made");
      // The views say so: the tree, the chat and the status bar show the session, not "no session".
      const tree = testing().tree.lastPosted.get("tree") as TreeMessage | undefined;
      assert.equal(tree?.session?.sessionId, sm.getSessionId(), "the tree shows the session");
      assert.equal(surface.of("chatState").length, 0, "the chat was not rebound");
      assert.equal(testing().chat.title() !== undefined, true, "the chat shows the session");
      assert.equal(testing().statusBar.visible, true, "the status bar shows the session");
      assert.ok(testing().statusBar.text.length > 0);
      // And it goes on: a New Session where the folder can be made works.
      await config().update("sessionsDirectory", undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand("arbor.newSession");
      assert.deepEqual(seen, ["before_switch new", "before_switch new", "shutdown new", "start new"]);
      assert.notEqual(testing().agentSession, session);
    } finally {
      reg.dispose();
      attached.dispose();
      rmSync(blocked, { force: true });
    }
  });

  it("a reload for a settings change waits for a running compaction instead of stopping it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Every summary request (a compaction that cuts a turn asks for two) is answered only once the test has seen the reload asked for.
    server = await startScriptedServer({ respond: () => ({ kind: "stream", steps: [{ type: "wait", until: gate }, ...reply.text("## Goal\nthe summary, in its own time").steps] }) });
    // Something to compact in the small sample: keep almost nothing. (Seen here before the session opens,
    // so the reload this change asks for has run before the test's own.)
    const kept = configurationChanged("arbor.compaction.keepRecentTokens");
    await config().update("compaction.keepRecentTokens", 1, vscode.ConfigurationTarget.Global);
    await kept;
    const file = copyOfMain("reload-compaction");
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    await useScriptedModel("reload-compaction", server.baseUrl);
    const session = testing().agentSession!;
    const events: string[] = [] as string[];
    const reg = arbor.registerSessionExtension({
      name: "compaction-reload-watch",
      handlers: {
        session_compact: () => void events.push("session_compact"),
        session_shutdown: (e: { reason: string }) => void events.push(`shutdown ${e.reason}`),
        session_start: (e: { reason: string }) => void events.push(`start ${e.reason}`),
      },
    });
    const requestsBefore = server.requests.length;
    try {
      const compaction = session.compact();
      await until(() => server!.requests.length > requestsBefore, "the summary request");
      const summaryRequests = server.requests.slice(requestsBefore);
      const changed = configurationChanged("arbor.compaction");
      await config().update("compaction.reserveTokens", 12_000, vscode.ConfigurationTarget.Global);
      await changed;
      // Arbor has asked for the reload; the compaction still runs.
      assert.equal(session.isIdle(), false, "the compaction still runs");
      assert.equal(testing().agentSession, session, "not reloaded under it");
      assert.equal(events.length, 0, `nothing happened yet: ${events.join(", ")}`);
      release();
      const outcome = await compaction;
      assert.equal(outcome.kind, "compacted", "the compaction was not stopped");
      assert.ok(server.requests.slice(requestsBefore).every((r) => !r.clientAborted) && summaryRequests.length > 0, "its requests were not cancelled");
      await until(() => events.includes("start reload"), "the reload after the compaction");
      assert.deepEqual(events, ["session_compact", "shutdown reload", "start reload"]);
      assert.notEqual(testing().agentSession, session);
      assert.ok(fileLines(file).some((l) => l.type === "compaction"), "the compaction is in the file");
      assert.ok(testing().currentSession?.getBranch().some((e) => e.type === "compaction"), "and in the reloaded session");
    } finally {
      release();
      reg.dispose();
      await config().update("compaction.reserveTokens", undefined, vscode.ConfigurationTarget.Global);
      await config().update("compaction.keepRecentTokens", undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
