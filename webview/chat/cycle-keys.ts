/** Pi's cycling keys in the chat's input. Pure: no DOM. */

/** The parts of a keydown the keys are read from. */
export interface KeyState {
  key: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/** What the cycling keys step through. */
export type CycleTarget = "model" | "modelBackward" | "thinking";

/**
 * The cycling key a keydown is, if any. Handled in the page: the workbench's own binding of these
 * keys (Quick Open, focus moves) would otherwise run, since a webview's keys reach it first.
 * Ctrl+Shift+P is the Command Palette outside macOS, so it is left alone there.
 */
export function cycleKeyOf(e: KeyState, mac: boolean): CycleTarget | undefined {
  if (e.altKey || e.metaKey) return undefined;
  if (e.ctrlKey && e.key.toLowerCase() === "p") return e.shiftKey ? (mac ? "modelBackward" : undefined) : "model";
  if (!e.ctrlKey && e.shiftKey && e.key === "Tab") return "thinking";
  return undefined;
}

