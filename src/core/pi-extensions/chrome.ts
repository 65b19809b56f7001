/**
 * What Pi extensions put in the chat's own chrome through `ctx.ui`: text widgets above or below
 * the input (`setWidget`), a title (`setTitle`, Pi's terminal title), the working message, its
 * visibility and its indicator frames while a reply runs, and the label of a folded thinking block
 * (`setHiddenThinkingLabel`). Pi draws these in its terminal; Arbor's chat draws the same text.
 *
 * Everything is kept as plain text: terminal escapes (Pi extensions colour their text with ANSI
 * sequences) and other control characters are removed, and sizes are capped, so a front end can
 * show it with `textContent` as it is.
 */

/** Lines one extension shows above or below the input. */
export interface ExtensionWidget {
  extension: string;
  key: string;
  placement: "above" | "below";
  lines: string[];
}

/** The chrome as a front end draws it. */
export interface ExtensionUiState {
  widgets: ExtensionWidget[];
  /** Shown beside the session's title; null for none. */
  title: string | null;
  /** Replaces the run indicator's text while a reply runs; null for the front end's own. */
  workingMessage: string | null;
  /** False hides the run indicator while a reply runs. */
  workingVisible: boolean;
  /** Frames that replace the spinner while a reply runs (an empty list: no glyph); null for the front end's spinner. */
  workingIndicator: { frames: string[]; intervalMs: number } | null;
  /** The label of a folded thinking block; null for the front end's own. */
  thinkingLabel: string | null;
}

export const EMPTY_EXTENSION_UI: ExtensionUiState = Object.freeze({ widgets: [], title: null, workingMessage: null, workingVisible: true, workingIndicator: null, thinkingLabel: null });

export const CHROME_LIMITS = { widgets: 100, lines: 200, lineLength: 1_000, frames: 100 } as const;

/** Pi's default frame interval for a working indicator without one. */
const DEFAULT_INTERVAL_MS = 80;

// CSI (colours, cursor moves), OSC (titles, links) and the two-byte escapes, then any other control character but tab.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f\x9b]/g;

/** `text` as plain text: terminal escapes and control characters removed, at most `max` characters. */
export function plainText(text: unknown, max: number = CHROME_LIMITS.lineLength): string {
  return String(text ?? "").replace(ESCAPES, "").slice(0, max);
}

/** A widget's content as lines: each given string may hold several (Pi splits on newlines too). */
function toLines(content: readonly unknown[]): string[] {
  return content
    .flatMap((line) => String(line ?? "").split(/\r?\n/))
    .slice(0, CHROME_LIMITS.lines)
    .map((line) => plainText(line));
}

export class ExtensionChrome {
  /** By "extension\0key", in the order they were first set (Pi stacks widgets in that order). */
  private readonly widgets = new Map<string, ExtensionWidget>();
  private title: string | null = null;
  private workingMessage: string | null = null;
  private workingVisible = true;
  private workingIndicator: ExtensionUiState["workingIndicator"] = null;
  private thinkingLabel: string | null = null;
  private scheduled = false;

  /** `changed` is called once per burst of changes (a microtask later), with the new state. */
  constructor(private readonly changed: (state: ExtensionUiState) => void) {}

  setWidget(extension: string, key: string, content: readonly unknown[] | undefined, placement: "above" | "below"): void {
    const id = `${extension}\0${key}`;
    if (content === undefined) this.widgets.delete(id);
    else if (this.widgets.has(id) || this.widgets.size < CHROME_LIMITS.widgets) this.widgets.set(id, { extension, key, placement, lines: toLines(content) });
    this.schedule();
  }

  setTitle(title: unknown): void {
    this.title = plainText(title) || null;
    this.schedule();
  }

  setWorkingMessage(message: unknown): void {
    this.workingMessage = message === undefined ? null : plainText(message) || null;
    this.schedule();
  }

  setWorkingVisible(visible: unknown): void {
    this.workingVisible = visible !== false;
    this.schedule();
  }

  setWorkingIndicator(options: unknown): void {
    if (options === undefined || options === null || typeof options !== "object") this.workingIndicator = null;
    else {
      const { frames, intervalMs } = options as { frames?: unknown; intervalMs?: unknown };
      const list = Array.isArray(frames) ? frames.slice(0, CHROME_LIMITS.frames).map((f) => plainText(f, 40)) : [];
      const interval = typeof intervalMs === "number" && Number.isFinite(intervalMs) && intervalMs > 0 ? Math.max(16, Math.round(intervalMs)) : DEFAULT_INTERVAL_MS;
      this.workingIndicator = { frames: list, intervalMs: interval };
    }
    this.schedule();
  }

  setHiddenThinkingLabel(label: unknown): void {
    this.thinkingLabel = label === undefined ? null : plainText(label, 200) || null;
    this.schedule();
  }

  /** The session's extensions ended: everything they showed goes with them. */
  clear(): void {
    this.widgets.clear();
    this.title = null;
    this.workingMessage = null;
    this.workingVisible = true;
    this.workingIndicator = null;
    this.thinkingLabel = null;
    this.schedule();
  }

  state(): ExtensionUiState {
    return {
      widgets: [...this.widgets.values()].map((w) => ({ ...w, lines: [...w.lines] })),
      title: this.title,
      workingMessage: this.workingMessage,
      workingVisible: this.workingVisible,
      workingIndicator: this.workingIndicator && { frames: [...this.workingIndicator.frames], intervalMs: this.workingIndicator.intervalMs },
      thinkingLabel: this.thinkingLabel,
    };
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.changed(this.state());
    });
  }
}
