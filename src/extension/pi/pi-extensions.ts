/**
 * Pi extension files in the window: found where Pi finds them (the agent directory's
 * `extensions/`, the workspace's `.pi/extensions/` once the workspace is trusted, and the
 * `arbor.extensions.paths` setting), loaded for each session through the core's PiExtensionSet,
 * their `ctx.ui` drawn with VS Code's widgets, their commands run from the chat (`/name`) and from
 * "Arbor: Run Extension Command...", and what loaded from where (with its errors) listed by
 * "Arbor: Extensions". Errors of any session extension (Pi files and API users alike) are shown
 * to the user with the extension's name.
 */
import * as vscode from "vscode";
import { join } from "node:path";
import type { ExtensionUiState } from "../../core/pi-extensions/chrome";
import { discoverExtensions } from "../../core/pi-extensions/discovery";
import { PiExtensionSet, type ExtensionStatus } from "../../core/pi-extensions/pi-extension-set";
import type { ModelAccess } from "../../core/pi-extensions/pi-models";
import { outsideHandlerScope } from "../../core/runtime/handler-scope";
import { resolveAgentDir } from "../../core/session/paths";
import type { SlashCommand } from "../../protocol/chat-messages";
import { showPick } from "../quick-pick-probe";
import { registerCommandSet } from "../register-commands";
import type { SessionHost } from "../session-host";
import { VscodePiUi } from "./pi-ui-vscode";

export const PI_COMMAND_IDS = ["arbor.showExtensions", "arbor.runExtensionCommand"] as const;

/** Shown wherever extensions are listed: extensions written for Pi's terminal sometimes assume otherwise. */
export const CWD_NOTE = "In VS Code, process.cwd() of an extension is not the workspace: ctx.cwd and pi.exec() use the session's working folder.";

export interface PiExtensionsDeps {
  host: SessionHost;
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
  /** Pi's agent directory override (the arbor.agentDirectory setting), read when a session starts. */
  agentDirectory(): string | undefined;
  /** Puts text in the chat input and shows the chat. */
  setChatInput(text: string): void;
  /** The chat input's text now (what the user typed or an extension set). */
  getChatInput(): string;
  /** The window's models (the ModelService: what Select Model offers), for `ctx.modelRegistry` and `pi.setModel`. */
  models(): ModelAccess | undefined;
  /** Extension files that Pi's settings.json (`extensions`) and Pi packages add for a working folder. */
  piExtensionPaths?(cwd: string): string[];
  /** Where Pi's settings put an extension file ("package npm:@me/tools", "user settings.json"), when they did. */
  piExtensionOrigin?(path: string): string | undefined;
}

/** How many times the same extension's error for the same event is shown before only the log gets it. */
const SHOWN_PER_EVENT = 3;

export class PiExtensions implements vscode.Disposable {
  readonly set: PiExtensionSet;
  readonly ui: VscodePiUi;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly shownErrors = new Map<string, number>();
  private readonly commandsChanged = new vscode.EventEmitter<void>();
  /** The extensions' commands changed (a session started or ended, or one registered a command later). */
  readonly onDidChangeCommands = this.commandsChanged.event;
  private readonly chromeChanged = new vscode.EventEmitter<ExtensionUiState>();
  /** What the extensions show in the chat's chrome changed. */
  readonly onDidChangeChrome = this.chromeChanged.event;

  constructor(private readonly deps: PiExtensionsDeps) {
    const { host, log } = deps;
    this.ui = new VscodePiUi({ setChatInput: (text) => deps.setChatInput(text), getChatInput: () => deps.getChatInput(), chromeChanged: (state) => this.chromeChanged.fire(state) });
    this.set = new PiExtensionSet({
      extensions: host.extensions,
      discover: (cwd) =>
        discoverExtensions({
          agentDir: this.agentDir(),
          cwd,
          trusted: vscode.workspace.isTrusted,
          paths: [...vscode.workspace.getConfiguration("arbor").get<string[]>("extensions.paths", []), ...(deps.piExtensionPaths?.(cwd) ?? [])],
        }),
      ui: this.ui,
      models: () => deps.models(),
      agentDir: () => this.agentDir(),
      cacheDir: join(deps.context.globalStorageUri.fsPath, "jiti-cache"),
      requestShutdown: () => this.closeWhenIdle(),
      sessionEnded: () => this.ui.sessionEnded(),
    });
    host.sessionExtensions = this.set;
    this.disposables.push(
      this.ui,
      this.commandsChanged,
      this.chromeChanged,
      { dispose: () => this.set.dispose() },
      { dispose: this.set.onDidChange(() => this.commandsChanged.fire()).dispose },
      { dispose: host.extensions.onDidReportError((report) => this.showError(report.extension, report.event, report.error)).dispose },
      ...registerCommandSet(PI_COMMAND_IDS, { "arbor.showExtensions": () => this.showList(), "arbor.runExtensionCommand": (name, args) => this.runFromPalette(name, args) }, log),
    );
  }

  private agentDir(): string {
    return resolveAgentDir({ agentDir: this.deps.agentDirectory() });
  }

  /**
   * `ctx.shutdown()`: Pi quits once the agent is idle; in VS Code the window stays and its session is
   * closed once idle (session_shutdown "quit", the views show no session). Asked from a handler
   * Arbor waits for, the close takes its turn after that handler's replacement or prompt.
   */
  private closeWhenIdle(): void {
    outsideHandlerScope(() => {
      void (async () => {
        await this.deps.host.session?.waitForIdle();
        await this.deps.host.close();
      })().catch((error: Error) => this.deps.log.error(`closing the session for ctx.shutdown(): ${error.message}`));
    });
  }

  /** The user is told which extension did what; repeats of the same failure go to the log only. */
  private showError(extension: string, event: string, error: Error): void {
    this.deps.log.warn(`extension "${extension}" (${event}): ${error.message}`);
    const key = `${extension}\u0000${event}`;
    const shown = this.shownErrors.get(key) ?? 0;
    if (shown >= SHOWN_PER_EVENT) return;
    this.shownErrors.set(key, shown + 1);
    const text = error.message.includes(`"${extension}"`) ? error.message : `The extension "${extension}" failed in ${event}: ${error.message}`;
    void vscode.window.showWarningMessage(text, "Show Extensions").then((choice) => choice && void this.showList());
  }

  /** The chat's `/` list: every loaded extension's commands. */
  slashCommands(): SlashCommand[] {
    return this.set.commands().map((c) => ({ name: c.name, description: c.description ?? `${c.extension} extension command`, source: c.extension }));
  }

  /** `/name args` from the chat: false when no extension has that command. */
  runCommand(name: string, args: string): Promise<boolean> {
    return this.set.runCommand(name, args);
  }

  /** "Arbor: Run Extension Command...": a quick pick of the commands (or a name and arguments from another extension or a test). */
  private async runFromPalette(name?: unknown, args?: unknown): Promise<void> {
    if (!this.deps.host.session) throw new Error("No session is open: extension commands run in a session. Start or resume one first.");
    let command = typeof name === "string" ? name.replace(/^\//, "") : undefined;
    let commandArgs = typeof args === "string" ? args : undefined;
    if (!command) {
      const commands = this.set.commands();
      if (commands.length === 0) {
        void vscode.window.showInformationMessage("No extension has registered a command. Arbor: Extensions lists what is loaded.");
        return;
      }
      const picked = await vscode.window.showQuickPick(
        commands.map((c) => ({ label: `/${c.name}`, description: c.extension, detail: c.description, name: c.name })),
        { title: "Run Extension Command", placeHolder: "A command from a Pi extension", matchOnDescription: true, matchOnDetail: true },
      );
      if (!picked) return;
      command = picked.name;
    }
    if (commandArgs === undefined) {
      commandArgs = await vscode.window.showInputBox({ title: `/${command}`, prompt: "Arguments (may be empty)", value: "" });
      if (commandArgs === undefined) return;
    }
    if (!(await this.set.runCommand(command, commandArgs))) throw new Error(`No extension has a command /${command}.`);
  }

  /** "Arbor: Extensions": what loaded from where, what it registered, and its errors. */
  private async showList(): Promise<void> {
    // Grouped as Pi lists them: loose files first, then each package's extensions under its name.
    const origin = (s: ExtensionStatus): string | undefined => this.deps.piExtensionOrigin?.(s.extension.path);
    const group = (s: ExtensionStatus): string => (origin(s)?.startsWith("package ") ? origin(s)! : "");
    const statuses = this.set.list().map((s, i) => ({ s, i })).sort((a, b) => group(a.s).localeCompare(group(b.s)) || a.i - b.i).map(({ s }) => s);
    const items: (vscode.QuickPickItem & { status?: ExtensionStatus })[] = [];
    let lastGroup = "";
    if (!this.set.loaded) items.push({ label: "$(info) Extensions load with a session: start or resume one", alwaysShow: true });
    for (const status of statuses) {
      const icon = status.state === "failed" ? "$(error)" : status.problems.length > 0 ? "$(warning)" : "$(extensions)";
      const registered = [
        status.commands.length ? `commands: ${status.commands.map((c) => `/${c}`).join(", ")}` : "",
        status.tools.length ? `tools: ${status.tools.join(", ")}` : "",
        status.events.length ? `events: ${status.events.join(", ")}` : "",
      ].filter(Boolean);
      const lastProblem = status.problems.at(-1);
      if (group(status) !== lastGroup) items.push({ label: (lastGroup = group(status)).replace(/^package /, "Pi package "), kind: vscode.QuickPickItemKind.Separator });
      items.push({
        label: `${icon} ${status.extension.name}`,
        description: `${origin(status) ?? scopeLabel(status)} · ${status.extension.path}`,
        detail: status.loadError ? `Not loaded: ${status.loadError}` : [...registered, ...status.notes, lastProblem ? `last error (${lastProblem.event}): ${lastProblem.message}` : ""].filter(Boolean).join(" · ") || "loaded",
        status,
      });
    }
    if (statuses.length === 0 && this.set.loaded) items.push({ label: "$(info) No Pi extensions found", detail: `Put extension files in ${join(this.agentDir(), "extensions")} or the workspace's .pi/extensions/ (trusted workspaces), or list them in arbor.extensions.paths.`, alwaysShow: true });
    items.push({ label: "", kind: vscode.QuickPickItemKind.Separator }, { label: "$(info) Note", detail: CWD_NOTE, alwaysShow: true });
    const picked = await showPick(items, { title: "Arbor: Extensions (Pi extension files of this session)", matchOnDescription: true, matchOnDetail: true });
    if (picked?.status) await vscode.window.showTextDocument(vscode.Uri.file(picked.status.extension.path), { preview: true });
  }

  /** What the list shows, for tests and the chat. */
  statuses(): ExtensionStatus[] {
    return this.set.list();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0).reverse()) d.dispose();
  }
}

function scopeLabel(status: ExtensionStatus): string {
  switch (status.extension.scope) {
    case "project":
      return "workspace .pi/extensions";
    case "user":
      return "agent directory";
    case "setting":
      return "arbor.extensions.paths";
  }
}
