/**
 * Pi's `ctx.ui` for one extension. The core knows only {@link PiUiHost}: what a front end must
 * show (notifications, choices, text input, status items, the chat input). The VS Code layer
 * implements it in one module (src/extension/pi-ui-vscode.ts) with native notifications, quick
 * picks, input boxes and status-bar items. What only Pi's terminal has (custom components,
 * overlays, editor replacements, raw key input) fails with one clear message naming the
 * extension and the call; the extension's other calls keep working.
 */
import type { ExtensionChrome } from "./chrome";
import { loaderOf } from "./loader";
import { UnsupportedCallError } from "./unsupported";

/** Pi's dialog options: `timeout` (ms) dismisses the dialog with its default answer, `signal` dismisses it when aborted. */
export interface DialogOptions {
  timeout?: number;
  signal?: AbortSignal;
}

export type NotifyType = "info" | "warning" | "error";

/** What a front end implements. `extension` names who asks (for titles and messages). */
export interface PiUiHost {
  notify(extension: string, message: string, type: NotifyType): void;
  confirm(extension: string, title: string, message: string, options: DialogOptions): Promise<boolean>;
  select(extension: string, title: string, choices: string[], options: DialogOptions): Promise<string | undefined>;
  input(extension: string, title: string, placeholder: string | undefined, options: DialogOptions): Promise<string | undefined>;
  /** A longer text to edit (Pi's editor dialog). */
  editor(extension: string, title: string, prefill: string | undefined): Promise<string | undefined>;
  /** A status item per extension and key; undefined removes it. */
  setStatus(extension: string, key: string, text: string | undefined): void;
  /**
   * What extensions change in the chat's chrome (widgets, title, working indicator, thinking
   * label): the front end keeps it in an {@link ExtensionChrome}, cleared when the session's
   * extensions end. Values arrive as the extension gave them; the chrome makes them plain text.
   */
  readonly chrome: Pick<ExtensionChrome, "setWidget" | "setTitle" | "setWorkingMessage" | "setWorkingVisible" | "setWorkingIndicator" | "setHiddenThinkingLabel">;
  /**
   * Shows that an extension works (Pi's loader inside `ctx.ui.custom()`), until `close()`.
   * `cancel` runs when the user cancels (only offered when `cancellable`).
   */
  progress(extension: string, message: string, cancellable: boolean, cancel: () => void): { close(): void };
  /** The chat's input box. */
  setEditorText(extension: string, text: string): void;
  getEditorText(extension: string): string;
}

/** Pi's theme, for text: every styling call returns its text unchanged (VS Code themes the UI itself). */
export function plainTheme(): Record<string, unknown> {
  const identity = (text: unknown): string => (typeof text === "string" ? text : String(text ?? ""));
  const known: Record<string, unknown> = {
    fg: (_color: unknown, text: unknown) => identity(text),
    bg: (_color: unknown, text: unknown) => identity(text),
    bold: identity,
    italic: identity,
    underline: identity,
    inverse: identity,
    strikethrough: identity,
    dim: identity,
    getFgAnsi: () => "",
    getBgAnsi: () => "",
    getColorMode: () => "truecolor",
    getThinkingBorderColor: () => identity,
    getBashModeBorderColor: () => identity,
  };
  return new Proxy(known, {
    get(target, prop) {
      if (typeof prop === "symbol") return undefined;
      if (prop in target) return target[prop];
      // Any other styling helper: hand back the last text it was given.
      return (...args: unknown[]) => {
        const last = [...args].reverse().find((a) => typeof a === "string");
        return typeof last === "string" ? last : "";
      };
    },
  });
}

export interface PiUiDeps {
  host: PiUiHost;
  /** Stops the extension's handler timers while the user answers its dialog. */
  pauseTimeouts(extension: string): () => void;
  /** Tells the user (once per call) what could not be done. */
  report(extension: string, error: Error): void;
}

/** Pi's ExtensionUIContext for `extension`. */
export function createPiUi(extension: string, deps: PiUiDeps, assertActive: () => void): Record<string, unknown> {
  const { host } = deps;
  const reported = new Set<string>();
  /** A call with no VS Code counterpart: reported once, then a no-op. */
  const unsupported = (call: string): void => {
    assertActive();
    if (reported.has(call)) return;
    reported.add(call);
    deps.report(extension, new UnsupportedCallError(extension, call));
  };
  /** Reports `error` once per kind of call (then only throws it). */
  const reportOnce = (key: string, error: Error): void => {
    if (reported.has(key)) return;
    reported.add(key);
    deps.report(extension, error);
  };
  const dialog = async <T>(open: () => Promise<T>): Promise<T> => {
    assertActive();
    const resume = deps.pauseTimeouts(extension);
    try {
      return await open();
    } finally {
      resume();
    }
  };
  const noop = (): void => assertActive();
  const theme = plainTheme();
  return {
    notify: (message: string, type: NotifyType = "info") => (assertActive(), host.notify(extension, String(message), type)),
    confirm: (title: string, message: string, options: DialogOptions = {}) => dialog(() => host.confirm(extension, title, message, options)),
    select: (title: string, choices: string[], options: DialogOptions = {}) => dialog(() => host.select(extension, title, choices, options)),
    input: (title: string, placeholder?: string, options: DialogOptions = {}) => dialog(() => host.input(extension, title, placeholder, options)),
    editor: (title: string, prefill?: string) => dialog(() => host.editor(extension, title, prefill)),
    setStatus: (key: string, text: string | undefined) => (assertActive(), host.setStatus(extension, key, text)),
    setTitle: (title: string) => (assertActive(), host.chrome.setTitle(title)),
    setEditorText: (text: string) => (assertActive(), host.setEditorText(extension, text)),
    pasteToEditor: (text: string) => (assertActive(), host.setEditorText(extension, host.getEditorText(extension) + text)),
    getEditorText: () => (assertActive(), host.getEditorText(extension)),
    setWidget: (key: string, content: unknown, options?: { placement?: string }) => {
      if (content !== undefined && !Array.isArray(content)) return unsupported(`ctx.ui.setWidget("${key}", <component>)`);
      assertActive();
      host.chrome.setWidget(extension, String(key), content as unknown[] | undefined, options?.placement === "belowEditor" ? "below" : "above");
    },
    custom: (factory: unknown) => dialog(() => runCustom(extension, factory, host, theme, reportOnce)),
    setFooter: (factory: unknown) => (factory === undefined ? noop() : unsupported("ctx.ui.setFooter()")),
    setHeader: (factory: unknown) => (factory === undefined ? noop() : unsupported("ctx.ui.setHeader()")),
    setEditorComponent: (factory: unknown) => (factory === undefined ? noop() : unsupported("ctx.ui.setEditorComponent()")),
    getEditorComponent: () => (assertActive(), undefined),
    onTerminalInput: () => {
      unsupported("ctx.ui.onTerminalInput()");
      return () => undefined;
    },
    addAutocompleteProvider: () => unsupported("ctx.ui.addAutocompleteProvider()"),
    // The chat draws these: its run indicator while a reply runs, and its folded thinking blocks.
    setWorkingMessage: (message?: string) => (assertActive(), host.chrome.setWorkingMessage(message)),
    setWorkingVisible: (visible: boolean) => (assertActive(), host.chrome.setWorkingVisible(visible)),
    setWorkingIndicator: (options?: unknown) => (assertActive(), host.chrome.setWorkingIndicator(options)),
    setHiddenThinkingLabel: (label?: string) => (assertActive(), host.chrome.setHiddenThinkingLabel(label)),
    // Tool output is folded in the chat and opened by a click: Pi's expand-all toggle is accepted and ignored.
    setToolsExpanded: noop,
    getToolsExpanded: () => (assertActive(), false),
    requestRender: noop,
    get theme() {
      assertActive();
      return theme;
    },
    getAllThemes: () => (assertActive(), []),
    getTheme: () => (assertActive(), undefined),
    setTheme: () => (assertActive(), { success: false, error: "Arbor follows VS Code's color theme." }),
  };
}

/** What a factory of `ctx.ui.custom()` gets for Pi's terminal and key bindings: nothing is drawn, and no key is ever pressed. */
const NO_TUI = Object.freeze({ requestRender: () => undefined, terminal: Object.freeze({ columns: 80, rows: 24 }) });
const NO_KEYBINDINGS = Object.freeze({ matches: () => false, getKeys: () => [] });

const disposeComponent = (component: unknown): void => {
  try {
    (component as { dispose?: () => void } | undefined)?.dispose?.();
  } catch {
    // A component that fails to clean up must not hide the result.
  }
};

/**
 * Pi's `ctx.ui.custom(factory)`. The factory runs; when the component it returns is a loader (the
 * pattern of extensions that work while a loader shows, then call `done`), VS Code's progress
 * notification shows the loader's message until `done`, and its Cancel is the loader's Escape.
 * Any other component needs Pi's terminal: reported once, and the call fails.
 */
async function runCustom(extension: string, factory: unknown, host: PiUiHost, theme: unknown, reportOnce: (key: string, error: Error) => void): Promise<unknown> {
  const fail = (error: Error): never => {
    reportOnce(`custom:${error.message}`, error);
    throw error;
  };
  if (typeof factory !== "function") return fail(new UnsupportedCallError(extension, "ctx.ui.custom()", "it was not given a component factory"));
  let finished = false;
  let settle: (value: unknown) => void = () => undefined;
  const result = new Promise<unknown>((resolve) => (settle = resolve));
  const done = (value: unknown): void => {
    if (finished) return;
    finished = true;
    settle(value);
  };
  let component: unknown;
  try {
    component = await (factory as (...args: unknown[]) => unknown)(NO_TUI, theme, NO_KEYBINDINGS, done);
  } catch (error) {
    return fail(error instanceof Error ? error : new Error(String(error)));
  }
  const loader = loaderOf(component);
  if (!loader && !finished) {
    disposeComponent(component);
    return fail(new UnsupportedCallError(extension, "ctx.ui.custom()"));
  }
  const progress = finished || !loader ? undefined : host.progress(extension, loader.message(), loader.cancellable, () => {
    // Pi's Escape: the loader aborts and its onAbort decides the result; a loader nobody listens to ends with nothing.
    if (!loader.abort()) done(undefined);
  });
  try {
    return await result;
  } finally {
    progress?.close();
    disposeComponent(component);
  }
}
