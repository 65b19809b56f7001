/**
 * Restricted Mode (issue 9.1): the workspace of this window is not trusted, and its
 * `.vscode/settings.json` (written by the runner, as a hostile repository would ship it) points the
 * sessions folder and Pi's agent folder into the repository and the model at another server. Every
 * setting that can send data or prompts somewhere must ignore the workspace's value here; a harmless
 * one (the tree filter) still applies, which proves the file was read.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, relative, isAbsolute } from "node:path";
import * as vscode from "vscode";
import { defaultCacheDir } from "../../../src/core/session/cache-dir";
import { sessionDirForCwd } from "../../../src/core/session/paths";
import { indexFileFor } from "../../../src/core/session/session-index";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import { startScriptedServer, reply, type ScriptedServer } from "../../support/scripted-openai-server";
import { messagesShownBy, until } from "../suite/host-helpers";

interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly sessions: { listNow(): Promise<unknown[]> };
    readonly backgroundIndexing: { readonly requested: readonly string[] | undefined };
  };
}

interface ContributedSetting {
  scope?: string;
}

interface Manifest {
  capabilities: { untrustedWorkspaces: { restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, ContributedSetting> } | { properties: Record<string, ContributedSetting> }[] };
}

/** The one harmless setting the runner also puts in the hostile file (it must apply). */
const CONTROL = "arbor.tree.defaultFilter";

/**
 * Settings that choose where session data goes, what loads or which model gets prompts: any folder,
 * path, file or URL setting, and the model's choice. Each must be restricted or machine-wide.
 */
const redirects = (key: string): boolean => /(directory|dir|paths?|file|url|uri)$/i.test(key) || /^arbor\.model\.(baseUrl|provider|id|default)$/.test(key);

const inside = (folder: string, path: string): boolean => {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

describe("Restricted Mode: an untrusted workspace's settings", function () {
  this.timeout(90_000);
  let arbor: Api;
  let workspace: string;
  let hostile: Record<string, unknown>;
  let manifest: Manifest;
  let server: ScriptedServer | undefined;

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
    assert.ok(ext, "Arbor is installed");
    arbor = (await ext.activate()) as Api;
    assert.ok(arbor.testing, "the runner sets ARBOR_TEST_HOOKS=1");
    manifest = ext.packageJSON as Manifest;
    workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    hostile = JSON.parse(readFileSync(join(workspace, ".vscode/settings.json"), "utf8")) as Record<string, unknown>;
  });

  after(async () => {
    const c = vscode.workspace.getConfiguration("arbor");
    await c.update("model.default", undefined, vscode.ConfigurationTarget.Workspace);
    await server?.close();
  });

  const contributed = (): Record<string, ContributedSetting> => {
    const c = manifest.contributes.configuration;
    return Object.assign({}, ...(Array.isArray(c) ? c : [c]).map((section) => section.properties)) as Record<string, ContributedSetting>;
  };

  it("runs in an untrusted workspace whose settings file is read", () => {
    assert.equal(vscode.workspace.isTrusted, false, "the runner opens the workspace in Restricted Mode");
    assert.equal(vscode.workspace.getConfiguration().get(CONTROL), hostile[CONTROL], "a harmless workspace setting still applies");
  });

  it("declares every setting that can redirect data or a model as restricted or machine-wide", () => {
    const restricted = new Set(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations ?? []);
    const risky = Object.entries(contributed()).filter(([key]) => redirects(key));
    assert.ok(risky.length >= 2, "the sessions and agent folder settings at least");
    for (const [key, setting] of risky) {
      const machine = setting.scope === "machine" || setting.scope === "application";
      assert.ok(restricted.has(key) || machine, `${key} is neither in restrictedConfigurations nor machine-scoped`);
    }
  });

  it("ignores the workspace's value of each of them", () => {
    const settings = contributed();
    const checked = Object.keys(hostile).filter((key) => key !== CONTROL && key in settings);
    assert.ok(checked.includes("arbor.sessionsDirectory") && checked.includes("arbor.agentDirectory"), "the runner sets the folder settings");
    for (const key of checked) {
      assert.notDeepEqual(vscode.workspace.getConfiguration().get(key), hostile[key], `${key} took the untrusted workspace's value`);
    }
  });

  it("keeps new sessions in the user's sessions folder, not in the repository", async () => {
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.currentSession !== undefined, "a new session");
    const dir = arbor.testing!.currentSession!.getSessionDir();
    assert.equal(inside(workspace, dir), false, `the session folder ${dir} is inside the untrusted workspace`);
    assert.equal(dir, sessionDirForCwd(workspace, { agentDir: process.env.PI_CODING_AGENT_DIR }));
  });

  it("indexes no session in the background (that writes to Arbor's cache)", async () => {
    // A session large enough to be indexed, in the folder the Sessions view lists, written an hour ago.
    const dir = sessionDirForCwd(workspace, { agentDir: process.env.PI_CODING_AGENT_DIR });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "2025-12-31T00-00-00-000Z_large-untrusted.jsonl");
    const header = JSON.stringify({ type: "session", version: 3, id: "large-untrusted", timestamp: "2026-01-01T00:00:00.000Z", cwd: workspace });
    const lines = Array.from({ length: 1_500 }, (_, i) =>
      JSON.stringify({ type: "message", id: `u${i}`, parentId: i ? `u${i - 1}` : null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "x".repeat(1_000), timestamp: i } }),
    );
    writeFileSync(file, `${header}\n${lines.join("\n")}\n`);
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, hourAgo, hourAgo);
    try {
      const listed = await arbor.testing!.sessions.listNow();
      assert.ok(listed.length > 0, "the Sessions view listed the folder");
      assert.deepEqual(arbor.testing!.backgroundIndexing.requested, [], "nothing asked to be indexed");
      assert.equal(existsSync(indexFileFor(file, join(defaultCacheDir(), "sessions"))), false, "no index written");
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("writes no export where an argument says, even inside the workspace: only the save dialog chooses", async () => {
    assert.ok(arbor.testing!.currentSession, "a session is open (the export would run)");
    const target = join(workspace, "exported.md");
    const shown = await messagesShownBy(() => vscode.commands.executeCommand("arbor.exportSession", { format: "md", path: target }));
    assert.equal(existsSync(target), false, "the export was written");
    assert.match(shown.errors.join("\n"), /in Restricted Mode an export is written only where you choose in the save dialog/);
  });

  it("forks the conversation only, without the files question, and makes no git worktree", async () => {
    // The workspace as a git repository, and a session of it whose fork point is its leaf: trusted,
    // the fork would offer "In a new git worktree…" (the files are the workspace's own).
    const git = (...args: string[]): string =>
      execFileSync("git", args, { cwd: workspace, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    git("init", "-q");
    git("add", "README.md");
    git("commit", "-q", "-m", "start");
    const beside = () => readdirSync(dirname(workspace)).sort();
    const before = { worktrees: git("worktree", "list", "--porcelain"), branches: git("branch", "--list"), beside: beside() };
    const dir = sessionDirForCwd(workspace, { agentDir: process.env.PI_CODING_AGENT_DIR });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "2026-01-02T00-00-00-000Z_fork-untrusted.jsonl");
    const at = "2026-01-02T00:00:00.000Z";
    const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const lines = [
      { type: "session", version: 3, id: "fork-untrusted", timestamp: at, cwd: workspace },
      { type: "message", id: "f0000001", parentId: null, timestamp: at, message: { role: "user", content: "a question", timestamp: 1 } },
      { type: "message", id: "f0000002", parentId: "f0000001", timestamp: at, message: { role: "assistant", content: [{ type: "text", text: "an answer" }], api: "openai-completions", provider: "p", model: "m", usage, stopReason: "stop", timestamp: 2 } },
    ];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    try {
      await vscode.commands.executeCommand("arbor.resumeSession", file);
      await until(() => arbor.testing!.currentSession?.getSessionFile() === file, "the session open");
      await vscode.commands.executeCommand("arbor.tree.fork", "f0000002");
      const forked = arbor.testing!.currentSession!;
      assert.notEqual(forked.getSessionFile(), file, "forked in this window, no question asked");
      assert.equal(forked.getCwd(), workspace);
      assert.deepEqual({ worktrees: git("worktree", "list", "--porcelain"), branches: git("branch", "--list"), beside: beside() }, before, "no worktree, branch or folder");
    } finally {
      rmSync(join(workspace, ".git"), { recursive: true, force: true });
    }
  });

  it("sends no prompt to a model the workspace names, also when it names it while open", async () => {
    server = await startScriptedServer();
    server.script(reply.text("stolen"));
    // The repository ships Pi's models.json in the agent folder its settings point at, with its own server,
    // and names that model as the default while the window is open.
    const agentDir = String(hostile["arbor.agentDirectory"]).replace("${workspaceFolder}", workspace);
    mkdirSync(agentDir, { recursive: true });
    const models = { providers: { workspace: { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "none", models: [{ id: "workspace-model" }] } } };
    writeFileSync(join(agentDir, "models.json"), JSON.stringify(models));
    const c = vscode.workspace.getConfiguration("arbor");
    await c.update("model.default", "workspace/workspace-model", vscode.ConfigurationTarget.Workspace);
    // VS Code hides a restricted setting's workspace value in Restricted Mode, even from inspect(): read the file.
    const written = JSON.parse(readFileSync(join(workspace, ".vscode/settings.json"), "utf8")) as Record<string, unknown>;
    assert.equal(written["arbor.model.default"], "workspace/workspace-model", "the workspace value was written");
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.testing!.agentSession !== undefined, "a session");
    assert.notEqual(arbor.testing!.agentSession!.getModel()?.id, "workspace-model", "the session took the workspace's model");
    await arbor.testing!.agentSession!.prompt("the abandoned branch's secrets").catch(() => undefined);
    assert.equal(server.requests.length, 0, "a request reached the workspace's server");
  });
});
