import * as vscode from "vscode";
import { CheckpointService, registerSnapshotContent, withCheckpoints } from "./checkpoints/checkpoint-service";
import { registerUndoFileRestore } from "./checkpoints/checkout-files";
import { registerPruneCheckpoints } from "./checkpoints/prune-command";
import { openTurnChange, turnFilesAt } from "./checkpoints/turn-files";
import { CheckpointAutoPrune } from "./checkpoints/auto-prune-schedule";
import { knownSessionFolders } from "../core/session/session-file-check";
import { homedir } from "node:os";
import { join } from "node:path";
import { killAllProcessGroups } from "../core/agent/shell/process-groups";
import type { AgentSession } from "../core/agent/agent-session";
import { createArborApi } from "../core/runtime/arbor-api";
import type { ArborApi as CoreArborApi } from "../core/runtime/extension-api";
import type { SessionManager } from "../core/session/session-manager";
import { createChatActions } from "./chat/chat-actions";
import { registerChatCommands } from "./chat/chat-commands";
import { ChatController } from "./chat/chat-controller";
import { CHAT_VIEW_ID, ChatViews } from "./chat/chat-view";
import { registerCommands, type BranchSummarizer } from "./commands";
import { registerExportCommand } from "./export-command";
import { registerBranchDiff } from "./branch-diff-command";
import { registerModelCommands } from "./models/model-commands";
import { registerLoginCommands } from "./models/login-commands";
import { ModelService } from "./models/model-service";
import { resolveAgentDir } from "../core/session/paths";
import { sessionConfig } from "./session-config";
import { describeSource, PiResources } from "./pi/pi-resources";
import type { LoadedResources } from "../core/resources";
import { SessionHost, type SessionLocation } from "./session-host";
import { prepareListedSessions, type BackgroundIndexing } from "./session-preparation";
import { SessionsView } from "./sessions-view";
import { PiExtensions } from "./pi/pi-extensions";
import { modelAccessOf } from "./pi/pi-model-access";
import { onDidChangeSettings, readSettings } from "./settings";
import { StatusBar } from "./status-bar";
import { ToolApprovals, type ApprovalPresenter } from "./tool-approvals";
import { withToolSafety } from "./tool-safety";
import { TREE_VIEW_ID, TreeViewProvider } from "./tree-view-provider";
import { SAVE_AS_NEW_COMMAND, WriteNotices } from "./write-notices";
import { quickPickReports } from "./quick-pick-probe";
import { restoreLastSession } from "./restore-session";
import { openPendingFork } from "./pending-fork-open";
import { windowCommand } from "./checkpoints/fork-files";
import { activationLogLine, startActivationTiming, type ActivationTiming } from "./activation-timing";

/**
 * The value `activate` returns to other extensions: the session-extension API of the core
 * (register handlers for session events, get a context bound to the current session), plus a view
 * of this window's current session.
 */
export interface ArborApi extends CoreArborApi {
  readonly version: string;
  /** Fires when the session of this window is replaced or closed (use `getSessionContext()` for a fresh context). */
  readonly onDidChangeSession: vscode.Event<unknown>;
  /**
   * Only when the extension host runs with ARBOR_TEST_HOOKS=1 (Arbor's own extension-host tests):
   * direct access to the current session manager. Other extensions use contexts, which go stale.
   */
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly tree: TreeViewProvider;
    readonly chat: ChatController;
    /** Answers the tool-approval dialogs in place of the user until disposed. */
    interceptApprovals(presenter: ApprovalPresenter): vscode.Disposable;
    readonly piExtensions: PiExtensions;
    readonly models: ModelService;
    /** This extension's log folder (the Arbor output channel writes beside it). */
    readonly logUri: vscode.Uri;
    /** Arbor's open quick pick as the workbench reports it (tests accept once the item they want is active). */
    readonly quickPicks: typeof quickPickReports;
    readonly sessions: SessionsView;
    readonly statusBar: StatusBar;
    readonly secrets: vscode.SecretStorage;
    /** The extension's global storage folder (a test checks that no secret lands there). */
    readonly globalStorage: string;
    /** What the Sessions view asked to index in the background (nothing in Restricted Mode). */
    readonly backgroundIndexing: BackgroundIndexing;
    /** What this activation took (module evaluation and `activate`). */
    readonly activation: ActivationTiming;
    /** Receives the command a fork into a new worktree runs to open its window, in place of running it, until disposed. */
    interceptOpenFolder(record: (command: string, args: unknown[]) => void): vscode.Disposable;
    /** Runs again what activation does for a window opened for a fork (open the session recorded for this folder). */
    openPendingFork(): Promise<boolean>;
  };
}

/** The window's session host, for `deactivate`. */
let activeHost: SessionHost | undefined;

/** Called by VS Code on activation; returns the API other extensions receive. */
export function activate(context: vscode.ExtensionContext): ArborApi {
  const activated = startActivationTiming();
  const log = vscode.window.createOutputChannel("Arbor", { log: true });
  context.subscriptions.push(log);
  let settings = readSettings();
  const location = (): SessionLocation => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    return {
      cwd: folder?.scheme === "file" ? folder.fsPath : homedir(),
      sessionDir: settings.sessionsDirectory,
      agentDir: settings.agentDirectory,
      indexDir: join(context.globalStorageUri.fsPath, "index"),
    };
  };

  const approvals = new ToolApprovals(log);
  const agentDir = (): string => resolveAgentDir({ agentDir: settings.agentDirectory });
  const models = new ModelService(context, log, agentDir);
  context.subscriptions.push(models);
  // Pi's resources (context files, skills, templates, settings, packages), read for each prompt.
  // The closure reads the host declared next; it is first called once a session exists.
  const piResources: PiResources = new PiResources({ agentDir, log, sessionResources: (): LoadedResources | undefined => host.session?.getResources() });
  context.subscriptions.push(piResources);
  // Sessions and the agent folder are never snapshotted or restored, even inside the workspace.
  const checkpoints: CheckpointService = new CheckpointService(context.globalStorageUri.fsPath, log, (): string[] => {
    const folders = knownSessionFolders(location());
    return [folders.sessionsRoot, ...(folders.explicitDir ? [folders.explicitDir] : []), agentDir()];
  });
  context.subscriptions.push(checkpoints, registerSnapshotContent(checkpoints), registerUndoFileRestore(checkpoints));
  const autoPrune = new CheckpointAutoPrune(
    checkpoints,
    context.globalState,
    () => {
      const folders = knownSessionFolders(location());
      return [folders.sessionsRoot, ...(folders.explicitDir ? [folders.explicitDir] : [])];
    },
    async () => host.current?.flush(),
    log,
  );
  checkpoints.onSnapshot = (store) => autoPrune.afterSnapshot(store);
  context.subscriptions.push(autoPrune);
  const host = new SessionHost(
    location,
    withCheckpoints(withToolSafety(sessionConfig(models, join(context.globalStorageUri.fsPath, "output"), (cwd) => piResources.load(cwd)), approvals), checkpoints),
    log,
  );
  context.subscriptions.push(registerPruneCheckpoints(checkpoints, host));
  activeHost = host;
  context.subscriptions.push(host);
  const applyHandlerTimeout = (): void =>
    host.extensions.setHandlerTimeout(Math.max(1, vscode.workspace.getConfiguration("arbor").get<number>("extensions.handlerTimeout", 30)) * 1000);
  applyHandlerTimeout();
  // Pi extension files load with each session: set up before any session starts.
  let editTextInChat: (text: string) => void = () => undefined;
  let chatInputText: () => string = () => "";
  const piExtensions = new PiExtensions({
    // Pi's settings (`extensions`) and packages add extension files; the folders discovery walks itself are left to it.
    piExtensionPaths: (cwd) => piResources.load(cwd).extensions.filter((e) => e.source.origin !== "auto").map((e) => e.path),
    piExtensionOrigin: (path) => {
      const found = piResources.current()?.extensions.find((e) => e.path === path);
      return found && found.source.origin !== "auto" ? describeSource(found.source) : undefined;
    },
    host,
    context,
    log,
    agentDirectory: () => settings.agentDirectory,
    setChatInput: (text) => editTextInChat(text),
    getChatInput: () => chatInputText(),
    models: () => modelAccessOf(models),
  });
  context.subscriptions.push(piExtensions);
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration("arbor.extensions.handlerTimeout") && applyHandlerTimeout()));
  const sessions = new SessionsView(host, location, log);
  context.subscriptions.push(sessions);
  const backgroundIndexing = prepareListedSessions(sessions, host, log);
  context.subscriptions.push(backgroundIndexing);
  const summarizer: BranchSummarizer = {
    // A model that is still configured (models.json may have dropped it since the session chose it).
    available: () => {
      const session = host.session;
      const model = session?.getModel();
      return session !== undefined && model !== undefined && models.describe(model) !== undefined && !session.isReadOnly();
    },
    async checkoutWithSummary(entryId, choice, token, files) {
      const session = host.session;
      if (!session) return undefined;
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        const result = await session.navigateTree(entryId, { summarize: true, customInstructions: choice.instructions, signal: abort.signal, ...(files ? { files } : {}) });
        return result.cancelled || result.aborted ? undefined : { editText: result.editText };
      } finally {
        sub.dispose();
      }
    },
  };
  const tree = new TreeViewProvider(
    context.extensionUri,
    host,
    {
      checkout: (id) => Promise.resolve(vscode.commands.executeCommand("arbor.tree.checkout", id)).then(() => undefined),
      fork: (id) => Promise.resolve(vscode.commands.executeCommand("arbor.tree.fork", id)).then(() => undefined),
      label: (id) => Promise.resolve(vscode.commands.executeCommand("arbor.tree.label", id)).then(() => undefined),
      copyText: (id) => Promise.resolve(vscode.commands.executeCommand("arbor.tree.copyText", id)).then(() => undefined),
      // A file replaced under the session is saved whole as a new one; a view of another window's session forks.
      forkReadOnly: () => Promise.resolve(vscode.commands.executeCommand(host.current?.isDetached() ? SAVE_AS_NEW_COMMAND : "arbor.cloneSession")).then(() => undefined),
      files: (sm, id) => turnFilesAt(checkpoints, sm, id),
      openFileChange: (sm, id, path) => openTurnChange(checkpoints, sm, id, path),
    },
    () => settings.defaultFilter,
    log,
    process.env.ARBOR_TEST_HOOKS === "1",
  );
  context.subscriptions.push(tree, vscode.window.registerWebviewViewProvider(TREE_VIEW_ID, tree), tree.registerEditorSerializer());
  const chat = new ChatController(host, createChatActions({
      host,
      hasModel: () => models.hasUsableModel(),
      defaults: () => ({ model: models.defaultModel(), thinkingLevel: models.defaultThinkingLevel() }),
      revealEntry: (id) => tree.reveal(id),
      showTree: () => void tree.show(true).catch((error: Error) => log.warn(`could not show the Conversation Tree: ${error.message}`)),
      extensionCommands: () => [...piExtensions.slashCommands(), ...piResources.slashCommands()],
      isPromptCommand: (name) => piResources.isResourceCommand(name),
      runExtensionCommand: (name, args) => piExtensions.runCommand(name, args),
      showSessionStats: (stats) => chat.showSessionStats(stats),
    }), log);
  const chatViews = new ChatViews(context.extensionUri, chat, log);
  context.subscriptions.push(chat, chatViews, vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chatViews));
  context.subscriptions.push(...registerChatCommands(host, chatViews, log));
  context.subscriptions.push(...registerModelCommands({ host, models, agentDir, log }));
  context.subscriptions.push(...registerLoginCommands(models, log));
  // A model added, a key set or models.json edited: the chat shows the session's model anew.
  context.subscriptions.push(models.onDidChangeModels(() => chat.postModelState()));
  const editText = (text: string): void => {
    chat.setInput(text);
    void chatViews.reveal();
  };
  editTextInChat = editText;
  chatInputText = () => chat.input();
  context.subscriptions.push(piExtensions.onDidChangeCommands(() => chat.postCommands()), piExtensions.onDidChangeChrome((state) => chat.setExtensionUi(state)));
  context.subscriptions.push(...registerCommands({ host, secrets: context.secrets, sessions, tree, settings: () => settings, summarizer: () => summarizer, log, editText, checkpoints, revealChat: async () => {
        await chatViews.reveal();
        chat.focusInput();
      } }));
  context.subscriptions.push(registerExportCommand(host, context.extensionUri, context.extension.packageJSON.version as string, log));
  context.subscriptions.push(...registerBranchDiff(host, tree, log, checkpoints));
  const statusBar = new StatusBar(host);
  context.subscriptions.push(statusBar, new WriteNotices(host, log));
  // A window opened for a fork into a new git worktree opens that fork first.
  const pendingFork = (): Promise<boolean> => openPendingFork(host, context.globalStorageUri.fsPath, log, editText);
  void pendingFork();
  context.subscriptions.push(restoreLastSession(host, context.storageUri, log));
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      // The agent session takes its compaction settings when it is built: rebuild it, once nothing runs
      // (a running reply is never stopped for it). Model settings apply live through the ModelService.
      if (e.affectsConfiguration("arbor.compaction") && host.currentRuntime) {
        void host.reloadWhenIdle().catch((err: Error) => reportReloadFailure(log, err));
      }
    }),
    // Shell commands (`!cmd`, the bash tool) are allowed only once the workspace is trusted.
    // Trust also lets the workspace's own values of restricted settings (folders, model) apply.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      settings = readSettings();
      sessions.relocate();
      void host.reloadWhenIdle().catch((err: Error) => reportReloadFailure(log, err));
    }),
    onDidChangeSettings(() => {
      const before = agentDir();
      settings = readSettings();
      sessions.relocate();
      tree.refresh();
      if (agentDir() !== before) void models.relocate();
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => sessions.relocate()),
  );
  void vscode.commands.executeCommand("setContext", "arbor.hasSession", false);
  context.subscriptions.push(host.onDidChangeSession((sm) => void vscode.commands.executeCommand("setContext", "arbor.hasSession", sm !== undefined)));
  log.info(`Arbor ${context.extension.packageJSON.version as string} activated for ${location().cwd}`);

  const core = createArborApi(host.extensions, () => host.currentRuntime);
  const timing = activated();
  log.info(activationLogLine(timing));
  return {
    ...core,
    version: context.extension.packageJSON.version as string,
    onDidChangeSession: host.onDidChangeSession,
    ...(process.env.ARBOR_TEST_HOOKS === "1"
      ? { testing: testHooks(host, tree, chat, approvals, piExtensions, models, context.logUri, { sessions, statusBar, secrets: context.secrets, globalStorage: context.globalStorageUri.fsPath, backgroundIndexing, activation: timing, interceptOpenFolder, openPendingFork: pendingFork }) }
      : {}),
  };
}

/** Arbor's own tests only (ARBOR_TEST_HOOKS=1): the current sessions, the views, and a seam for the approval dialogs. */
function testHooks(
  host: SessionHost,
  tree: TreeViewProvider,
  chat: ChatController,
  approvals: ToolApprovals,
  piExtensions: PiExtensions,
  models: ModelService,
  logUri: vscode.Uri,
  surfaces: Pick<NonNullable<ArborApi["testing"]>, "sessions" | "statusBar" | "secrets" | "globalStorage" | "backgroundIndexing" | "activation" | "interceptOpenFolder" | "openPendingFork">,
): NonNullable<ArborApi["testing"]> {
  return {
    ...surfaces,
    get currentSession() {
      return host.current;
    },
    get agentSession() {
      return host.session;
    },
    tree,
    chat,
    interceptApprovals: (presenter) => approvals.interceptForTests(presenter),
    piExtensions,
    models,
    logUri,
    quickPicks: quickPickReports,
  };
}

/** The test seam of windowCommand: a test host cannot open a second window. */
function interceptOpenFolder(record: (command: string, args: unknown[]) => void): vscode.Disposable {
  const real = windowCommand.execute;
  windowCommand.execute = (command, ...args) => Promise.resolve(record(command, args));
  return new vscode.Disposable(() => {
    windowCommand.execute = real;
  });
}

/** A reload that failed ended the session: say so (the views already show no session). */
function reportReloadFailure(log: vscode.LogOutputChannel, error: Error): void {
  log.error(`reloading the session: ${error.message}`);
  void vscode.window.showErrorMessage(error.message);
}

/**
 * The window closes or reloads: every handler gets session_shutdown ("quit") and the session file
 * is flushed and closed before VS Code goes on (it awaits the returned promise). Then every process
 * the agent's commands left running is stopped (a session's own already are, as it closes).
 */
export function deactivate(): Promise<void> | undefined {
  const host = activeHost;
  activeHost = undefined;
  const shutdown = host?.shutdown();
  if (!shutdown) {
    killAllProcessGroups();
    return undefined;
  }
  return shutdown.finally(() => killAllProcessGroups());
}
