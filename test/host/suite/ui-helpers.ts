/**
 * What the chat and Pi-extension suites share: a chat webview stand-in that records what the chat
 * controller sends, watchers of the quick picks and input boxes Arbor opens (so a test answers the
 * real widget once it is shown), and a recorder of the notifications Arbor shows.
 */
import * as vscode from "vscode";
import type { ChatSurface } from "../../../src/extension/chat/chat-controller";
import type { HostToChatMessage } from "../../../src/protocol/chat-messages";
import { until } from "./host-helpers";

/** A chat webview stand-in: records what the controller sends it. */
export class RecordingSurface implements ChatSurface {
  readonly messages: HostToChatMessage[] = [];
  readonly visible = true;
  post(message: HostToChatMessage): void {
    this.messages.push(JSON.parse(JSON.stringify(message)) as HostToChatMessage);
  }
  of<T extends HostToChatMessage["type"]>(type: T): Extract<HostToChatMessage, { type: T }>[] {
    return this.messages.filter((m): m is Extract<HostToChatMessage, { type: T }> => m.type === type);
  }
  clear(): void {
    this.messages.length = 0;
  }
}

type Window = { createQuickPick: typeof vscode.window.createQuickPick; createInputBox: typeof vscode.window.createInputBox };

/**
 * Watches the quick picks Arbor opens (the test shares Arbor's `vscode` API object), so a test can
 * wait until a dialog is really shown, then answer it with the workbench's own quick-open commands.
 */
export class QuickPickWatch {
  readonly shown: string[] = [];
  /** For each shown pick (same index), the item the workbench last reported active. */
  private readonly active: { label: string | undefined; reports: number }[] = [];
  private readonly original = vscode.window.createQuickPick;
  constructor() {
    const shown = this.shown;
    const active = this.active;
    const original = this.original;
    (vscode.window as Window).createQuickPick = function <T extends vscode.QuickPickItem>() {
      const pick = original.call(vscode.window) as vscode.QuickPick<T>;
      const show = pick.show.bind(pick);
      pick.show = () => {
        const report = { label: undefined as string | undefined, reports: 0 };
        // The workbench reports the active item once it has drawn the list, and after each move.
        pick.onDidChangeActive((items) => {
          report.label = items[0]?.label;
          report.reports++;
        });
        show();
        active.push(report);
        shown.push(`${pick.title ?? ""} [${pick.items.map((i) => i.label).join(" | ")}]`);
      };
      return pick;
    };
  }
  /**
   * Waits for the next pick titled `title` and for the workbench to have drawn its list, moves down
   * `down` items (each move waited for as the workbench reports it) and accepts.
   */
  async answer(title: string, down: number): Promise<string> {
    const from = this.shown.length;
    let index = -1;
    await until(() => {
      index = this.shown.findIndex((s, i) => i >= from && s.startsWith(title));
      return index >= 0;
    }, `the quick pick "${title}"`, 20_000);
    const report = this.active[index]!;
    await until(() => report.reports > 0, `the workbench to draw the quick pick "${title}"`, 20_000);
    for (let i = 0; i < down; i++) {
      const reports = report.reports;
      await vscode.commands.executeCommand("workbench.action.quickOpenSelectNext");
      await until(() => report.reports > reports, "the next item to be active", 20_000);
    }
    await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    return this.shown[index]!;
  }
  dispose(): void {
    (vscode.window as Window).createQuickPick = this.original;
  }
}

/** Watches the input boxes Arbor opens; a test fills the shown box and accepts or dismisses it in the workbench. */
export class InputBoxWatch {
  readonly shown: { title: string; placeholder: string; box: vscode.InputBox }[] = [];
  private readonly answered = new Set<InputBoxWatch["shown"][number]>();
  private readonly original = vscode.window.createInputBox;
  constructor() {
    const shown = this.shown;
    const original = this.original;
    (vscode.window as Window).createInputBox = function () {
      const box = original.call(vscode.window);
      const show = box.show.bind(box);
      box.show = () => {
        show();
        shown.push({ title: box.title ?? "", placeholder: box.placeholder ?? "", box });
      };
      return box;
    };
  }
  /** Waits for the next box titled `title`; types `value` and presses Enter, or with undefined presses Escape. */
  async answer(title: string, value: string | undefined): Promise<{ title: string; placeholder: string }> {
    let found: InputBoxWatch["shown"][number] | undefined;
    // The box may already be up (a command run in this host can open it before its promise is returned): any not yet answered.
    await until(() => (found = this.shown.find((s) => s.title === title && !this.answered.has(s))) !== undefined, `the input box "${title}"`, 20_000);
    this.answered.add(found!);
    const box = found!.box;
    // Messages to the workbench arrive in the order they are sent: the box is up before the value
    // set here reaches it, and the value before the command that accepts it.
    if (value === undefined) {
      await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    } else {
      box.value = value;
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    }
    return { title: found!.title, placeholder: found!.placeholder };
  }
  dispose(): void {
    (vscode.window as Window).createInputBox = this.original;
  }
}

/** Records the notifications Arbor shows (passing none through: nothing waits for their buttons). */
export function recordNotifications(): { infos: string[]; warnings: string[]; errors: string[]; dispose(): void } {
  const w = vscode.window as unknown as Record<string, (...args: unknown[]) => Thenable<unknown>>;
  const original = { info: w.showInformationMessage!, warning: w.showWarningMessage!, error: w.showErrorMessage! };
  const shown = { infos: [] as string[], warnings: [] as string[], errors: [] as string[] };
  w.showInformationMessage = (m: unknown) => (shown.infos.push(String(m)), Promise.resolve(undefined));
  w.showWarningMessage = (m: unknown) => (shown.warnings.push(String(m)), Promise.resolve(undefined));
  w.showErrorMessage = (m: unknown) => (shown.errors.push(String(m)), Promise.resolve(undefined));
  return {
    ...shown,
    dispose: () => {
      w.showInformationMessage = original.info;
      w.showWarningMessage = original.warning;
      w.showErrorMessage = original.error;
    },
  };
}


