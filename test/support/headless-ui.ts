/**
 * A PiUiHost for tests without VS Code: it records every call and answers dialogs from a script
 * (or with the dialog's default when the script is empty), honouring `timeout` and `signal` the way
 * the VS Code module does.
 */
import { ExtensionChrome } from "../../src/core/pi-extensions/chrome";
import type { DialogOptions, NotifyType, PiUiHost } from "../../src/core/pi-extensions/pi-ui";

export type UiAnswer = boolean | string | undefined | { hold: true };

export class HeadlessUi implements PiUiHost {
  readonly calls: string[] = [];
  readonly notifications: { extension: string; message: string; type: NotifyType }[] = [];
  readonly statuses = new Map<string, string>();
  /** The choices of each select, in order. */
  readonly choices: string[][] = [];
  editorText = "";
  /** The chat chrome as the extensions set it (widgets, title, working indicator, thinking label). */
  readonly chrome = new ExtensionChrome(() => undefined);
  private readonly answers: UiAnswer[] = [];

  /** Queues answers for the next dialogs, in order. `{ hold: true }`: the dialog stays open until timeout or signal. */
  answer(...answers: UiAnswer[]): void {
    this.answers.push(...answers);
  }

  private async dialog<T>(call: string, fallback: T, options: DialogOptions): Promise<T> {
    this.calls.push(call);
    const next = this.answers.shift();
    if (next && typeof next === "object" && "hold" in next) {
      return new Promise<T>((resolve) => {
        const timer = options.timeout ? setTimeout(() => resolve(fallback), options.timeout) : undefined;
        options.signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve(fallback);
        });
      });
    }
    return (next === undefined ? fallback : next) as T;
  }

  notify(extension: string, message: string, type: NotifyType): void {
    this.calls.push(`notify ${type}: ${message}`);
    this.notifications.push({ extension, message, type });
  }
  confirm(_e: string, title: string, _m: string, options: DialogOptions): Promise<boolean> {
    return this.dialog(`confirm: ${title}`, false, options);
  }
  select(_e: string, title: string, choices: string[], options: DialogOptions): Promise<string | undefined> {
    this.choices.push([...choices]);
    return this.dialog(`select: ${title}`, undefined, options);
  }
  input(_e: string, title: string, _p: string | undefined, options: DialogOptions): Promise<string | undefined> {
    return this.dialog(`input: ${title}`, undefined, options);
  }
  editor(_e: string, title: string): Promise<string | undefined> {
    return this.dialog(`editor: ${title}`, undefined, {});
  }
  setStatus(extension: string, key: string, text: string | undefined): void {
    if (text === undefined) this.statuses.delete(`${extension}/${key}`);
    else this.statuses.set(`${extension}/${key}`, text);
  }
  /** The progress shown now (Pi's loader), with its cancel; undefined when none shows. */
  shownProgress: { message: string; cancellable: boolean; cancel(): void } | undefined;
  progress(_extension: string, message: string, cancellable: boolean, cancel: () => void): { close(): void } {
    this.calls.push(`progress: ${message}`);
    const shown = { message, cancellable, cancel };
    this.shownProgress = shown;
    return { close: () => void (this.shownProgress === shown && (this.shownProgress = undefined)) };
  }
  setEditorText(_extension: string, text: string): void {
    this.editorText = text;
  }
  getEditorText(): string {
    return this.editorText;
  }
}
