import { listen, type Disposable } from "./dom";

/**
 * Select All, Undo and Redo in a webview's own text fields, done here. VS Code's webview frame hands
 * every keydown to the workbench, which runs its Select All / Undo / Redo on "the active webview";
 * the workbench learns which webview has focus by polling, so just after focus moved (a click into
 * the chat right after a quick pick closed, for one) it ran them on the active text editor instead:
 * Ctrl+A selected the editor's text and moved focus there, and the next keys typed replaced the
 * file's content. Handled here, these keys never reach the workbench.
 */
export function keepEditingKeysHere(target: HTMLElement): Disposable {
  return listen(target, "keydown", (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
    // The text field itself, also inside a toolkit component's shadow root.
    const field = e.composedPath()[0];
    if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) return;
    const key = e.key.toLowerCase();
    if (key === "a" && !e.shiftKey) field.select();
    else if (key === "z") document.execCommand(e.shiftKey ? "redo" : "undo");
    else if (key === "y" && e.ctrlKey && !e.shiftKey) document.execCommand("redo");
    else return;
    e.preventDefault();
    e.stopPropagation();
  });
}
