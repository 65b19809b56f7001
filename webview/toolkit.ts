/**
 * The only module that touches the form-control library. `@vscode/webview-ui-toolkit` is deprecated
 * upstream; swapping it (for `@vscode-elements/elements`, say) means rewriting this file only: the
 * rest of the webview sees plain elements and the small interfaces below.
 */
import { el, type Disposable } from "./shared/dom";

/** A search box. */
export interface SearchField {
  readonly element: HTMLElement;
  value: string;
  focus(): void;
  onInput(handler: (value: string) => void): Disposable;
}

/** A single-choice dropdown. */
export interface Choice<T extends string> {
  readonly element: HTMLElement;
  value: T;
  onChange(handler: (value: T) => void): Disposable;
}

/** A push button. */
export interface Button {
  readonly element: HTMLElement;
  onClick(handler: () => void): Disposable;
}

/** Element value access that works before and after the custom element is upgraded. */
interface ValueElement extends HTMLElement {
  value: string;
}

let registration: Promise<void> | undefined;

/**
 * Registers the toolkit's custom elements. Elements created before this resolves upgrade in
 * place. The toolkit ships as an ES module and the webview compiles as CommonJS for the type check,
 * hence the dynamic import (esbuild inlines it into the bundle).
 */
export function registerToolkit(): Promise<void> {
  registration ??= import("@vscode/webview-ui-toolkit").then((tk) => {
    tk.provideVSCodeDesignSystem().register(tk.vsCodeTextField(), tk.vsCodeDropdown(), tk.vsCodeOption(), tk.vsCodeButton());
  });
  return registration;
}

function listenTo(target: HTMLElement, type: string, handler: () => void): Disposable {
  target.addEventListener(type, handler);
  return { dispose: () => target.removeEventListener(type, handler) };
}

export function createSearchField(options: { placeholder: string; label: string; title?: string }): SearchField {
  const field = document.createElement("vscode-text-field") as ValueElement;
  // A side bar can be narrow: a short placeholder, and the whole of it as a tooltip.
  field.setAttribute("placeholder", options.placeholder);
  field.setAttribute("aria-label", options.label);
  if (options.title) field.setAttribute("title", options.title);
  const icon = el("span", "codicon codicon-search");
  icon.setAttribute("slot", "start");
  icon.setAttribute("aria-hidden", "true");
  field.appendChild(icon);
  return {
    element: field,
    get value() {
      return field.value ?? "";
    },
    set value(v: string) {
      field.value = v;
    },
    focus: () => {
      // Focus the inner input itself, caret at the end, so that a key being typed lands after the query.
      const input = field.shadowRoot?.querySelector("input");
      if (!input) return field.focus();
      input.focus();
      input.setSelectionRange(input.value.length, input.value.length);
    },
    onInput: (handler) => listenTo(field, "input", () => handler(field.value ?? "")),
  };
}

export function createChoice<T extends string>(options: {
  label: string;
  choices: readonly { value: T; text: string }[];
  value: T;
}): Choice<T> {
  const dropdown = document.createElement("vscode-dropdown") as ValueElement;
  dropdown.setAttribute("aria-label", options.label);
  for (const c of options.choices) {
    const option = document.createElement("vscode-option") as ValueElement;
    option.setAttribute("value", c.value);
    option.textContent = c.text;
    if (c.value === options.value) option.setAttribute("selected", "");
    dropdown.appendChild(option);
  }
  const known = new Set<string>(options.choices.map((c) => c.value));
  let current = options.value;
  const read = (): T => {
    const v = dropdown.value;
    const match = options.choices.find((c) => c.value === v);
    return match ? match.value : current;
  };
  return {
    element: dropdown,
    get value() {
      return read();
    },
    set value(v: T) {
      if (!known.has(v)) return;
      current = v;
      dropdown.value = v;
      for (const option of Array.from(dropdown.children)) {
        option.toggleAttribute("selected", option.getAttribute("value") === v);
      }
    },
    onChange: (handler) =>
      listenTo(dropdown, "change", () => {
        current = read();
        handler(current);
      }),
  };
}

export function createButton(options: { text: string; appearance?: "primary" | "secondary" }): Button {
  const button = document.createElement("vscode-button");
  button.textContent = options.text;
  button.setAttribute("appearance", options.appearance ?? "primary");
  return { element: button, onClick: (handler) => listenTo(button, "click", handler) };
}
