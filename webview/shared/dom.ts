/**
 * Element creation for the webview. Text goes in through `textContent` only: session text is data,
 * never markup, so nothing here takes an HTML string.
 */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A codicon span (the icon font is loaded by the page's stylesheet link). */
export function codicon(name: string, className = ""): HTMLSpanElement {
  const node = el("span", `codicon codicon-${name}${className ? ` ${className}` : ""}`);
  node.setAttribute("aria-hidden", "true");
  return node;
}

/** Something that can be undone: listeners, timers, observers. */
export interface Disposable {
  dispose(): void;
}

/** Adds a listener and returns its removal. */
export function listen<K extends keyof HTMLElementEventMap>(
  target: HTMLElement,
  type: K,
  handler: (event: HTMLElementEventMap[K]) => void,
  options?: AddEventListenerOptions,
): Disposable {
  target.addEventListener(type, handler, options);
  return { dispose: () => target.removeEventListener(type, handler, options) };
}
