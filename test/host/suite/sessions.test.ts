/**
 * Arbor's commands in a real extension host, on genuine Pi sample sessions: resume, checkout,
 * label, fork, clone, rename; the files are checked afterwards with the reference package.
 */
import { strict as assert } from "node:assert";
import { readFileSync, rmSync } from "node:fs";
import * as vscode from "vscode";
import { SessionManager } from "../../../src/core/session/session-manager";
import type { SampleSessions } from "../../support/sample-sessions";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { localProviderConfig, modelApi, setPiProvider } from "./model-helpers";
import { acceptInQuickPick, quickPickDrawn } from "./host-helpers";

interface StaleCheckContext {
  readonly sessionFile: string | undefined;
  appendEntry(customType: string, data?: unknown): string;
  setLabel(entryId: string, label: string | undefined): string;
  setSessionName(name: string): string;
}

interface Api {
  readonly testing?: { readonly currentSession: SessionManager | undefined };
  readonly onDidChangeSession: vscode.Event<SessionManager | undefined>;
  getSessionContext(): StaleCheckContext | undefined;
  registerSessionExtension(ext: { name: string; handlers: Record<string, (event: { type: string }) => unknown> }): vscode.Disposable;
}

interface RefManager {
  getLeafId(): string | null;
  getLabel(id: string): string | undefined;
  getSessionName(): string | undefined;
  getHeader(): { parentSession?: string } | null;
  getEntries(): { id: string; type: string }[];
  buildSessionContext(): unknown;
}

const loadReference = () => import("@mariozechner/pi-coding-agent") as Promise<unknown> as Promise<{ SessionManager: { open(path: string): RefManager } }>;

function samples(): SampleSessions {
  const file = process.env.ARBOR_SAMPLE_SESSIONS;
  assert.ok(file, "ARBOR_SAMPLE_SESSIONS is not set by the runner");
  return JSON.parse(readFileSync(file, "utf8")) as SampleSessions;
}

/** The session manager behind the window (through the test-only hook). */
function current(api: Api): SessionManager | undefined {
  assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
  return api.testing.currentSession;
}

async function api(): Promise<Api> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext);
  return (await ext.activate()) as Api;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe("Arbor sessions in the extension host", function () {
  this.timeout(60_000);
  let s: SampleSessions;
  let arbor: Api;
  before(async () => {
    s = samples();
    arbor = await api();
  });

  it("contributes exactly the commands it registers", async () => {
    const manifest = (vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!.packageJSON as { contributes: { commands: { command: string }[] } });
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    // VS Code adds commands of its own for each contributed view (focus, reset location, ...).
    const viewCommand = /^arbor\.(sessions|conversationTree|chat)\.(focus|resetViewLocation|toggleVisibility|removeView|open)$/;
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith("arbor.") && !viewCommand.test(c));
    assert.deepEqual([...new Set(registered)].sort(), contributed);
  });

  it("resumes the newest session through the palette's quick pick", async () => {
    const newest = (await SessionManager.list(process.env.ARBOR_HOST_WORKSPACE!, { indexDir: false }))[0]!;
    const running = vscode.commands.executeCommand("arbor.resumeSession");
    await acceptInQuickPick("Resume Session");
    await running;
    assert.equal(current(arbor)?.getSessionFile(), newest.path);
  });

  it("Resume Session offers a session written a moment ago by another process, before the Sessions view has redrawn", async () => {
    // The view has rows (a first pick lists them), then Pi writes a new session in a terminal.
    const first = vscode.commands.executeCommand("arbor.resumeSession");
    await quickPickDrawn("Resume Session");
    await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    await first;
    const pi = (await import("@mariozechner/pi-coding-agent")) as unknown as {
      SessionManager: { create(cwd: string, dir: string): { appendMessage(m: unknown): string; getSessionFile(): string } };
    };
    const text = `Written from a terminal just now ${Date.now().toString(36)}`;
    const fresh = pi.SessionManager.create(process.env.ARBOR_HOST_WORKSPACE!, s.sessionDir);
    fresh.appendMessage({ role: "user", content: text, timestamp: Date.now() });
    fresh.appendMessage({ role: "assistant", content: [{ type: "text", text: "ok" }], api: "openai-completions", provider: "p", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: Date.now() });
    const file = fresh.getSessionFile();
    try {
      const running = vscode.commands.executeCommand("arbor.resumeSession");
      const accepted = await acceptInQuickPick("Resume Session", text);
      await running;
      assert.equal(accepted, text);
      assert.equal(current(arbor)?.getSessionFile(), file);
    } finally {
      await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
      rmSync(file, { force: true });
    }
  });

  it("resumes a given session, checks out an entry on another branch, and the file resumes there in Pi", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const sm = current(arbor)!;
    assert.equal(sm.getSessionFile(), s.mainFile);
    assert.equal(sm.getSessionName(), s.mainName);
    await vscode.commands.executeCommand("arbor.checkoutEntry", s.main.abandonedLeafId);
    assert.equal(sm.getLeafId(), s.main.abandonedLeafId);
    await sm.flush();
    const pi = await loadReference();
    const ref = pi.SessionManager.open(s.mainFile);
    assert.deepEqual(ref.buildSessionContext(), JSON.parse(JSON.stringify(sm.buildSessionContext())));
    // and back to where it was
    await vscode.commands.executeCommand("arbor.checkoutEntry", s.main.leafId);
    assert.equal(sm.getLeafId(), s.main.leafId);
  });

  it("labels and clears a label through the commands; Pi reads them from the file", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const sm = current(arbor)!;
    await vscode.commands.executeCommand("arbor.labelEntry", { entryId: s.main.firstUserId, label: "from the host test" });
    assert.equal(sm.getLabel(s.main.firstUserId), "from the host test");
    const pi = await loadReference();
    assert.equal(pi.SessionManager.open(s.mainFile).getLabel(s.main.firstUserId), "from the host test");
    await vscode.commands.executeCommand("arbor.clearLabel", { entryId: s.main.firstUserId });
    assert.equal(pi.SessionManager.open(s.mainFile).getLabel(s.main.firstUserId), undefined);
  });

  it("renames the session", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    await vscode.commands.executeCommand("arbor.renameSession", "Renamed in the host");
    const pi = await loadReference();
    assert.equal(pi.SessionManager.open(s.mainFile).getSessionName(), "Renamed in the host");
    await vscode.commands.executeCommand("arbor.renameSession", s.mainName);
  });

  it("forks from an entry into a new file linked to the old one, and every surface rebinds", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const before = current(arbor)!;
    let replaced: SessionManager | undefined;
    const sub = arbor.onDidChangeSession((sm) => (replaced = sm));
    await vscode.commands.executeCommand("arbor.forkFromEntry", s.main.branchPointId);
    sub.dispose();
    const after = current(arbor)!;
    assert.notEqual(after, before);
    assert.equal(replaced, after);
    const file = after.getSessionFile()!;
    assert.notEqual(file, s.mainFile);
    const pi = await loadReference();
    const ref = pi.SessionManager.open(file);
    assert.equal(ref.getHeader()?.parentSession, s.mainFile);
    // the fork ends at the entry (then its re-applied labels, which Pi also chains under the path)
    const entries = ref.getEntries();
    const end = entries.filter((e) => e.type !== "label").pop();
    assert.equal(end?.id, s.main.branchPointId);
    assert.deepEqual(ref.buildSessionContext(), JSON.parse(JSON.stringify(before.buildSessionContext(s.main.branchPointId))));
    assert.throws(() => before.appendCustomEntry("x"), /closed|read-only/, "the old session is closed");
  });

  it("a context captured before a fork goes stale: it throws and writes to neither file", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const context = arbor.getSessionContext();
    assert.ok(context);
    assert.equal(context.sessionFile, s.mainFile);
    const events: string[] = [];
    const reg = arbor.registerSessionExtension({
      name: "host-test",
      handlers: {
        session_before_fork: (e) => void events.push(e.type),
        session_shutdown: (e) => void events.push(e.type),
        session_start: (e) => void events.push(e.type),
      },
    });
    await vscode.commands.executeCommand("arbor.forkFromEntry", s.main.branchPointId);
    reg.dispose();
    assert.deepEqual(events, ["session_before_fork", "session_shutdown", "session_start"]);
    const forked = current(arbor)!.getSessionFile()!;
    const oldBytes = readFileSync(s.mainFile, "utf8");
    const newBytes = readFileSync(forked, "utf8");
    for (const call of [() => context.appendEntry("stale.write", { n: 1 }), () => context.setLabel(s.main.firstUserId, "stale"), () => context.setSessionName("stale")]) {
      assert.throws(call, (e: unknown) => e instanceof Error && /stale/i.test(e.message) && /session replacement|replaced/i.test(e.message));
    }
    await current(arbor)!.flush();
    assert.equal(readFileSync(s.mainFile, "utf8"), oldBytes, "the old file is untouched");
    assert.equal(readFileSync(forked, "utf8"), newBytes, "the new file is untouched");
    // a fresh context works on the new session
    const fresh = arbor.getSessionContext()!;
    assert.equal(fresh.sessionFile, forked);
    fresh.appendEntry("host.test", { ok: true });
  });

  it("clones the current session at its leaf", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const leaf = current(arbor)!.getLeafId();
    await vscode.commands.executeCommand("arbor.cloneSession");
    const clone = current(arbor)!;
    assert.notEqual(clone.getSessionFile(), s.mainFile);
    const pi = await loadReference();
    const ref = pi.SessionManager.open(clone.getSessionFile()!);
    assert.equal(ref.getHeader()?.parentSession, s.mainFile);
    assert.ok(ref.getEntries().some((e) => e.id === leaf));
  });

  it("continues the most recent session of the workspace", async () => {
    const { statSync } = await import("node:fs");
    const byAge = async () =>
      (await SessionManager.list(process.env.ARBOR_HOST_WORKSPACE!, { indexDir: false }))
        .map((i) => ({ path: i.path, mtime: statSync(i.path).mtimeMs }))
        .sort((a, b) => b.mtime - a.mtime);
    // Start from the least recently written session, so that only a switch makes the test pass.
    const oldest = (await byAge()).at(-1)!.path;
    await vscode.commands.executeCommand("arbor.resumeSession", oldest);
    await until(() => current(arbor)?.getSessionFile() === oldest, "the oldest session to open");
    const newest = (await byAge())[0]!.path;
    assert.notEqual(newest, oldest, "the workspace has more than one session");
    await vscode.commands.executeCommand("arbor.continueRecent");
    await until(() => current(arbor)?.getSessionFile() === newest, "the most recently written session to open");
  });
});

describe("a session held by another Arbor window", function () {
  this.timeout(60_000);
  let arbor: Api;
  let holder: import("node:child_process").ChildProcess | undefined;
  before(async () => (arbor = await api()));
  after(() => holder?.kill("SIGKILL"));

  it("opens as a live read-only view, and Clone makes a writable fork", async () => {
    const { spawn } = await import("node:child_process");
    const { join } = await import("node:path");
    const s = samples();
    const root = join(__dirname, "../../../..");
    holder = spawn(process.execPath, [join(root, "test/support/lock-holder.js"), join(root, "out/src/core/session/session-manager.js"), s.linearFile], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.once("data", (d: Buffer) => (String(d).startsWith("held") ? resolve() : reject(new Error(String(d)))));
      holder!.once("exit", (code) => reject(new Error(`lock holder exited ${code}`)));
    });
    await vscode.commands.executeCommand("arbor.resumeSession", s.linearFile);
    const sm = current(arbor)!;
    assert.equal(sm.getSessionFile(), s.linearFile);
    assert.equal(sm.isReadOnly(), true);
    assert.match(sm.getReadOnlyReason()!, /another Arbor window/);
    const before = readFileSync(s.linearFile, "utf8");
    await vscode.commands.executeCommand("arbor.labelEntry", { entryId: sm.getLeafId(), label: "must not be written" });
    assert.equal(readFileSync(s.linearFile, "utf8"), before, "a read-only view never writes");
    await vscode.commands.executeCommand("arbor.cloneSession");
    const fork = current(arbor)!;
    assert.notEqual(fork.getSessionFile(), s.linearFile);
    assert.equal(fork.isReadOnly(), false);
    assert.equal(fork.getHeader().parentSession, s.linearFile);
  });
});

describe("leaving a branch with a summary, through a model endpoint", function () {
  this.timeout(60_000);
  let arbor: Api;
  let server: ScriptedServer | undefined;
  before(async () => (arbor = await api()));
  after(async () => {
    const config = vscode.workspace.getConfiguration("arbor");
    setPiProvider("summary-endpoint", undefined);
    const models = await modelApi();
    await until(() => models.models.findEntry({ provider: "summary-endpoint", id: "scripted-model" }) === undefined, "the provider to be gone", 15_000);
    await config.update("tree.askToSummarizeBranch", undefined, vscode.ConfigurationTarget.Global);
    await server?.close();
  });

  it("asks on a checkout that leaves entries behind, summarizes them through the model and attaches the summary", async () => {
    const endpoint = await startScriptedServer();
    server = endpoint;
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const config = vscode.workspace.getConfiguration("arbor");
    // A local endpoint configured as a Pi user does: a provider in the agent folder's models.json.
    setPiProvider("summary-endpoint", localProviderConfig(endpoint.baseUrl, ["scripted-model"]));
    const models = await modelApi();
    await until(() => models.models.findEntry({ provider: "summary-endpoint", id: "scripted-model" }) !== undefined, "the models.json provider");
    await vscode.commands.executeCommand("arbor.selectModel", { provider: "summary-endpoint", id: "scripted-model" });
    await config.update("tree.askToSummarizeBranch", true, vscode.ConfigurationTarget.Global);
    await until(() => current(arbor)?.getSessionFile() === s.mainFile, "the session", 5000);
    endpoint.script(reply.text("## Goal\nTried a streaming reader; it broke on CRLF."));
    const before = current(arbor)!.getLeafId();
    const running = vscode.commands.executeCommand("arbor.checkoutEntry", s.main.abandonedLeafId);
    await acceptInQuickPick("Leaving a branch", /Summarize the branch I am leaving/);
    await running;
    const sm = current(arbor)!;
    await sm.flush();
    assert.equal(endpoint.requests.length, 1, "the summary went through the configured endpoint");
    const pi = await loadReference();
    const ref = pi.SessionManager.open(s.mainFile);
    const summary = ref.getEntries().filter((e) => e.type === "branch_summary").pop() as unknown as { summary: string; fromId: string; parentId: string };
    assert.match(summary.summary, /streaming reader/);
    assert.equal(summary.fromId, s.main.abandonedLeafId);
    assert.equal(summary.parentId, s.main.abandonedLeafId);
    assert.notEqual(sm.getLeafId(), before);
    await config.update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("arbor.checkoutEntry", s.main.leafId);
    assert.equal(endpoint.requests.length, 1, "with asking turned off, a checkout just moves the leaf");
  });
});

describe("entry quick picks", function () {
  this.timeout(60_000);
  let arbor: Api;
  before(async () => (arbor = await api()));

  it("Check Out Entry... offers the entries nearest the leaf first and checks out the chosen one", async () => {
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const sm = current(arbor)!;
    // The first entry offered is the nearest one to the leaf that can be checked out (names and labels are skipped).
    const path = sm.getPathIds().reverse().map((id) => sm.getSummary(id)!);
    const first = path.find((e) => !e.checkoutMarker && e.type !== "label" && e.type !== "session_info")!;
    const running = vscode.commands.executeCommand("arbor.checkoutEntry");
    await acceptInQuickPick("Check out which entry?");
    await running;
    const expected = first.role === "user" || first.type === "custom_message" ? first.parentId : first.id;
    assert.equal(sm.getLeafId(), expected);
    await vscode.commands.executeCommand("arbor.checkoutEntry", s.main.leafId);
  });
});
