/**
 * What the chat and Pi-extension suites share: a chat webview stand-in that records what the chat
 * controller sends, watchers of the quick picks and input boxes Arbor opens (so a test answers the
 * real widget once it is shown), and a recorder of the notifications Arbor shows.
 */
import * as vscode from "vscode";
import type { ChatSurface } from "../../../src/extension/chat/chat-controller";
import type { HostToChatMessage } from "../../../src/protocol/chat-messages";
import { sleep, until } from "./host-helpers";

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
  private readonly original = vscode.window.createQuickPick;
  constructor() {
    const shown = this.shown;
    const original = this.original;
    (vscode.window as Window).createQuickPick = function <T extends vscode.QuickPickItem>() {
      const pick = original.call(vscode.window) as vscode.QuickPick<T>;
      const show = pick.show.bind(pick);
      pick.show = () => {
        show();
        shown.push(`${pick.title ?? ""} [${pick.items.map((i) => i.label).join(" | ")}]`);
      };
      return pick;
    };
  }
  /** Waits for the next pick titled `title`, moves down `down` items and accepts. */
  async answer(title: string, down: number): Promise<string> {
    const from = this.shown.length;
    let found = "";
    await until(() => {
      found = this.shown.slice(from).find((s) => s.startsWith(title)) ?? "";
      return found !== "";
    }, `the quick pick "${title}"`, 20_000);
    await sleep(100); // the widget takes the items it was shown with
    for (let i = 0; i < down; i++) await vscode.commands.executeCommand("workbench.action.quickOpenSelectNext");
    await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
    return found;
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
    await sleep(100);
    if (value === undefined) {
      await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    } else {
      found!.box.value = value;
      await sleep(50);
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


