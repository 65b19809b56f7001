/**
 * Issue 8 point 1 in the real extension host: every replacement path of the VS Code layer goes
 * through the runtime in Pi's order. Checkout is tree navigation, a new session in another folder
 * is a switch, session_start comes after the UI rebound, a failed reload leaves "no session",
 * a replacement started inside a handler is refused, a settings reload never stops a reply, and
 * a session another window holds cannot be deleted.
 */
import { strict as assert } from "node:assert";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import { SessionManager } from "../../../src/core/session/session-manager";
import type { SampleSessions } from "../../support/sample-sessions";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { messagesShownBy } from "./host-helpers";
import { localProviderConfig, modelApi, setPiProvider, useScriptedModel } from "./model-helpers";

interface Ctx {
  readonly sessionFile: string | undefined;
  newSession(): Promise<{ cancelled: boolean }>;
}
interface Api {
  readonly testing?: { readonly currentSession: SessionManager | undefined; readonly agentSession: AgentSession | undefined };
  readonly onDidChangeSession: vscode.Event<SessionManager | undefined>;
  getSessionContext(): Ctx | undefined;
  registerSessionExtension(ext: { name: string; handlers: Record<string, (event: never, ctx: Ctx) => unknown> }): vscode.Disposable;
  onDidReportError(listener: (r: { extension: string; event: string; error: Error }) => void): vscode.Disposable;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(): Promise<Api> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext);
  return (await ext.activate()) as Api;
}

function samples(): SampleSessions {
  return JSON.parse(readFileSync(process.env.ARBOR_SAMPLE_SESSIONS!, "utf8")) as SampleSessions;
}

/** A copy of the main sample session in the same folder, so tests can break it without touching the others. */
function copyOfMain(name: string): string {
  const s = samples();
  const file = join(dirname(s.mainFile), `${name}-${basename(s.mainFile)}`);
  copyFileSync(s.mainFile, file);
  return file;
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe("replacement paths in the VS Code layer (issue 8.1)", function () {
  this.timeout(90_000);
  let arbor: Api;
  const current = () => arbor.testing!.currentSession;
  before(async () => (arbor = await api()));

  it("a checkout is tree navigation: session_before_tree can cancel it, session_tree follows", async () => {
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", copyOfMain("checkout"));
    const sm = current()!;
    const leaf = sm.getLeafId();
    let cancel = true;
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({
      name: "tree-guard",
      handlers: {
        session_before_tree: (e: { preparation: { targetId: string } }) => (seen.push(`before ${e.preparation.targetId}`), cancel ? { cancel: true } : undefined),
        session_tree: (e: { newLeafId: string | null }) => void seen.push(`tree ${e.newLeafId}`),
      },
    });
    try {
      await vscode.commands.executeCommand("arbor.checkoutEntry", s.main.abandonedLeafId);
      assert.equal(sm.getLeafId(), leaf, "cancelled: the leaf did not move");
      cancel = false;
      await vscode.commands.executeCommand("arbor.checkoutEntry", s.main.abandonedLeafId);
      assert.equal(sm.getLeafId(), s.main.abandonedLeafId);
      assert.deepEqual(seen, [`before ${s.main.abandonedLeafId}`, `before ${s.main.abandonedLeafId}`, `tree ${s.main.abandonedLeafId}`]);
    } finally {
      reg.dispose();
    }
  });

  it("session_start reaches handlers after the views were rebound to the new session", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", copyOfMain("rebind"));
    const order: string[] = [];
    const sub = arbor.onDidChangeSession((sm) => order.push(`views rebound to ${sm?.getSessionId()}`));
    const reg = arbor.registerSessionExtension({
      name: "ui-checker",
      handlers: { session_start: (_e: never, ctx: Ctx) => void order.push(`session_start sees ${current()?.getSessionFile() === ctx.sessionFile ? "its session in the UI" : "a stale UI"}`) },
    });
    try {
      await vscode.commands.executeCommand("arbor.cloneSession");
      const id = current()!.getSessionId();
      assert.deepEqual(order, [`views rebound to ${id}`, "session_start sees its session in the UI"]);
    } finally {
      sub.dispose();
      reg.dispose();
    }
  });

  it("a handler that starts a replacement while Arbor waits for it is refused with a clear error, and nothing hangs", async () => {
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", copyOfMain("nested"));
    let error: Error | undefined;
    // A handler timeout longer than the test's: a replacement queued behind the one waiting for it would hang the test.
    const config = vscode.workspace.getConfiguration("arbor");
    await config.update("extensions.handlerTimeout", 3600, vscode.ConfigurationTarget.Global);
    const reg = arbor.registerSessionExtension({
      name: "eager",
      handlers: {
        session_before_fork: async (_e: never, ctx: Ctx) => {
          await ctx.newSession().catch((e: Error) => (error = e));
        },
        // The same through VS Code's command (the session host's queue, not the runtime's).
        session_before_switch: async () => void (await vscode.commands.executeCommand("arbor.newSession")),
      },
    });
    try {
      await vscode.commands.executeCommand("arbor.forkFromEntry", s.main.branchPointId);
      assert.match(error?.message ?? "", /cannot be started from an extension handler that Arbor is waiting for.*"eager", in session_before_fork/s);
      const file = current()!.getSessionFile();
      const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.newSession"));
      assert.ok(shown.errors.some((m) => /cannot be started from an extension handler that Arbor is waiting for.*"eager", in session_before_switch/s.test(m)), shown.errors.join("\n"));
      assert.notEqual(current()!.getSessionFile(), file, "the outer New Session went ahead");
    } finally {
      reg.dispose();
      await config.update("extensions.handlerTimeout", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("New Session in another sessions folder is a switch: cancellable, and session_start names the previous file", async () => {
    const previous = copyOfMain("previous");
    await vscode.commands.executeCommand("arbor.resumeSession", previous);
    const elsewhere = join(dirname(dirname(previous)), "elsewhere-sessions");
    mkdirSync(elsewhere, { recursive: true });
    const config = vscode.workspace.getConfiguration("arbor");
    await config.update("sessionsDirectory", elsewhere, vscode.ConfigurationTarget.Global);
    let cancel = true;
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({
      name: "switch-guard",
      handlers: {
        session_before_switch: (e: { reason: string }) => (seen.push(`before ${e.reason}`), cancel ? { cancel: true } : undefined),
        session_start: (e: { reason: string; previousSessionFile?: string }) => void seen.push(`start ${e.reason} after ${e.previousSessionFile === previous ? "the previous file" : String(e.previousSessionFile)}`),
      },
    });
    try {
      await vscode.commands.executeCommand("arbor.newSession");
      assert.equal(current()?.getSessionFile(), previous, "cancelled: still the previous session");
      cancel = false;
      await vscode.commands.executeCommand("arbor.newSession");
      assert.deepEqual(seen, ["before new", "before new", "start new after the previous file"]);
      assert.equal(current()?.getSessionDir(), elsewhere);
    } finally {
      reg.dispose();
      await config.update("sessionsDirectory", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("a session another window holds cannot be deleted, also while this window shows it read-only", async () => {
    const { spawn } = await import("node:child_process");
    const file = copyOfMain("held");
    const root = join(__dirname, "../../../..");
    const holder = spawn(process.execPath, [join(root, "test/support/lock-holder.js"), join(root, "out/src/core/session/session-manager.js"), file], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.once("data", (d: Buffer) => (String(d).startsWith("held") ? resolve() : reject(new Error(String(d)))));
        holder.once("exit", (code) => reject(new Error(`lock holder exited ${code}`)));
      });
      await vscode.commands.executeCommand("arbor.resumeSession", file);
      assert.equal(current()?.isReadOnly(), true);
      const info = (await SessionManager.list(process.env.ARBOR_HOST_WORKSPACE!, { indexDir: false })).find((i) => i.path === file);
      assert.ok(info);
      // Refused before any confirmation is asked (the modal would be a warning message).
      const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.sessions.delete", { info, forks: [] }));
      assert.deepEqual(shown.warnings, [], "no confirmation was asked");
      assert.ok(shown.errors.some((m) => m.includes("is open in another Arbor window")), shown.errors.join("\n"));
      assert.equal(existsSync(file), true, "the file is still there");
    } finally {
      holder.kill("SIGKILL");
    }
  });
});

describe("reloads for settings changes (issue 8.1)", function () {
  this.timeout(90_000);
  let arbor: Api;
  let server: ScriptedServer | undefined;
  const config = () => vscode.workspace.getConfiguration("arbor");
  before(async () => (arbor = await api()));
  after(async () => {
    setPiProvider("reload-endpoint", undefined);
    await config().update("compaction.enabled", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it("waits for a running reply instead of stopping it, then rebuilds the session", async () => {
    server = await startScriptedServer();
    await vscode.commands.executeCommand("arbor.resumeSession", copyOfMain("reload"));
    setPiProvider("reload-endpoint", localProviderConfig(server.baseUrl, ["scripted-model"]));
    const models = await modelApi();
    await until(() => models.models.findEntry({ provider: "reload-endpoint", id: "scripted-model" }) !== undefined, "the models.json provider");
    await vscode.commands.executeCommand("arbor.selectModel", { provider: "reload-endpoint", id: "scripted-model" });
    await until(() => arbor.testing!.agentSession?.getModel()?.id === "scripted-model", "the model");
    const starts: string[] = [];
    const reg = arbor.registerSessionExtension({ name: "reload-watch", handlers: { session_start: (e: { reason: string }) => void starts.push(e.reason) } });
    try {
      server.script(reply.text("a slow but complete answer", { chunks: 5, delayMs: 300 }));
      const session = arbor.testing!.agentSession!;
      // The settings change lands while the reply streams: after its first piece, before its last.
      const streaming = new Promise<void>((resolve) => {
        const sub = session.onEvent((event) => {
          if (event.type !== "message_update") return;
          sub.dispose();
          resolve();
        });
      });
      const running = session.prompt("take your time");
      await streaming;
      await config().update("compaction.enabled", false, vscode.ConfigurationTarget.Global);
      const result = await running;
      assert.equal(result.kind === "reply" && result.message.stopReason, "stop", "the reply was not stopped");
      await until(() => starts.includes("reload"), "the reload after the reply");
      assert.notEqual(arbor.testing!.agentSession, session);
    } finally {
      reg.dispose();
    }
  });

  it("a checkout is refused while a reply runs, as in Pi, and the reply goes on", async () => {
    server ??= await startScriptedServer();
    await vscode.commands.executeCommand("arbor.resumeSession", copyOfMain("busy-checkout"));
    await useScriptedModel("reload-endpoint", server.baseUrl);
    await config().update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    const target = samples().main.abandonedLeafId;
    const session = arbor.testing!.agentSession!;
    const seen: string[] = [];
    const reg = arbor.registerSessionExtension({ name: "busy-tree", handlers: { session_before_tree: () => void seen.push("before_tree") } });
    try {
      server.script(reply.text("an answer that takes its time", { chunks: 5, delayMs: 300 }));
      const running = session.prompt("take your time");
      await until(() => !session.isIdle(), "the reply to start");
      const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.checkoutEntry", target));
      assert.ok(shown.errors.some((m) => /busy/.test(m)), shown.errors.join("\n"));
      const result = await running;
      assert.equal(result.kind === "reply" && result.message.stopReason, "stop", "the reply was not stopped");
      const leaf = session.sessionManager.getEntry(session.sessionManager.getLeafId()!);
      assert.ok(leaf?.type === "message" && leaf.message.role === "assistant", "the leaf is the reply, not the checked-out entry");
      assert.deepEqual(seen, [], "no tree navigation began");
    } finally {
      reg.dispose();
      await config().update("tree.askToSummarizeBranch", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("a reload that cannot reopen the file leaves no session, releases it and says so", async () => {
    const file = copyOfMain("broken");
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    assert.equal(arbor.testing!.currentSession?.getSessionFile(), file);
    const errors: string[] = [];
    const sub = arbor.onDidChangeSession((sm) => errors.push(sm ? "session" : "no session"));
    // The file is replaced by something that is not a session file (a folder) behind Arbor's back.
    renameSync(file, `${file}.moved`);
    mkdirSync(file);
    try {
      await config().update("compaction.enabled", true, vscode.ConfigurationTarget.Global);
      await until(() => arbor.testing!.currentSession === undefined, "the views to show no session");
      assert.ok(errors.includes("no session"));
      assert.equal(existsSync(`${file}.lock`), false, "nothing holds the file");
      assert.equal(arbor.getSessionContext(), undefined);
    } finally {
      sub.dispose();
      rmSync(file, { recursive: true, force: true });
      renameSync(`${file}.moved`, file);
    }
  });
});
