/**
 * The chat input: Enter sends, Shift+Enter is a new line, Up on the first line recalls earlier
 * prompts, "/" offers the commands, Escape stops a running reply. While the agent works (as in Pi)
 * Enter steers it, Alt+Enter queues a follow-up, and Alt+Up takes the queued prompts back. Below it: the model and thinking
 * pickers, the context meter and the Send/Stop button.
 */
import { cycleKeyOf, type CycleTarget } from "./cycle-keys";
import type { ThinkingLevel } from "../../src/core/session/types";
import type { ChatModel, ContextUse, SlashCommand } from "../../src/protocol/chat-messages";
import { codicon, el } from "../shared/dom";

export interface ComposerHandlers {
  /** `followUp`: Alt+Enter (while the agent works, the prompt waits until it would stop). */
  send(text: string, followUp: boolean): void;
  stop(): void;
  /** Alt+Up: every queued prompt back into the input. */
  takeBackQueued(): void;
  /** Whether prompts are queued now (Alt+Up does nothing without). */
  hasQueued(): boolean;
  pickModel(): void;
  setThinkingLevel(level: ThinkingLevel): void;
  /** Ctrl+P (Ctrl+Shift+P on macOS: back) steps through the scoped models, Shift+Tab through the thinking levels, as in Pi. */
  cycle(what: CycleTarget): void;
  /** The input's text changed (saved with the webview state). */
  changed(text: string, history: string[]): void;
}

const HISTORY_LIMIT = 200;
const IDLE_PLACEHOLDER = "Ask, or type / for commands, ! to run a shell command";
const BUSY_PLACEHOLDER = "Enter steers the agent, Alt+Enter queues a follow-up";
const THINKING_NAMES: Record<ThinkingLevel, string> = { off: "Thinking off", minimal: "Minimal", low: "Low", medium: "Medium", high: "High", xhigh: "Extra high" };

/** The tallest the command list gets (it scrolls past that). */
const POPUP_MAX_HEIGHT = 260;

export class Composer {
  readonly element = el("div", "composer");
  readonly input = el("textarea", "input");
  private readonly popup = el("div", "slash-popup");
  private readonly sendButton = el("button", "send");
  private readonly modelButton = el("button", "model-picker");
  private readonly thinking = el("select", "thinking-picker");
  private readonly meter = el("span", "context-meter");
  private commands: SlashCommand[] = [];
  private matches: SlashCommand[] = [];
  private selected = 0;
  private history: string[] = [];
  /** Position while walking the history with Up/Down; history.length means "the draft". */
  private cursor = 0;
  private draft = "";
  private busy = false;

  constructor(private readonly handlers: ComposerHandlers) {
    this.input.rows = 3;
    this.input.placeholder = IDLE_PLACEHOLDER;
    this.input.setAttribute("aria-label", "Message");
    this.input.spellcheck = true;
    this.popup.setAttribute("role", "listbox");
    this.popup.setAttribute("aria-label", "Commands");
    this.popup.hidden = true;

    this.sendButton.type = "button";
    this.modelButton.type = "button";
    this.modelButton.title = "Choose the model";
    this.thinking.title = "Thinking level";
    this.thinking.setAttribute("aria-label", "Thinking level");
    this.meter.setAttribute("aria-label", "Context use");

    const bar = el("div", "composer-bar");
    bar.append(this.modelButton, this.thinking, this.meter, el("span", "grow"), this.sendButton);
    this.element.append(this.popup, this.input, bar);

    this.input.addEventListener("keydown", (e) => this.onKey(e));
    this.input.addEventListener("input", () => {
      this.updatePopup();
      this.handlers.changed(this.input.value, this.history);
    });
    this.sendButton.addEventListener("click", () => (this.busy ? this.handlers.stop() : this.submit()));
    this.modelButton.addEventListener("click", () => this.handlers.pickModel());
    this.thinking.addEventListener("change", () => this.handlers.setThinkingLevel(this.thinking.value as ThinkingLevel));
    this.popup.addEventListener("mousedown", (e) => {
      const row = (e.target as HTMLElement).closest<HTMLElement>("[data-command]");
      if (!row) return;
      e.preventDefault();
      this.choose(this.matches.findIndex((c) => c.name === row.dataset.command));
    });
    this.setBusy(false);
  }

  restore(text: string, history: readonly string[]): void {
    this.input.value = text;
    this.history = history.slice(-HISTORY_LIMIT);
    this.cursor = this.history.length;
  }

  setText(text: string): void {
    this.input.value = text;
    this.cursor = this.history.length;
    this.input.focus();
    this.input.setSelectionRange(text.length, text.length);
    this.handlers.changed(text, this.history);
  }

  /** Prompts of the session (its user messages), oldest first, seeding Up before anything was typed here. */
  seedHistory(prompts: readonly string[]): void {
    if (this.history.length > 0) return;
    this.history = prompts.slice(-HISTORY_LIMIT);
    this.cursor = this.history.length;
  }

  setCommands(commands: SlashCommand[]): void {
    this.commands = commands;
    this.updatePopup();
  }

  /** `stopLabel` renames Stop while busy (e.g. "Cancel" while a retry waits). */
  setBusy(busy: boolean, stopLabel = "Stop"): void {
    this.busy = busy;
    this.sendButton.replaceChildren(codicon(busy ? "debug-stop" : "send"), el("span", "", busy ? stopLabel : "Send"));
    this.sendButton.classList.toggle("stop", busy);
    this.sendButton.title = busy ? `${stopLabel} (Escape)` : "Send (Enter)";
    this.input.placeholder = busy ? BUSY_PLACEHOLDER : IDLE_PLACEHOLDER;
  }

  setModel(model: ChatModel | null, level: ThinkingLevel, context: ContextUse | null): void {
    this.modelButton.replaceChildren(codicon("sparkle"), el("span", "", model ? model.name : "Choose a model"), codicon("chevron-down"));
    // The name in full in the tooltip too, for the narrowest views where it is cut.
    this.modelButton.title = model ? `Model: ${model.name} (choose another)` : "Choose the model";
    const levels = model?.thinkingLevels ?? ["off"];
    this.thinking.replaceChildren(...levels.map((l) => {
      const option = el("option", "", THINKING_NAMES[l]);
      option.value = l;
      return option;
    }));
    this.thinking.value = levels.includes(level) ? level : "off";
    this.thinking.disabled = levels.length <= 1;
    if (context && context.window > 0) {
      const percent = Math.min(100, Math.round((context.tokens / context.window) * 100));
      this.meter.textContent = `${percent}% of ${Math.round(context.window / 1000)}k`;
      this.meter.title = `Context: about ${context.tokens.toLocaleString()} of ${context.window.toLocaleString()} tokens`;
      this.meter.classList.toggle("warn", percent >= 80);
    } else {
      this.meter.textContent = "";
      this.meter.title = "";
    }
  }

  focus(): void {
    this.input.focus();
  }

  private submit(followUp = false): void {
    const text = this.input.value;
    if (!text.trim()) return;
    if (this.history[this.history.length - 1] !== text) this.history.push(text);
    if (this.history.length > HISTORY_LIMIT) this.history.shift();
    this.cursor = this.history.length;
    this.draft = "";
    this.input.value = "";
    this.popup.hidden = true;
    this.handlers.changed("", this.history);
    this.handlers.send(text, followUp);
  }

  private onKey(e: KeyboardEvent): void {
    const cycle = cycleKeyOf(e, /Mac/.test(navigator.platform));
    if (cycle) {
      e.preventDefault();
      e.stopPropagation();
      this.handlers.cycle(cycle);
      return;
    }
    if (!this.popup.hidden && this.matches.length) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        this.selected = (this.selected + (e.key === "ArrowDown" ? 1 : this.matches.length - 1)) % this.matches.length;
        this.paintPopup();
        return;
      }
      if (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey && this.completes())) {
        e.preventDefault();
        this.choose(this.selected, e.key === "Enter");
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        this.popup.hidden = true;
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      this.submit(e.altKey);
      return;
    }
    if (e.key === "ArrowUp" && e.altKey) {
      if (this.handlers.hasQueued()) {
        e.preventDefault();
        this.handlers.takeBackQueued();
      }
      return;
    }
    if (e.key === "Escape" && this.busy) {
      e.preventDefault();
      this.handlers.stop();
      return;
    }
    const value = this.input.value;
    const caret = this.input.selectionStart ?? 0;
    if (e.key === "ArrowUp" && !value.slice(0, caret).includes("\n") && this.cursor > 0) {
      e.preventDefault();
      if (this.cursor === this.history.length) this.draft = value;
      this.cursor--;
      this.recall(this.history[this.cursor]!);
    } else if (e.key === "ArrowDown" && !value.slice(caret).includes("\n") && this.cursor < this.history.length) {
      e.preventDefault();
      this.cursor++;
      this.recall(this.cursor === this.history.length ? this.draft : this.history[this.cursor]!);
    }
  }

  private recall(text: string): void {
    this.input.value = text;
    this.input.setSelectionRange(text.length, text.length);
    this.handlers.changed(text, this.history);
  }

  /** Whether Enter should complete the command name (still typing it) rather than send. */
  private completes(): boolean {
    const value = this.input.value.trim();
    return !value.includes(" ") && !this.matches.some((c) => `/${c.name}` === value);
  }

  /** Puts a command in the input; `run` also sends it when it takes no arguments. */
  private choose(index: number, run = true): void {
    const command = this.matches[index];
    if (!command) return;
    this.input.value = `/${command.name}${command.args ? " " : ""}`;
    this.popup.hidden = true;
    this.input.focus();
    this.handlers.changed(this.input.value, this.history);
    if (run && !command.args) this.submit();
  }

  private updatePopup(): void {
    const value = this.input.value;
    const m = /^\/(\S*)$/.exec(value);
    if (!m) {
      this.popup.hidden = true;
      return;
    }
    const query = m[1]!.toLowerCase();
    this.matches = this.commands.filter((c) => c.name.toLowerCase().startsWith(query)).concat(this.commands.filter((c) => !c.name.toLowerCase().startsWith(query) && c.name.toLowerCase().includes(query)));
    this.selected = 0;
    this.popup.hidden = this.matches.length === 0;
    this.paintPopup();
  }

  private paintPopup(): void {
    // The list opens upwards from the input: in a short view it gets only the room above the input,
    // and scrolls inside it, instead of running off the top of the view where no row can be reached.
    const room = Math.floor(this.element.getBoundingClientRect().top) - 4;
    this.popup.style.maxHeight = `${Math.max(48, Math.min(POPUP_MAX_HEIGHT, room))}px`;
    this.popup.replaceChildren(
      ...this.matches.map((c, i) => {
        const row = el("div", `slash-row${i === this.selected ? " selected" : ""}`);
        row.dataset.command = c.name;
        row.setAttribute("role", "option");
        row.setAttribute("aria-selected", String(i === this.selected));
        row.append(el("span", "slash-name", `/${c.name}`), el("span", "slash-args", c.args ?? ""), el("span", "slash-desc", c.description));
        if (c.source) row.append(el("span", "slash-source", c.source));
        return row;
      }),
    );
  }
}
