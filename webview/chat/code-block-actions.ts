/**
 * Copy and Insert at Cursor on the code blocks of rendered markdown, as VS Code's chat offers them.
 * Kept apart from the markdown renderer and the item views: an observer finds code blocks as they
 * are drawn (recorded items, a reply while it streams) and gives each a small toolbar; one
 * listener on the root answers the buttons. The code goes to the host as text.
 */
import { codicon, el, type Disposable } from "../shared/dom";

/** What a button asks the host for. */
export type CodeBlockAction = "copy" | "insert";

const TOOLBAR_CLASS = "code-actions";
/** Code blocks of rendered markdown (not tool output, which is not markdown). */
const BLOCKS = ".md pre";

const BUTTONS: readonly { action: CodeBlockAction; icon: string; label: string }[] = [
  { action: "copy", icon: "copy", label: "Copy" },
  { action: "insert", icon: "insert", label: "Insert at Cursor" },
];

function toolbar(): HTMLElement {
  const bar = el("div", TOOLBAR_CLASS);
  bar.setAttribute("role", "toolbar");
  bar.setAttribute("aria-label", "Code block");
  for (const b of BUTTONS) {
    const button = el("button", "code-action");
    button.type = "button";
    button.dataset.codeAction = b.action;
    button.title = b.label;
    button.setAttribute("aria-label", b.label);
    button.append(codicon(b.icon));
    bar.append(button);
  }
  return bar;
}

function decorate(pre: Element): void {
  if (pre.firstElementChild?.classList.contains(TOOLBAR_CLASS)) return;
  pre.prepend(toolbar());
}

function decorateWithin(node: Node): void {
  if (!(node instanceof Element)) return;
  if (node.matches(BLOCKS)) decorate(node);
  for (const pre of node.querySelectorAll(BLOCKS)) decorate(pre);
}

/** The code a block holds, as written (highlighting spans and the toolbar aside). */
export function codeOf(pre: Element): string {
  const code = pre.querySelector("code");
  const text = code ? (code.textContent ?? "") : "";
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/**
 * Gives every code block under `root`, now and as they are drawn, Copy and Insert at Cursor
 * buttons; `act` is called with the block's code when one is pressed.
 */
export function attachCodeBlockActions(root: HTMLElement, act: (action: CodeBlockAction, code: string) => void): Disposable {
  decorateWithin(root);
  const observer = new MutationObserver((records) => {
    for (const r of records) for (const node of r.addedNodes) decorateWithin(node);
  });
  observer.observe(root, { childList: true, subtree: true });
  const onClick = (e: MouseEvent): void => {
    const button = e.target instanceof Element ? e.target.closest<HTMLElement>("button.code-action") : null;
    const pre = button?.closest("pre");
    const action = button?.dataset.codeAction;
    if (!button || !pre || (action !== "copy" && action !== "insert")) return;
    e.preventDefault();
    e.stopPropagation();
    act(action, codeOf(pre));
  };
  root.addEventListener("click", onClick);
  return {
    dispose: () => {
      observer.disconnect();
      root.removeEventListener("click", onClick);
    },
  };
}
