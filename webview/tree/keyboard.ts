/** What a key press in the tree means. */
export type TreeKeyAction =
  | { kind: "move"; to: "up" | "down" | "pageUp" | "pageDown" | "home" | "end" }
  | { kind: "left" }
  | { kind: "right" }
  | { kind: "checkout" }
  | { kind: "toggleFold" }
  | { kind: "label" }
  | { kind: "fork" }
  | { kind: "copy" }
  | { kind: "focusSearch"; text: string }
  | { kind: "escape" };

interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

const MOVES: Readonly<Record<string, "up" | "down" | "pageUp" | "pageDown" | "home" | "end">> = {
  ArrowUp: "up",
  ArrowDown: "down",
  PageUp: "pageUp",
  PageDown: "pageDown",
  Home: "home",
  End: "end",
};

/**
 * Maps a key press on the tree to an action, or undefined to let it through (so VS Code's own
 * keybindings keep working). L, F and C act on the selected entry; any other printable character
 * starts a search with it (type-to-search).
 */
export function treeKeyAction(e: KeyInput): TreeKeyAction | undefined {
  const move = MOVES[e.key];
  if (move && !e.altKey) return { kind: "move", to: move };
  if (e.ctrlKey || e.metaKey) {
    if (e.key === "c" || e.key === "C") return { kind: "copy" };
    if (e.key === "f" || e.key === "F") return { kind: "focusSearch", text: "" };
    return undefined;
  }
  if (e.altKey) return undefined;
  switch (e.key) {
    case "ArrowLeft":
      return { kind: "left" };
    case "ArrowRight":
      return { kind: "right" };
    case "Enter":
      return { kind: "checkout" };
    case " ":
      return { kind: "toggleFold" };
    case "Escape":
      return { kind: "escape" };
    case "l":
    case "L":
      return { kind: "label" };
    case "f":
    case "F":
      return { kind: "fork" };
    case "c":
    case "C":
      return { kind: "copy" };
    case "/":
      return { kind: "focusSearch", text: "" };
  }
  if (e.key.length === 1 && e.key.trim() !== "") return { kind: "focusSearch", text: e.key };
  return undefined;
}
