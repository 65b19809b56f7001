/**
 * Pi's loaders for extension work (`BorderedLoader` from the coding agent, `Loader` and
 * `CancellableLoader` from its terminal UI package), in Arbor. In Pi an extension shows one through
 * `ctx.ui.custom()` while it works (asking a model for a hand-off prompt, extracting questions),
 * and finishes with `done(result)`; Escape aborts it. Arbor has no terminal to draw it in, but the
 * pattern needs none: `ctx.ui.custom()` runs the factory, sees a loader, and shows VS Code's
 * progress notification with the loader's message instead; Cancel there is Pi's Escape (the
 * loader's signal aborts and its `onAbort` runs).
 *
 * Any other component needs Pi's terminal (it renders lines and reads keys), so `custom()` still
 * reports it as unsupported.
 */

const LOADER = Symbol("arbor.loader");

/** What `ctx.ui.custom()` needs of a loader. */
export interface LoaderHandle {
  /** The loader's message now (an extension may change it while it works). */
  message(): string;
  readonly cancellable: boolean;
  /** Pi's Escape: aborts the signal and runs `onAbort`. Returns whether anything listened. */
  abort(): boolean;
}

/** The loader behind a component an extension's factory returned, if it is one. */
export function loaderOf(component: unknown): LoaderHandle | undefined {
  return typeof component === "object" && component !== null ? ((component as Record<symbol, LoaderHandle | undefined>)[LOADER] ?? undefined) : undefined;
}

/** The text of a message argument (Pi passes plain strings; anything else is shown as text). */
const messageText = (message: unknown): string => (typeof message === "string" ? message : message === undefined ? "Working…" : String(message));

/** pi-tui's `Loader` and `CancellableLoader`, and the base of `BorderedLoader`. */
export class ArborLoader {
  private readonly controller = new AbortController();
  private abortListener: (() => void) | undefined;
  private text: string;

  constructor(
    _tui: unknown,
    _spinnerColor: unknown,
    _messageColor: unknown,
    message?: unknown,
    protected readonly isCancellable = true,
  ) {
    this.text = messageText(message);
    const handle: LoaderHandle = { message: () => this.text, cancellable: isCancellable, abort: () => this.abort() };
    Object.defineProperty(this, LOADER, { value: handle });
  }

  /** Aborted when the user cancels (Pi's Escape). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  set onAbort(fn: (() => void) | undefined) {
    this.abortListener = fn;
  }

  setMessage(message: unknown): void {
    this.text = messageText(message);
  }

  private abort(): boolean {
    if (!this.isCancellable) return false;
    if (!this.controller.signal.aborted) this.controller.abort();
    this.abortListener?.();
    return this.abortListener !== undefined;
  }

  // A component's methods, for code that calls them; nothing is drawn in VS Code.
  render(): string[] {
    return [this.text];
  }
  invalidate(): void {}
  handleInput(): void {}
  start(): void {}
  stop(): void {}
  dispose(): void {}
}

/** pi-tui's `Loader`: not cancellable. */
export class PlainLoader extends ArborLoader {
  constructor(tui: unknown, spinnerColor: unknown, messageColor: unknown, message?: unknown) {
    super(tui, spinnerColor, messageColor, message, false);
  }
}

/** The coding agent's `BorderedLoader(tui, theme, message, { cancellable })`. */
export class BorderedLoader extends ArborLoader {
  constructor(tui: unknown, _theme: unknown, message?: unknown, options?: { cancellable?: boolean }) {
    super(tui, undefined, undefined, message, options?.cancellable ?? true);
  }
}
