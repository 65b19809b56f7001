import { promises as fs } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { branchNameProblem, defaultBranchName, filesAt, findUserRepo, forkIntoWorktree, removeWorktree, UserRepoGit, worktreeFolderFor, type CheckpointStore, type RestorePlan, type UserRepo } from "../../core/checkpoints";
import { forkCancelled, forkPoint, writeFolderFork } from "../../core/runtime/fork-into-folder";
import { sessionDirForCwd, type SessionLocationOptions } from "../../core/session/paths";
import { rememberPendingOpen } from "../../core/session/pending-open";
import type { SessionManager } from "../../core/session/session-manager";
import { showPick } from "../quick-pick-probe";
import type { SessionHost } from "../session-host";
import { dirtyFiles, restoreFiles } from "./checkout-files";
import type { CheckpointService } from "./checkpoint-service";

/** What "Fork from Here" can do with the files of the entry it forks from. */
export interface ForkFilesOffer {
  store: CheckpointStore;
  /** The snapshot of the files at the fork point; undefined when that point is the leaf (the files are the workspace now). */
  snapshot: string | undefined;
  /** The restore that makes the workspace that snapshot (no steps: the files are the same). */
  plan: RestorePlan | undefined;
  /** The workspace's git repository, when there is one with a commit (for a new worktree). */
  repo: UserRepo | undefined;
  git: UserRepoGit;
}

export type ForkFilesChoice = "conversation" | "workspace" | "worktree";

/**
 * What a fork ending at `leafId` could do with the files: nothing to offer (undefined) in
 * Restricted Mode, with checkpoints off, without a snapshot at that point, or when the files there
 * are the workspace's and the workspace is not in a git repository.
 */
export async function forkFilesOffer(service: CheckpointService, sm: SessionManager, leafId: string | null): Promise<ForkFilesOffer | undefined> {
  if (!vscode.workspace.isTrusted) return undefined;
  const atLeaf = leafId !== null && leafId === sm.getLeafId();
  const at = atLeaf ? undefined : filesAt(sm, leafId);
  if (!atLeaf && !at) return undefined;
  const store = await service.storeFor(sm.getCwd());
  if (!store) return undefined;
  if (at && !(await store.has(at.snapshot))) return undefined;
  const plan = at ? await store.plan(at.snapshot, dirtyFiles()) : undefined;
  const git = new UserRepoGit(store.gitPath, store.paths.hooksDir);
  const repo = await findUserRepo(git, store.workspace).catch(() => undefined);
  if (!plan?.steps.length && !repo) return undefined;
  return { store, snapshot: at?.snapshot, plan, repo, git };
}

/** What the fork takes along: asked when there is a choice, else the conversation only; undefined when the question was dismissed. */
export type ForkFilesAnswer = { choice: "conversation" } | { choice: "workspace" | "worktree"; offer: ForkFilesOffer };

/** Asks what a fork of `entryId` takes along, when its files offer a choice. */
export async function askForkFiles(service: CheckpointService, sm: SessionManager, entryId: string, position: "before" | "at"): Promise<ForkFilesAnswer | undefined> {
  const offer = await forkFilesOffer(service, sm, forkPoint(sm, entryId, position).leafId).catch(() => undefined);
  if (!offer) return { choice: "conversation" };
  const choice = await pickForkFiles(offer);
  if (choice === undefined) return undefined;
  return choice === "conversation" ? { choice } : { choice, offer };
}

/** The question: items that say what they do. */
async function pickForkFiles(offer: ForkFilesOffer): Promise<ForkFilesChoice | undefined> {
  const n = offer.plan?.steps.length ?? 0;
  const items: (vscode.QuickPickItem & { choice: ForkFilesChoice })[] = [
    { label: vscode.l10n.t("Conversation only"), description: vscode.l10n.t("leave the files as they are"), choice: "conversation" },
  ];
  if (n > 0) {
    items.push({
      label: vscode.l10n.t("Conversation and files"),
      description: n === 1 ? vscode.l10n.t("1 file differs: restore it in this workspace") : vscode.l10n.t("{0} files differ: restore them in this workspace", n),
      choice: "workspace",
    });
  }
  if (offer.repo) {
    items.push({
      label: vscode.l10n.t("In a new git worktree…"),
      description: vscode.l10n.t("the files at that point on a new branch, in a new window with the fork"),
      choice: "worktree",
    });
  }
  const pick = await showPick(items, { title: vscode.l10n.t("Fork from Here"), placeHolder: vscode.l10n.t("What should the new session take from this point?"), ignoreFocusOut: true });
  return pick?.choice;
}

/** Restores the fork point's files in the workspace (after the fork), with the checkout's unsaved-file question and undo. */
export async function restoreForkFiles(service: CheckpointService, offer: ForkFilesOffer): Promise<void> {
  if (offer.plan && offer.plan.steps.length > 0) await restoreFiles(service, { store: offer.store, plan: offer.plan });
}

/**
 * How the fork asks VS Code for the new window: `vscode.commands.executeCommand`. Arbor's host tests
 * replace its execution (a test host cannot open a second window) and see the command and arguments.
 */
export const windowCommand = {
  execute: (command: string, ...args: unknown[]): Thenable<unknown> => vscode.commands.executeCommand(command, ...args),
};

/** What a fork into a new worktree needs from the window. */
export interface WorktreeForkDeps {
  host: SessionHost;
  service: CheckpointService;
  /** Where sessions are kept (the settings), for the new session's folder. */
  settings: () => { sessionsDirectory: string | undefined; agentDirectory: string | undefined };
  log: vscode.LogOutputChannel;
}

/**
 * "In a new git worktree…": asks the branch name, asks the session's extensions (session_before_fork),
 * makes the worktree with the fork point's files, writes the forked session there (its cwd the
 * worktree's folder), and opens the folder in a new window, whose Arbor opens the session as it
 * starts. The window's own session stays as it is.
 */
export async function forkIntoNewWorktree(deps: WorktreeForkDeps, offer: ForkFilesOffer, entryId: string, position: "before" | "at"): Promise<void> {
  const { host, service, log } = deps;
  const repo = offer.repo;
  const runtime = host.currentRuntime;
  const sm = host.current;
  if (!repo || !runtime || !sm) return;
  if (!vscode.workspace.isTrusted) return;
  const point = forkPoint(sm, entryId, position);
  const suggested = await defaultBranchName(offer.git, repo, sm.getSessionName(), point.leafId ?? entryId);
  const branch = await askBranchName(offer.git, repo, suggested);
  if (branch === undefined) return;
  if (await forkCancelled(runtime, entryId, position)) return void vscode.window.showInformationMessage(vscode.l10n.t("An extension cancelled the fork."));
  const root = await worktreeFolderFor(repo, branch);
  const made = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Making the worktree {0}…", root) }, async () => {
    const snapshot = offer.snapshot ?? (await offer.store.snapshot()).id;
    const worktree = await forkIntoWorktree({ git: offer.git, repo, store: offer.store, snapshot, branch, root });
    let written: string | undefined;
    try {
      const cwd = await cwdIn(worktree.folder, offer.store.workspace, sm.getCwd());
      written = (await writeFolderFork(sm, point.leafId, { cwd, sessionDir: sessionDirForCwd(cwd, sessionLocation(deps)) })).file;
      await rememberPendingOpen(service.storageDir, { folder: worktree.folder, cwd, ...(written ? { file: written } : {}), ...(point.selectedText !== undefined ? { editText: point.selectedText } : {}) });
      return { ...worktree, file: written };
    } catch (error) {
      // Nothing half made is left: the session file, the worktree and its branch.
      if (written) await fs.rm(written, { force: true });
      await removeWorktree(offer.git, repo, worktree.root, branch).catch(() => undefined);
      throw error;
    }
  });
  log.info(`forked ${entryId} into the worktree ${made.root} on branch ${branch}${made.file ? `, session ${made.file}` : " (nothing to write yet: a new session starts there)"}`);
  await windowCommand.execute("vscode.openFolder", folderUri(made.folder), { forceNewWindow: true });
  void vscode.window.showInformationMessage(vscode.l10n.t('Forked into the branch "{0}" in {1}, opened in a new window: show the Arbor view there to continue the forked session.', branch, made.root));
}

/**
 * The new branch's name, checked as it is typed (a valid name that does not exist yet): Enter on a
 * name with a problem keeps the box open with the problem shown.
 */
function askBranchName(git: UserRepoGit, repo: UserRepo, suggested: string): Promise<string | undefined> {
  const box = vscode.window.createInputBox();
  box.title = vscode.l10n.t("Fork into a new git worktree");
  box.prompt = vscode.l10n.t("The new branch, from {0} (the repository's HEAD)", repo.head.slice(0, 8));
  box.value = suggested;
  box.ignoreFocusOut = true;
  let asked = 0;
  const check = async (value: string): Promise<string | undefined> => {
    const n = ++asked;
    const problem = await branchNameProblem(git, repo, value);
    // Only the answer for the latest value is shown.
    if (n === asked) box.validationMessage = problem;
    return problem;
  };
  return new Promise((resolve) => {
    let settled = false;
    const done = (value: string | undefined): void => {
      if (settled) return;
      settled = true;
      for (const d of subscriptions) d.dispose();
      box.dispose();
      resolve(value);
    };
    const subscriptions = [
      box.onDidChangeValue((value) => void check(value)),
      box.onDidAccept(async () => {
        const value = box.value;
        if ((await check(value)) === undefined) done(value);
      }),
      box.onDidHide(() => done(undefined)),
    ];
    box.show();
    void check(box.value);
  });
}

/** The folder as this window names its folders (a remote window's folders are not `file:` URIs). */
function folderUri(folder: string): vscode.Uri {
  const local = vscode.Uri.file(folder);
  const own = vscode.workspace.workspaceFolders?.[0]?.uri;
  return own && own.scheme !== "file" ? own.with({ path: local.path }) : local;
}

function sessionLocation(deps: WorktreeForkDeps): SessionLocationOptions {
  const { sessionsDirectory, agentDirectory } = deps.settings();
  return { sessionDir: sessionsDirectory, agentDir: agentDirectory };
}

/** The session's working folder in the worktree: where its cwd sits in the workspace folder. */
async function cwdIn(folder: string, workspace: string, cwd: string): Promise<string> {
  const real = await fs.realpath(cwd).catch(() => cwd);
  const rel = path.relative(workspace, real);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return folder;
  // A folder holding only ignored files is not in the snapshot: the session still needs it.
  const inside = path.join(folder, rel);
  await fs.mkdir(inside, { recursive: true });
  return inside;
}
