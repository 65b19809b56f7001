import * as vscode from "vscode";
import type { NavigateTreeOptions } from "../core/agent/tree-navigation";
import { askFilesChoice, checkoutFiles, restoreFiles } from "./checkpoints/checkout-files";
import type { CheckpointService } from "./checkpoints/checkpoint-service";
import { askForkFiles, forkIntoNewWorktree, restoreForkFiles } from "./checkpoints/fork-files";
import { MissingSessionCwdError } from "../core/runtime/runtime-errors";
import { SessionError } from "../core/session/errors";
import { assertKnownSessionFile } from "../core/session/session-file-check";
import { SessionManager } from "../core/session/session-manager";
import { WriterLock } from "../core/session/writer-lock";
import { forkNotice, openSessionTitle, UNTITLED_SESSION } from "../core/session/title";
import { FILTER_MODES, FILTER_MODE_NAMES, type FilterMode } from "../core/tree/filters";
import { moveToTrash } from "../core/util/trash";
import { abandonedCount, askLeaveBranch, checkoutTarget, copyEntryText, offerEditText, promptLabel, type LeaveChoice } from "./entry-actions";
import { assertFits, MAX_LABEL_LENGTH, MAX_SESSION_NAME_LENGTH, tooLong } from "./input-limits";
import { pickEntry, pickSession } from "./pickers";
import { registerCommandSet } from "./register-commands";
import type { SessionHost } from "./session-host";
import { sessionTitle, type SessionNode, type SessionsView } from "./sessions-view";
import type { ArborSettings } from "./settings";
import type { TreeViewProvider } from "./tree-view-provider";
import { showPick } from "./quick-pick-probe";

/** Summarizes a branch while checking out (needs a model); absent until one is configured. */
/**
 * Ticks a step of the Get Started walkthrough. Its `onCommand:` events see only commands run from
 * VS Code's own UI, not the ones a click in the tree runs through the extension host, so the steps
 * also complete on these context keys (`onContext:arbor.walkthrough.<step>`).
 */
function markWalkthroughStep(step: "checkedOut" | "forkedOrLabelled"): void {
  void vscode.commands.executeCommand("setContext", `arbor.walkthrough.${step}`, true);
}

export interface BranchSummarizer {
  available(): boolean;
  checkoutWithSummary(entryId: string, choice: Extract<LeaveChoice, { summarize: true }>, token: vscode.CancellationToken, files?: NavigateTreeOptions["files"]): Promise<{ editText?: string } | undefined>;
}

export interface CommandDeps {
  host: SessionHost;
  secrets: vscode.SecretStorage;
  sessions: SessionsView;
  tree: TreeViewProvider;
  settings: () => ArborSettings;
  summarizer: () => BranchSummarizer | undefined;
  log: vscode.LogOutputChannel;
  /** Where text taken back for editing goes (the chat input); default: offered in a notification. */
  editText?: (text: string) => void;
  /** Shows the chat with the caret in its input (the side view, or its editor tab when open). */
  revealChat: () => Promise<void>;
  /** File checkpoints: a checkout can take the files at the entry too. */
  checkpoints?: CheckpointService;
}

/** The argument VS Code passes to `webview/context` menu commands (the row's data-vscode-context). */
interface RowContext {
  webviewSection?: string;
  entryId?: string;
}

/** A label given as a second argument, or in an `{ entryId, label }` argument. */
function labelOf(arg: unknown, label: unknown): string | undefined {
  if (typeof label === "string") return label;
  const l = (arg as { label?: unknown } | undefined)?.label;
  return typeof l === "string" ? l : undefined;
}

function entryIdOf(arg: unknown): string | undefined {
  const ctx = arg as RowContext | undefined;
  return typeof ctx?.entryId === "string" ? ctx.entryId : typeof arg === "string" ? arg : undefined;
}

/** Every command Arbor registers; package.json must contribute exactly these (a test checks both ways). */
export const COMMAND_IDS = [
  "arbor.newSession",
  "arbor.resumeSession",
  "arbor.continueRecent",
  "arbor.forkFromEntry",
  "arbor.cloneSession",
  "arbor.labelEntry",
  "arbor.clearLabel",
  "arbor.checkoutEntry",
  "arbor.renameSession",
  "arbor.revealSessionFile",
  "arbor.refreshSessions",
  "arbor.showAllWorkspaces",
  "arbor.showCurrentWorkspace",
  "arbor.searchSessions",
  "arbor.clearSessionSearch",
  "arbor.setTreeFilter",
  "arbor.sessions.resume",
  "arbor.sessions.rename",
  "arbor.sessions.fork",
  "arbor.sessions.delete",
  "arbor.tree.checkout",
  "arbor.tree.fork",
  "arbor.tree.label",
  "arbor.tree.clearLabel",
  "arbor.tree.copyText",
  "arbor.tree.revealInFile",
  "arbor.saveAsNewSession",
  "arbor.openTreeInEditor",
  "arbor.showConversationTree",
] as const;

export type CommandId = (typeof COMMAND_IDS)[number];

/** Registers every command; returns their disposables. */
export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { host, sessions, tree, log } = deps;
  const requireSession = (): SessionManager => {
    const sm = host.current;
    if (!sm) throw new SessionError("not-found", "No session is open: resume one from the Sessions view or start a new one");
    return sm;
  };

  /**
   * A path given to a command (by a menu, another extension or a command URI) is used only if it
   * names a session file in a sessions folder Arbor knows, or the session open in this window.
   */
  const knownSession = async (path: unknown): Promise<string> => {
    const open = host.current?.getSessionFile();
    if (typeof path === "string" && open !== undefined && path === open) return path;
    return assertKnownSessionFile(path, host.knownSessionFolders());
  };
  /** The path of a Sessions-view node (or of whatever another caller passed instead). */
  const nodePath = (node: unknown): Promise<string> => knownSession((node as { info?: { path?: unknown } } | undefined)?.info?.path);

  const checkout = async (id: string): Promise<void> => {
    const sm = requireSession();
    const target = checkoutTarget(sm, id);
    // The files at that point, when they differ from the workspace: asked once what to take.
    const files = deps.checkpoints ? await checkoutFiles(deps.checkpoints, sm, target).catch(() => undefined) : undefined;
    const filesChoice = files && deps.checkpoints ? await askFilesChoice(deps.checkpoints, files.plan) : undefined;
    if (files && !filesChoice) return;
    if (files && filesChoice === "files") return void (await restoreFiles(deps.checkpoints!, files));
    const summarizer = deps.summarizer();
    // Counted only when the question may be asked: on a long session it is a walk of both paths.
    // Arbor's setting where the user set it, else Pi's branchSummary.skipPrompt, else ask (as Pi).
    const ask = deps.settings().askToSummarizeBranch ?? !(host.session?.getResources().settings.view.branchSummary.skipPrompt ?? false);
    const left = ask && summarizer?.available() ? abandonedCount(sm, target) : 0;
    let choice: LeaveChoice = { summarize: false };
    if (left > 0) {
      const asked = await askLeaveBranch(left);
      if (!asked) return;
      choice = asked;
    }
    let editText: string | undefined;
    // "Conversation and files": the files are restored once the leaf has moved, before extensions hear of it.
    const restore: NavigateTreeOptions["files"] = files && filesChoice === "both" ? { restore: async () => (await restoreFiles(deps.checkpoints!, files))?.ok === true } : undefined;
    if (choice.summarize && summarizer) {
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Summarizing the branch you are leaving…", cancellable: true },
        (_p, token) => summarizer.checkoutWithSummary(id, choice as Extract<LeaveChoice, { summarize: true }>, token, restore),
      );
      if (!result) return;
      editText = result.editText;
    } else {
      const moved = await host.checkout(id, restore ? { files: restore } : {});
      if (moved.cancelled) return void vscode.window.showInformationMessage("An extension cancelled the checkout.");
      editText = moved.editText;
    }
    markWalkthroughStep("checkedOut");
    const leaf = host.current?.getLeafId();
    if (leaf) tree.reveal(leaf);
    if (editText !== undefined) void (deps.editText ?? offerEditText)(editText);
  };

  const forkAt = async (id: string): Promise<void> => {
    const sm = requireSession();
    const s = sm.getSummary(id);
    const position = s?.role === "user" ? "before" : "at";
    // The files at the fork point, when there is something to choose: into the workspace or a new worktree.
    const files = deps.checkpoints ? await askForkFiles(deps.checkpoints, sm, id, position) : { choice: "conversation" as const };
    if (!files) return;
    if (files.choice === "worktree") return forkIntoNewWorktree({ host, service: deps.checkpoints!, log, settings: deps.settings }, files.offer, id, position);
    const result = await host.fork(id, position);
    if (result.cancelled) return void vscode.window.showInformationMessage("An extension cancelled the fork.");
    if (files.choice === "workspace") await restoreForkFiles(deps.checkpoints!, files.offer);
    const forked = host.current;
    markWalkthroughStep("forkedOrLabelled");
    void vscode.window.showInformationMessage(forkNotice(forked ? openSessionTitle(forked) : UNTITLED_SESSION));
    if (result.editText !== undefined) void (deps.editText ?? offerEditText)(result.editText);
  };

  const clearLabel = async (id: string): Promise<void> => {
    const sm = requireSession();
    if (sm.getLabel(id) === undefined) return;
    sm.appendLabelChange(id, undefined);
    await sm.flush();
  };

  /** Opens a session; when its stored working folder is gone, offers the workspace folder instead. */
  const openSession = async (path: string): Promise<boolean> => {
    try {
      // Opening a 100 MB session takes a moment: say so in the status bar.
      const opened = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: "Arbor: opening session" }, () => host.open(path));
      if (!opened) void vscode.window.showInformationMessage("An extension cancelled opening that session.");
      // The tree lives in the panel: one click on a session shows its rows there, the keyboard staying put.
      else void tree.show(true).catch((error: Error) => log.warn(`could not show the Conversation Tree: ${error.message}`));
      return opened;
    } catch (err) {
      if (!(err instanceof MissingSessionCwdError)) throw err;
      const use = "Use the Workspace Folder";
      const choice = await vscode.window.showWarningMessage(`${err.message}`, { modal: true, detail: `Its tools and shell commands need a working folder. Continue it in ${err.fallbackCwd}?` }, use);
      return choice === use ? host.open(path, err.fallbackCwd) : false;
    }
  };

  const renameFile = async (path: string | undefined, currentName: string | undefined): Promise<void> => {
    const name = await vscode.window.showInputBox({
      title: "Rename Session",
      prompt: "A name for this session (empty clears it)",
      value: currentName ?? "",
      validateInput: (v) => tooLong(v, MAX_SESSION_NAME_LENGTH, "session names"),
    });
    if (name === undefined) return;
    const sm = host.current;
    if (sm && (path === undefined || sm.getSessionFile() === path)) {
      sm.appendSessionInfo(name);
      await sm.flush();
      return;
    }
    if (!path) return;
    const other = await SessionManager.open(path);
    try {
      other.appendSessionInfo(name);
    } finally {
      await other.close();
    }
    sessions.refresh();
  };

  const deleteSession = async (node: SessionNode | undefined): Promise<void> => {
    if (!node) return;
    const info = { ...node.info, path: await nodePath(node) };
    const holder = await WriterLock.inspect(info.path);
    // Held, and not by this window (a read-only view here means another window holds it).
    const ours = host.current?.getSessionFile() === info.path && !host.current.isReadOnly();
    if (holder && !ours) {
      throw new SessionError("locked", `"${sessionTitle(info)}" is open in another Arbor window (pid ${holder.pid}); close it there first`);
    }
    const confirm = "Move to Trash";
    const answer = await vscode.window.showWarningMessage(`Delete the session "${sessionTitle(info)}"?`, { modal: true, detail: `${info.path}\n\nThe file is moved to the trash and can be restored from there.` }, confirm);
    if (answer !== confirm) return;
    if (host.current?.getSessionFile() === info.path) await host.close();
    try {
      await vscode.workspace.fs.delete(vscode.Uri.file(info.path), { useTrash: true });
    } catch (err) {
      // Remote and web hosts may not reach the desktop's trash: use the OS trash directly.
      log.info(`VS Code could not trash ${info.path} (${(err as Error).message}); using the OS trash`);
      await moveToTrash(info.path);
    }
    log.info(`moved ${info.path} to the trash`);
    sessions.refresh();
  };

  const handlers: Record<CommandId, (...args: unknown[]) => unknown> = {
    "arbor.newSession": async () => {
      await host.create();
      // Where the first prompt is typed (the chat's page puts the caret in its input when focused);
      // awaited, so that a quick pick opened after the command is not closed by the focus moving.
      await deps.revealChat().catch((error: Error) => log.warn(`New Session: could not show the chat: ${error.message}`));
    },
    "arbor.resumeSession": async (path?: unknown) => {
      if (path !== undefined) return void (await openSession(await knownSession(path)));
      // What is on disk now: the view's listing may still wait for its coalesced refresh after a write.
      const list = (await sessions.listNow()).flatMap(function flat(n): SessionNode[] {
        return [n, ...n.forks.flatMap(flat)];
      });
      const info = await pickSession(list.map((n) => n.info).sort((a, b) => b.modified.getTime() - a.modified.getTime()), "Resume Session");
      if (info) await openSession(info.path);
    },
    "arbor.continueRecent": async () => {
      await host.continueRecent();
    },
    "arbor.forkFromEntry": async (arg?: unknown) => {
      const sm = requireSession();
      const id = entryIdOf(arg) ?? await pickEntry(sm, "Fork from a user message (the new session starts before it)", (s) => s.role === "user");
      if (id) await forkAt(id);
    },
    "arbor.cloneSession": async () => {
      requireSession();
      const result = await host.clone();
      if (result.cancelled) return void vscode.window.showInformationMessage("An extension cancelled the clone.");
      void vscode.window.showInformationMessage(`Cloned into a new session${result.file ? `: ${result.file.split(/[\\/]/).pop()}` : ""}`);
    },
    "arbor.labelEntry": async (arg?: unknown, label?: unknown) => {
      const sm = requireSession();
      const id = entryIdOf(arg) ?? (await pickEntry(sm, "Label which entry?"));
      if (!id) return;
      const text = labelOf(arg, label);
      if (text === undefined) await promptLabel(host, id);
      else {
        assertFits(text, MAX_LABEL_LENGTH, "labels");
        sm.appendLabelChange(id, text || undefined);
        markWalkthroughStep("forkedOrLabelled");
        await sm.flush();
      }
    },
    "arbor.clearLabel": async (arg?: unknown) => {
      const sm = requireSession();
      const labelled = sm.getLabels();
      if (!labelled.size) return void vscode.window.showInformationMessage("No entry of this session has a label.");
      const id = entryIdOf(arg) ?? (await pickEntry(sm, "Clear the label of which entry?", (s) => labelled.has(s.id)));
      if (id) await clearLabel(id);
    },
    "arbor.checkoutEntry": async (arg?: unknown) => {
      const sm = requireSession();
      const id = entryIdOf(arg) ?? (await pickEntry(sm, "Check out which entry?"));
      if (id) await checkout(id);
    },
    "arbor.renameSession": async (name?: unknown) => {
      const sm = requireSession();
      if (typeof name === "string") {
        assertFits(name, MAX_SESSION_NAME_LENGTH, "session names");
        sm.appendSessionInfo(name);
        return void (await sm.flush());
      }
      await renameFile(sm.getSessionFile(), sm.getSessionName());
    },
    "arbor.revealSessionFile": async () => {
      const file = requireSession().getSessionFile();
      if (!file) throw new SessionError("not-found", "This session has no file yet: it is written once it holds a reply");
      await revealFile(file);
    },
    "arbor.refreshSessions": () => sessions.refresh(true),
    "arbor.showAllWorkspaces": () => sessions.setAllWorkspaces(true),
    "arbor.showCurrentWorkspace": () => sessions.setAllWorkspaces(false),
    "arbor.searchSessions": async () => {
      const query = await vscode.window.showInputBox({ title: "Search Sessions", prompt: "Words to find in session names, first messages and labels" });
      if (query !== undefined) sessions.setQuery(query);
    },
    "arbor.clearSessionSearch": () => sessions.setQuery(""),
    "arbor.setTreeFilter": async () => {
      const pick = await showPick(
        FILTER_MODES.map((mode) => ({ label: FILTER_MODE_NAMES[mode], mode })),
        { title: "Conversation Tree filter" },
      );
      if (pick) tree.setFilter(pick.mode as FilterMode);
    },
    "arbor.sessions.resume": async (node?: unknown) => {
      if (node !== undefined) await openSession(await nodePath(node));
    },
    "arbor.sessions.rename": async (node?: unknown) => {
      const n = node as SessionNode | undefined;
      if (n !== undefined) await renameFile(await nodePath(n), typeof n.info?.name === "string" ? n.info.name : undefined);
    },
    "arbor.sessions.fork": async (node?: unknown) => {
      const n = node as SessionNode | undefined;
      if (n === undefined) return;
      if (!(await openSession(await nodePath(n)))) return;
      const result = await host.clone();
      if (result.cancelled) return void vscode.window.showInformationMessage("An extension cancelled the fork.");
      const forked = host.current;
      void vscode.window.showInformationMessage(forkNotice(forked ? openSessionTitle(forked) : UNTITLED_SESSION));
    },
    "arbor.sessions.delete": (node?: unknown) => deleteSession(node as SessionNode | undefined),
    "arbor.tree.checkout": async (arg?: unknown) => {
      const id = entryIdOf(arg) ?? tree.selectedEntryId;
      if (id) await checkout(id);
    },
    "arbor.tree.fork": async (arg?: unknown) => {
      const id = entryIdOf(arg) ?? tree.selectedEntryId;
      if (id) await forkAt(id);
    },
    "arbor.tree.label": async (arg?: unknown) => {
      const id = entryIdOf(arg) ?? tree.selectedEntryId;
      if (id) await promptLabel(host, id);
    },
    "arbor.tree.clearLabel": async (arg?: unknown) => {
      const id = entryIdOf(arg) ?? tree.selectedEntryId;
      if (id) await clearLabel(id);
    },
    "arbor.tree.copyText": async (arg?: unknown) => {
      const id = entryIdOf(arg) ?? tree.selectedEntryId;
      if (id) await copyEntryText(host, id);
    },
    "arbor.saveAsNewSession": async () => {
      requireSession();
      const result = await host.saveAsNew();
      if (result.cancelled) return void vscode.window.showInformationMessage("An extension cancelled saving as a new session.");
      void vscode.window.showInformationMessage(`Saved as a new session${result.file ? `: ${result.file.split(/[\\/]/).pop()}` : ""}`);
    },
    "arbor.openTreeInEditor": () => tree.openInEditor(),
    "arbor.showConversationTree": () => tree.show(false),
    "arbor.tree.revealInFile": async (arg?: unknown) => {
      const id = entryIdOf(arg) ?? tree.selectedEntryId;
      const sm = requireSession();
      const file = sm.getSessionFile();
      const line = id ? sm.getSummary(id)?.line : undefined;
      if (!file) throw new SessionError("not-found", "This session has no file yet");
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      const at = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
      await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, at), preview: true });
    },
  };

  return registerCommandSet(COMMAND_IDS, handlers, log);
}

async function revealFile(file: string): Promise<void> {
  if (vscode.env.remoteName === undefined && vscode.env.uiKind === vscode.UIKind.Desktop) {
    await vscode.commands.executeCommand("revealFileInOS", vscode.Uri.file(file));
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(doc, { preview: true });
}
