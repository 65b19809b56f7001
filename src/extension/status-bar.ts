import * as vscode from "vscode";
import { loadPrices } from "../core/models/model-prices";
import { openSessionTitle } from "../core/session/title";
import { DisposableStore } from "../core/util/disposable";
import type { SessionHost } from "./session-host";
import { sessionUsage, type SessionUsage } from "./usage-summary";

function shortTokens(n: number): string {
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

/**
 * The status-bar item: the current session's name, its model, how full the model's context
 * window is, and what the session's replies used and cost so far (the tooltip breaks it down, for
 * the whole file and for the current path); a click opens the chat.
 */
export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("arbor.session", vscode.StatusBarAlignment.Left, 50);
  private readonly disposables = new DisposableStore();
  private readonly binding = new DisposableStore();
  private shown = false;

  constructor(private readonly host: SessionHost) {
    this.item.name = "Arbor Session";
    this.item.command = "arbor.openChat";
    this.disposables.add(host.onDidChangeSession(() => this.rebind()));
    this.disposables.add(host.onDidChange((c) => (c.kind === "name" || c.kind === "read-only") && this.update()));
    this.rebind();
    // Replies that recorded no cost are priced once pi-ai's catalog is loaded.
    void loadPrices().then(
      () => this.update(),
      () => undefined,
    );
  }

  /** What the item says now (for Arbor's own extension-host tests). */
  get text(): string {
    return this.item.text;
  }

  /** What its tooltip says now (for Arbor's own extension-host tests). */
  get tooltip(): string {
    return typeof this.item.tooltip === "string" ? this.item.tooltip : (this.item.tooltip?.value ?? "");
  }

  /** Whether the item is shown (it is hidden while no session is open). */
  get visible(): boolean {
    return this.shown;
  }

  /** The totals last shown (for Arbor's own extension-host tests). */
  lastUsage: SessionUsage | undefined;

  private rebind(): void {
    this.binding.clear();
    const session = this.host.session;
    if (session) {
      this.binding.add(
        session.onEvent((e) => {
          if (e.type === "run_end" || e.type === "model_changed" || e.type === "compaction_end" || e.type === "leaf_moved" || e.type === "tree_reset") this.update();
          else if (e.type === "entries_appended" && e.external) this.update();
        }),
      );
    }
    this.update();
  }

  update(): void {
    const session = this.host.session;
    const sm = session?.sessionManager;
    if (!session || !sm) {
      this.item.hide();
      this.shown = false;
      return;
    }
    const name = openSessionTitle(sm);
    const model = session.getModel();
    let usage: { tokens: number | null; contextWindow: number; percent: number | null } | undefined;
    try {
      usage = session.getContextUsage();
    } catch {
      usage = undefined;
    }
    const ro = sm.isReadOnly() ? " $(lock)" : "";
    const use = usage && usage.percent !== null ? ` · ${Math.round(usage.percent)}%` : "";
    // Undefined while a huge file's first count runs in slices: the item updates when it ends.
    const spent = sessionUsage(sm, () => this.update());
    this.lastUsage = spent;
    const total = spent?.fileLine ? ` · ${spent.fileLine}` : "";
    this.item.text = `$(list-tree) ${name.length > 30 ? `${name.slice(0, 29)}…` : name}${model ? ` · ${model.name || model.id}` : ""}${use}${total}${ro}`;
    const lines = [name, sm.getSessionFile() ?? "not saved yet"];
    if (model) lines.push(`model: ${model.provider}/${model.id}`);
    if (usage && usage.tokens !== null) lines.push(`context: about ${usage.tokens.toLocaleString()} of ${usage.contextWindow.toLocaleString()} tokens (${shortTokens(usage.contextWindow)} window)`);
    if (spent) lines.push("", spent.tooltip, "");
    if (sm.isReadOnly()) lines.push(`read-only: ${sm.getReadOnlyReason()}`);
    lines.push("Click to open the chat");
    this.item.tooltip = lines.join("\n");
    this.item.show();
    this.shown = true;
  }

  dispose(): void {
    this.binding.dispose();
    this.disposables.dispose();
    this.item.dispose();
  }
}
