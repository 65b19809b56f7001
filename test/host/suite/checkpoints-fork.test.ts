/**
 * "Fork from Here" with the files, in a real extension host over the scripted model server: the
 * workspace is made a git repository, two turns change a file (the write tool, then bash), and a
 * fork before the second prompt takes the files of that point (1) into the workspace, through the
 * checkout's restore and its undo, and (2) into a new git worktree on a new branch, whose window
 * would open the forked session. A test host cannot open a second window: only the execution of
 * `vscode.openFolder` is replaced (its command and arguments are recorded); the record that window
 * reads at start-up is then taken by this window, which opens the session as the new one would.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import { rememberPendingOpen, takePendingOpen } from "../../../src/core/session/pending-open";
import type { SessionManager } from "../../../src/core/session/session-manager";
import { reply, startScriptedServer, type ScriptedServer } from "../../support/scripted-openai-server";
import { acceptInQuickPick, messagesShownBy } from "./host-helpers";
import { setPiProvider, until, useScriptedModel } from "./model-helpers";
import { InputBoxWatch } from "./ui-helpers";

interface Api {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly chat: { input(): string };
    readonly quickPicks: { readonly current: { readonly title: string; readonly labels: readonly string[] } | undefined };
    readonly globalStorage: string;
    interceptOpenFolder(record: (command: string, args: unknown[]) => void): vscode.Disposable;
    openPendingFork(): Promise<boolean>;
  };
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
const hashOf = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex");

describe("Fork from Here with the files", function () {
  this.timeout(120_000);
  let arbor: NonNullable<Api["testing"]>;
  let server: ScriptedServer;
  const config = () => vscode.workspace.getConfiguration("arbor");
  const workspace = () => realpathSync(vscode.workspace.workspaceFolders![0]!.uri.fsPath);
  const notes = () => join(workspace(), "fork-notes.txt");
  const sm = (): SessionManager => arbor.currentSession!;
  const worktrees: string[] = [];

  before(async () => {
    const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor")!;
    arbor = ((await ext.activate()) as Api).testing!;
    server = await startScriptedServer();
    await useScriptedModel("fork-files-endpoint", server.baseUrl);
    await config().update("tree.askToSummarizeBranch", false, vscode.ConfigurationTarget.Global);
    await config().update("tools.autoApprove", "commands", vscode.ConfigurationTarget.Global);
    // The workspace as a git repository with one commit (files other suites leave are not committed).
    git(workspace(), "init", "-q");
    git(workspace(), "add", "README.md");
    git(workspace(), "commit", "-q", "-m", "start");
  });

  after(async () => {
    for (const key of ["tree.askToSummarizeBranch", "tools.autoApprove"]) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    setPiProvider("fork-files-endpoint", undefined);
    rmSync(notes(), { force: true });
    for (const folder of worktrees) rmSync(folder, { recursive: true, force: true });
    rmSync(join(workspace(), ".git"), { recursive: true, force: true });
    await server?.close();
  });

  /** A new session with two turns: the write tool writes the notes, then bash changes them. Returns the second user message. */
  async function twoTurns(): Promise<string> {
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.agentSession !== undefined && sm().getEntries().length === 0 && arbor.agentSession.getModel()?.id === "scripted-model", "a new session with the scripted model");
    const session = arbor.agentSession!;
    server.script(
      reply.toolCall({ id: "w", name: "write", arguments: { path: "fork-notes.txt", content: "written by the tool\n" } }),
      reply.text("written"),
      reply.toolCall({ id: "b", name: "bash", arguments: { command: "echo changed by bash > fork-notes.txt" } }),
      reply.text("changed"),
    );
    await session.prompt("write the fork notes");
    await session.prompt("change the fork notes with bash");
    assert.equal(readFileSync(notes(), "utf8"), "changed by bash\n");
    await sm().flush();
    return sm().getEntries().find((e) => e.type === "message" && e.message.role === "user" && JSON.stringify(e.message.content).includes("with bash"))!.id;
  }

  it("into the workspace: the fork starts before the second prompt with the files of that point, and the restore can be undone", async () => {
    const user2 = await twoTurns();
    const source = sm().getSessionFile()!;
    const parent = sm().getEntry(user2)!.parentId;
    const forking = vscode.commands.executeCommand("arbor.tree.fork", user2);
    await acceptInQuickPick("Fork from Here", "Conversation and files");
    await forking;
    assert.notEqual(sm().getSessionFile(), source, "the fork is the window's session");
    assert.equal(sm().getLeafId(), parent);
    assert.equal(readFileSync(notes(), "utf8"), "written by the tool\n", "the files of the first turn");
    assert.equal(arbor.chat.input(), "change the fork notes with bash", "the message is back for editing");
    await vscode.commands.executeCommand("arbor.undoFileRestore");
    await until(() => readFileSync(notes(), "utf8") === "changed by bash\n", "the undo of the fork's restore");
  });

  it("into a new git worktree: the files of that point on a new branch, the forked session there, the user's repository as it was", async () => {
    const user2 = await twoTurns();
    const source = sm().getSessionFile()!;
    const parent = sm().getEntry(user2)!.parentId;
    git(workspace(), "branch", "taken");
    const head = git(workspace(), "rev-parse", "HEAD").trim();
    const index = hashOf(join(workspace(), ".git", "index"));
    // --no-optional-locks: the test's own `git status` must not refresh the index it compares.
    const status = git(workspace(), "--no-optional-locks", "status", "--porcelain");
    const opened: { command: string; args: unknown[] }[] = [];
    const intercept = arbor.interceptOpenFolder((command, args) => void opened.push({ command, args }));
    const boxes = new InputBoxWatch();
    try {
      const forking = vscode.commands.executeCommand("arbor.tree.fork", user2);
      const picked = await acceptInQuickPick("Fork from Here", /^In a new git worktree/);
      assert.equal(picked, "In a new git worktree…");
      await until(() => boxes.shown.length === 1, "the branch name box");
      const box = boxes.shown[0]!.box;
      assert.match(box.value, /^arbor\/fork-[0-9a-f]{8}$/, "a default name from the session and the entry");
      const suggested = box.value;
      // A branch that exists is refused, and the box stays open with the problem shown.
      box.value = "taken";
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
      await until(() => box.validationMessage === 'A branch "taken" already exists.', "the problem with the name");
      box.value = suggested;
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
      await forking;

      assert.equal(opened.length, 1, "a new window was asked for");
      const [folderUri, options] = opened[0]!.args as [vscode.Uri, { forceNewWindow?: boolean }];
      assert.equal(opened[0]!.command, "vscode.openFolder");
      assert.deepEqual(options, { forceNewWindow: true });
      const folder = folderUri.fsPath;
      worktrees.push(folder);
      assert.equal(dirname(folder), dirname(workspace()), "beside the repository");
      assert.equal(basename(folder), `${basename(workspace())}-${suggested.slice("arbor/".length)}`);
      assert.equal(readFileSync(join(folder, "fork-notes.txt"), "utf8"), "written by the tool\n", "the files of the first turn");
      assert.equal(readFileSync(join(folder, "README.md"), "utf8"), readFileSync(join(workspace(), "README.md"), "utf8"));
      assert.equal(git(folder, "rev-parse", "--abbrev-ref", "HEAD").trim(), suggested);
      assert.equal(git(folder, "rev-parse", "HEAD").trim(), head, "the branch starts at HEAD");
      assert.match(git(folder, "status", "--porcelain"), /^\?\? fork-notes\.txt$/m);

      assert.equal(git(workspace(), "rev-parse", "HEAD").trim(), head, "the user's HEAD");
      assert.equal(hashOf(join(workspace(), ".git", "index")), index, "the user's index, byte for byte");
      assert.equal(git(workspace(), "--no-optional-locks", "status", "--porcelain"), status, "the user's work tree");
      assert.equal(readFileSync(notes(), "utf8"), "changed by bash\n", "the workspace's files stay");
      assert.equal(sm().getSessionFile(), source, "this window keeps its session");

      // What the new window does as it starts, done here: this window's folder has no record (the
      // record is for the worktree's folder); given the worktree's record, it opens that session.
      assert.equal(await arbor.openPendingFork(), false);
      const record = await takePendingOpen(arbor.globalStorage, folder);
      assert.ok(record?.file, "the record names the forked session");
      assert.deepEqual(record, { folder, cwd: folder, file: record.file, editText: "change the fork notes with bash" });
      const header = JSON.parse(readFileSync(record.file, "utf8").split("\n")[0]!) as { cwd: string; parentSession?: string };
      assert.equal(header.cwd, folder, "the forked session's cwd is the worktree's folder");
      assert.equal(header.parentSession, source);
      await rememberPendingOpen(arbor.globalStorage, { ...record, folder: workspace() });
      assert.equal(await arbor.openPendingFork(), true);
      assert.equal(sm().getSessionFile(), record.file);
      assert.equal(sm().getCwd(), folder);
      assert.equal(sm().getLeafId(), parent);
      assert.equal(arbor.chat.input(), "change the fork notes with bash");
    } finally {
      boxes.dispose();
      intercept.dispose();
    }
  });

  it("into a new git worktree whose session cannot be written: the worktree and branch are removed again, no window is asked for", async () => {
    const user2 = await twoTurns();
    const before = { beside: readdirSync(dirname(workspace())).sort(), branches: git(workspace(), "branch", "--list"), worktrees: git(workspace(), "worktree", "list", "--porcelain") };
    // The sessions folder under a file: the forked session cannot be written, after the worktree was made.
    await config().update("sessionsDirectory", join(workspace(), "README.md", "sessions"), vscode.ConfigurationTarget.Global);
    const opened: string[] = [];
    const intercept = arbor.interceptOpenFolder((command) => void opened.push(command));
    const boxes = new InputBoxWatch();
    try {
      const shown = await messagesShownBy(async () => {
        const forking = vscode.commands.executeCommand("arbor.tree.fork", user2);
        await acceptInQuickPick("Fork from Here", /^In a new git worktree/);
        await boxes.answer("Fork into a new git worktree", "arbor/cannot-write");
        await forking;
      });
      assert.match(shown.errors.join("\n"), /README\.md/, "the failure is shown");
    } finally {
      boxes.dispose();
      intercept.dispose();
      await config().update("sessionsDirectory", undefined, vscode.ConfigurationTarget.Global);
    }
    assert.deepEqual(opened, [], "no window asked for");
    assert.deepEqual({ beside: readdirSync(dirname(workspace())).sort(), branches: git(workspace(), "branch", "--list"), worktrees: git(workspace(), "worktree", "list", "--porcelain") }, before);
  });

  it("with checkpoints off, forks the conversation only, without a question", async () => {
    await vscode.commands.executeCommand("arbor.newSession");
    await until(() => arbor.agentSession !== undefined && sm().getEntries().length === 0, "a new session");
    // Checkpoints off: no snapshot is taken before the prompt.
    await config().update("checkpoints.enabled", false, vscode.ConfigurationTarget.Global);
    try {
      server.script(reply.text("an answer"));
      await arbor.agentSession!.prompt("a question");
      // At the reply (the leaf): with checkpoints on, the worktree would be offered (the workspace is a repository).
      const answer = sm().getLeafId()!;
      const source = sm().getSessionFile();
      writeFileSync(notes(), "as it is\n");
      await vscode.commands.executeCommand("arbor.tree.fork", answer);
      assert.notEqual(sm().getSessionFile(), source, "forked at once");
      assert.equal(readFileSync(notes(), "utf8"), "as it is\n");
    } finally {
      await config().update("checkpoints.enabled", undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
