/**
 * What is happening now, drawn after the last item: the reply that is streaming (text re-rendered as
 * markdown at most once per frame, thinking folded, tool calls as they are named), and a running
 * `!cmd` with its output. Each becomes an item once it is recorded.
 */
import { codicon, el } from "../shared/dom";
import { renderMarkdown } from "../shared/markdown";
import { thinkingLabelElement } from "./item-view";

interface LivePart {
  kind: "text" | "thinking" | "toolCall";
  text: string;
  node: HTMLElement;
  body: HTMLElement;
  dirty: boolean;
}

export class LiveArea {
  private reply: { node: HTMLElement; parts: Map<number, LivePart> } | undefined;
  private bash: { node: HTMLElement; output: HTMLElement; text: string } | undefined;
  private frame = 0;
  /** When the last delta was painted (for the streaming benchmark). */
  lastPaint = 0;

  constructor(
    private readonly container: HTMLElement,
    private readonly changed: () => void,
  ) {}

  get streaming(): boolean {
    return this.reply !== undefined;
  }

  startReply(model: string): void {
    this.endReply();
    const node = el("div", "item item-assistant live");
    const head = el("div", "item-head");
    head.append(codicon("sparkle"), el("span", "who", model || "assistant"), codicon("loading", "codicon-modifier-spin"));
    node.append(head);
    this.reply = { node, parts: new Map() };
    this.container.append(node);
    this.changed();
  }

  delta(index: number, kind: LivePart["kind"], delta: string): void {
    if (!this.reply) this.startReply("");
    const reply = this.reply!;
    let part = reply.parts.get(index);
    if (!part) {
      part = this.createPart(kind);
      reply.parts.set(index, part);
      // Parts arrive in index order in practice; keep the DOM in index order anyway.
      const after = [...reply.parts.entries()].filter(([i]) => i > index).sort((a, b) => a[0] - b[0])[0];
      reply.node.insertBefore(part.node, after ? after[1].node : null);
    }
    part.text += delta;
    part.dirty = true;
    this.schedule();
  }

  private createPart(kind: LivePart["kind"]): LivePart {
    if (kind === "text") {
      const body = el("div", "md");
      return { kind, text: "", node: body, body, dirty: false };
    }
    if (kind === "thinking") {
      const node = el("details", "thinking");
      const summary = el("summary");
      summary.append(codicon("lightbulb"), thinkingLabelElement(false, true));
      const body = el("div", "md thinking-text");
      node.append(summary, body);
      return { kind, text: "", node, body, dirty: false };
    }
    const node = el("div", "tool live-tool");
    const body = el("span", "tool-name");
    node.append(codicon("loading", "codicon-modifier-spin"), body);
    return { kind, text: "", node, body, dirty: false };
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  /** Renders what changed since the last frame. */
  paint(): void {
    for (const part of this.reply?.parts.values() ?? []) {
      if (!part.dirty) continue;
      part.dirty = false;
      if (part.kind === "text") renderMarkdown(part.body, part.text);
      else part.body.textContent = part.text;
    }
    if (this.bash) this.bash.output.textContent = this.bash.text;
    this.lastPaint = performance.now();
    this.changed();
  }

  endReply(): void {
    this.reply?.node.remove();
    this.reply = undefined;
    this.changed();
  }

  startBash(command: string): void {
    this.endBash();
    const node = el("div", "item item-bash live");
    const head = el("div", "item-head");
    head.append(codicon("terminal"), el("span", "bash-command", `$ ${command}`), codicon("loading", "codicon-modifier-spin"));
    const output = el("pre", "output live");
    node.append(head, output);
    this.bash = { node, output, text: "" };
    this.container.append(node);
    this.changed();
  }

  bashOutput(text: string): void {
    if (!this.bash) return;
    // The host sends the output's tail; keep the last 20,000 characters on screen.
    this.bash.text = (this.bash.text + text).slice(-20_000);
    this.schedule();
  }

  endBash(): void {
    this.bash?.node.remove();
    this.bash = undefined;
    this.changed();
  }

  dispose(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
  }
}
