/**
 * The commands and surfaces of the Sessions view, the status bar and the Conversation Tree that
 * the README names, each driven as the palette or a view drives it, in a real extension host:
 * one title everywhere, forks nested, Search / All Workspaces / Refresh, Delete (cancelled and
 * confirmed), New Session, Set Tree Filter, Set API Key, Reveal Session File.
 * Dialogs are answered by replacing the window's prompt functions for the one call.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { SessionManager } from "../../../src/core/session/session-manager";
import { sessionTitle } from "../../../src/core/session/title";
import type { SessionNode } from "../../../src/extension/session-rows";
import type { HostToWebviewMessage, TreeMessage } from "../../../src/protocol/messages";
import { samples, until } from "./host-helpers";

interface Probe {
  readonly currentSession: SessionManager | undefined;
  readonly tree: { readonly lastPosted: ReadonlyMap<HostToWebviewMessage["type"], HostToWebviewMessage>; readonly isVisible: boolean };
  readonly chat: { title(): string | undefined };
  readonly sessions: { list(): Promise<SessionNode[]>; getTreeItem(node: SessionNode): vscode.TreeItem; readonly view: { readonly visible: boolean }; ignoreFolderChanges(): vscode.Disposable };
  readonly statusBar: { readonly text: string };
  readonly secrets: vscode.SecretStorage;
  readonly globalStorage: string;
}

async function probe(): Promise<Probe> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext);
  const api = (await ext.activate()) as { testing?: Probe };
  assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
  return api.testing;
}

type Prompt = (...args: unknown[]) => Thenable<unknown>;

/** Runs `run` with one of the window's prompts answered by `answer` (and restores it). */
async function answering<T>(name: "showInputBox" | "showQuickPick" | "showWarningMessage", answer: Prompt, run: () => Thenable<T>): Promise<T> {
  const w = vscode.window as unknown as Record<string, Prompt>;
  const original = w[name]!;
  w[name] = answer;
  try {
    return await run();
  } finally {
    w[name] = original;
  }
}

const flat = (nodes: SessionNode[]): SessionNode[] => nodes.flatMap((n) => [n, ...flat(n.forks)]);
const listedPaths = async (p: Probe) => flat(await p.sessions.list()).map((n) => n.info.path);

/** A session with one exchange for `cwd` (written where Arbor lists that folder's sessions). */
async function writeSession(cwd: string, text: string): Promise<string> {
  const sm = await SessionManager.create(cwd);
  sm.appendMessage({ role: "user", content: text, timestamp: Date.now() });
  sm.appendMessage({
    role: "assistant", content: [{ type: "text", text: "ok" }], api: "openai-completions", provider: "p", model: "m",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop", timestamp: Date.now(),
  });
  await sm.flush();
  const file = sm.getSessionFile();
  await sm.close();
  assert.ok(file && existsSync(file));
  return file;
}

describe("Arbor's surfaces and commands in the extension host", function () {
  this.timeout(60_000);
  let p: Probe;
  const workspace = () => process.env.ARBOR_HOST_WORKSPACE!;
  before(async () => (p = await probe()));

  it("gives a session one title in the Sessions view, the tree's header, the status bar and the chat", async () => {
    // The tree's webview exists once the view has been shown.
    await vscode.commands.executeCommand("arbor.conversationTree.focus");
    await until(() => p.tree.isVisible, "the Conversation Tree to show");
    const s = samples();
    for (const file of [s.linearFile, s.mainFile]) {
      await vscode.commands.executeCommand("arbor.resumeSession", file);
      await until(() => p.currentSession?.getSessionFile() === file, "the session to open");
      const node = flat(await p.sessions.list()).find((n) => n.info.path === file);
      assert.ok(node, "the session is listed");
      const title = sessionTitle(node.info);
      assert.equal(p.sessions.getTreeItem(node).label, title);
      await until(() => (p.tree.lastPosted.get("tree") as TreeMessage | undefined)?.session?.title === title, `the tree's header to say ${title}`);
      assert.equal(p.chat.title(), title);
      await until(() => p.statusBar.text.includes(title.length > 30 ? title.slice(0, 29) : title), `the status bar to say ${title} (${p.statusBar.text})`);
    }
    assert.notEqual(sessionTitle({ name: undefined, firstMessage: "x" }), "Untitled session");
  });

  it("nests a fork under its parent session", async () => {
    const s = samples();
    const main = (await p.sessions.list()).find((n) => n.info.path === s.mainFile);
    assert.ok(main, "the parent is a top-level row");
    assert.ok(main.forks.some((f) => f.info.path === s.forkFile), "the sample fork is nested under it");
    for (const fork of main.forks) assert.equal(fork.info.parentSessionPath, s.mainFile);
    assert.equal(p.sessions.getTreeItem(main).collapsibleState, vscode.TreeItemCollapsibleState.Expanded);
    assert.ok(!(await p.sessions.list()).some((n) => n.info.path === s.forkFile), "the fork is not also a top-level row");
  });

  it("Search Sessions lists only the sessions that match; clearing it lists all again", async () => {
    const s = samples();
    await answering("showInputBox", () => Promise.resolve("TOLERATE torn"), () => vscode.commands.executeCommand("arbor.searchSessions"));
    try {
      await until(async () => !(await listedPaths(p)).includes(s.linearFile), "the search to apply");
      const found = flat(await p.sessions.list());
      assert.ok(found.some((n) => n.info.path === s.mainFile), "the matching session is listed");
      for (const { info } of found) {
        const text = [info.name ?? "", info.firstMessage, ...info.labels, info.cwd].join("\n").toLowerCase();
        assert.ok(text.includes("tolerate") && text.includes("torn"), `${info.path} matches`);
      }
    } finally {
      await vscode.commands.executeCommand("arbor.clearSessionSearch");
    }
    await until(async () => (await listedPaths(p)).includes(s.linearFile), "every session again");
  });

  it("All Workspaces lists other folders' sessions; Current Workspace hides them again", async () => {
    const other = await writeSession(join(workspace(), "..", "another-project"), "work elsewhere");
    assert.ok(!(await listedPaths(p)).includes(other));
    await vscode.commands.executeCommand("arbor.showAllWorkspaces");
    await until(async () => (await listedPaths(p)).includes(other), "the other folder's session");
    assert.ok((await listedPaths(p)).includes(samples().mainFile));
    await vscode.commands.executeCommand("arbor.showCurrentWorkspace");
    await until(async () => !(await listedPaths(p)).includes(other), "the workspace's sessions only");
  });

  it("Refresh lists a session written behind the view's back, one its folder watch never reported", async () => {
    // The watch would list the file by itself within a second; with its reports ignored, only Refresh can.
    const ignored = p.sessions.ignoreFolderChanges();
    try {
      await listedPaths(p);
      const file = await writeSession(workspace(), "written behind the view's back");
      assert.ok(!(await listedPaths(p)).includes(file), "not listed before Refresh");
      await vscode.commands.executeCommand("arbor.refreshSessions");
      await until(async () => (await listedPaths(p)).includes(file), "the new session in the list");
    } finally {
      ignored.dispose();
    }
  });

  it("Delete asks first: cancelled, the file stays; confirmed, it goes to the trash and leaves the list", async () => {
    const file = await writeSession(workspace(), "a session to delete");
    await vscode.commands.executeCommand("arbor.refreshSessions");
    await until(async () => (await listedPaths(p)).includes(file), "the session to delete in the list");
    const node = () => p.sessions.list().then((roots) => flat(roots).find((n) => n.info.path === file));
    const asked: string[] = [];
    await answering("showWarningMessage", (message) => (asked.push(String(message)), Promise.resolve(undefined)), async () =>
      vscode.commands.executeCommand("arbor.sessions.delete", await node()),
    );
    assert.deepEqual(asked, ['Delete the session "a session to delete"?']);
    assert.ok(existsSync(file), "cancelled: the file is still there");
    await answering("showWarningMessage", () => Promise.resolve("Move to Trash"), async () => vscode.commands.executeCommand("arbor.sessions.delete", await node()));
    assert.ok(!existsSync(file), "confirmed: the file left the sessions folder");
    await until(async () => !(await listedPaths(p)).includes(file), "the row to go");
  });

  it("New Session opens an empty session in place of the current one", async () => {
    await vscode.commands.executeCommand("arbor.resumeSession", samples().mainFile);
    await until(() => p.currentSession?.getSessionFile() === samples().mainFile, "the main session");
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => p.currentSession !== undefined && p.currentSession.getSessionFile() !== samples().mainFile, "a new session");
    assert.equal(p.currentSession!.getEntryCount(), 0);
    assert.equal(p.chat.title(), "New session");
    await until(() => (p.tree.lastPosted.get("tree") as TreeMessage | undefined)?.session?.entryCount === 0, "the tree to show the empty session");
  });

  it("Set Tree Filter sends the picked filter to the tree", async () => {
    for (const mode of ["user-only", "default"]) {
      const offered: string[] = [];
      await answering(
        "showQuickPick",
        (items) => {
          const list = items as { label: string; mode: string }[];
          offered.push(...list.map((i) => i.mode));
          return Promise.resolve(list.find((i) => i.mode === mode));
        },
        () => vscode.commands.executeCommand("arbor.setTreeFilter"),
      );
      assert.deepEqual(offered, ["default", "no-tools", "user-only", "labeled-only", "all", "everything"]);
      await until(() => (p.tree.lastPosted.get("tree") as TreeMessage | undefined)?.view.filter === mode, `the tree to use ${mode}`);
    }
  });

  it("Reveal Session File shows the current session's file", async () => {
    const file = samples().mainFile;
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    await until(() => p.currentSession?.getSessionFile() === file, "the main session");
    await vscode.commands.executeCommand("arbor.revealSessionFile");
    await until(() => vscode.window.activeTextEditor?.document.uri.fsPath === file, "the file in an editor");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  it("Reveal in File opens the session file at the entry's line", async () => {
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    await until(() => p.currentSession?.getSessionFile() === s.mainFile, "the main session");
    const id = s.main.compactionId;
    await vscode.commands.executeCommand("arbor.tree.revealInFile", { entryId: id });
    await until(() => vscode.window.activeTextEditor?.document.uri.fsPath === s.mainFile, "the file in an editor");
    const editor = vscode.window.activeTextEditor!;
    const line = editor.document.lineAt(editor.selection.active.line).text;
    assert.equal((JSON.parse(line) as { id: string }).id, id, "the cursor is on the entry's own line");
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  });

  it("Set API Key stores the key in SecretStorage and nowhere else", async () => {
    const key = `sk-arbor-test-${Date.now().toString(36)}`;
    const provider = "arbor-host-test";
    const secretName = `arbor.apiKey/${provider}`;
    try {
      // The user picks "Another provider id...", types the id, then pastes the key.
      const typed = [provider, key];
      const asked: string[] = [];
      await answering(
        "showQuickPick",
        (items) => Promise.resolve((items as { label: string }[]).find((i) => i.label.includes("Another provider id"))),
        () =>
          answering(
            "showInputBox",
            (options) => {
              asked.push(String((options as { title?: string }).title));
              return Promise.resolve(typed.shift());
            },
            () => vscode.commands.executeCommand("arbor.setApiKey"),
          ),
      );
      assert.equal(asked.length, 2, asked.join(", "));
      assert.equal(await p.secrets.get(secretName), key);
      // Not in the workspace, the Pi agent folder (sessions, models, auth) or the extension's storage.
      const agentDir = process.env.PI_CODING_AGENT_DIR!;
      const leaks: string[] = [];
      const scan = (dir: string) => {
        if (!existsSync(dir)) return;
        for (const name of readdirSync(dir)) {
          const path = join(dir, name);
          const st = statSync(path);
          if (st.isDirectory()) scan(path);
          else if (st.size < 50_000_000 && readFileSync(path, "latin1").includes(key)) leaks.push(path);
        }
      };
      for (const dir of [workspace(), agentDir, p.globalStorage]) scan(dir);
      assert.deepEqual(leaks, []);
      assert.ok(!JSON.stringify(vscode.workspace.getConfiguration("arbor")).includes(key), "not in settings");
    } finally {
      await p.secrets.delete(secretName);
    }
  });
});
