/**
 * What is happening now, drawn after the last item: the reply that is streaming (text drawn as
 * markdown at most once per frame, thinking folded, tool calls as they are named), and a running
 * `!cmd` with its output. Each becomes an item once it is recorded.
 *
 * A streaming text is drawn by its appended part: what lies before its last blank line outside a
 * code fence is settled and drawn once, and only the block still growing is drawn again. A growing
 * block (or a thinking text) longer than a few kilobytes is redrawn less often the longer it is, so a
 * huge block costs a bounded share of each second, not a full redraw per frame.
 */
import { codicon, el } from "../shared/dom";
import { renderMarkdown } from "../shared/markdown";
import { settledEnd } from "../shared/markdown-sections";
import { thinkingLabelElement } from "./item-view";

/** Below this many characters, the growing part is redrawn every frame. */
const EVERY_FRAME_CHARS = 16_384;
/** Above it, the growing part waits this many milliseconds per 1,000 characters between redraws. */
const MS_PER_KCHAR = 1;

interface LivePart {
  kind: "text" | "thinking" | "toolCall";
  text: string;
  node: HTMLElement;
  body: HTMLElement;
  dirty: boolean;
  /** Text parts: where the settled text ends, and the element that holds the growing block. */
  settled: number;
  tail?: HTMLElement;
  /** When the growing part was last drawn. */
  drawnAt: number;
}

export class LiveArea {
  private reply: { node: HTMLElement; parts: Map<number, LivePart> } | undefined;
  private bash: { node: HTMLElement; output: HTMLElement; text: string } | undefined;
  private frame = 0;
  private later: ReturnType<typeof setTimeout> | undefined;
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
      const tail = el("div", "md-chunk");
      body.append(tail);
      return { kind, text: "", node: body, body, dirty: false, settled: 0, tail, drawnAt: 0 };
    }
    if (kind === "thinking") {
      const node = el("details", "thinking");
      const summary = el("summary");
      summary.append(codicon("lightbulb"), thinkingLabelElement(false, true));
      const body = el("div", "md thinking-text");
      node.append(summary, body);
      return { kind, text: "", node, body, dirty: false, settled: 0, drawnAt: 0 };
    }
    const node = el("div", "tool live-tool");
    const body = el("span", "tool-name");
    node.append(codicon("loading", "codicon-modifier-spin"), body);
    return { kind, text: "", node, body, dirty: false, settled: 0, drawnAt: 0 };
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  /** Renders what changed since the last frame (a long growing part only when its turn has come). */
  paint(): void {
    const now = performance.now();
    let wait = Infinity;
    for (const part of this.reply?.parts.values() ?? []) {
      if (!part.dirty) continue;
      const growing = part.text.length - part.settled;
      const due = growing <= EVERY_FRAME_CHARS ? 0 : part.drawnAt + (growing / 1000) * MS_PER_KCHAR - now;
      if (due > 0) {
        wait = Math.min(wait, due);
        continue;
      }
      part.dirty = false;
      part.drawnAt = now;
      if (part.kind === "text") this.paintText(part);
      else part.body.textContent = part.text;
    }
    if (this.later) clearTimeout(this.later);
    this.later = undefined;
    if (wait < Infinity) {
      this.later = setTimeout(() => {
        this.later = undefined;
        this.schedule();
      }, wait);
    }
    if (this.bash) this.bash.output.textContent = this.bash.text;
    this.lastPaint = performance.now();
    this.changed();
  }

  /** Draws the newly settled blocks once, then the growing block again. */
  private paintText(part: LivePart): void {
    const tail = part.tail!;
    const end = settledEnd(part.text, part.settled);
    if (end > part.settled) {
      const chunk = el("div", "md-chunk");
      part.body.insertBefore(chunk, tail);
      renderMarkdown(chunk, part.text.slice(part.settled, end));
      part.settled = end;
    }
    renderMarkdown(tail, part.text.slice(part.settled));
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
    if (this.later) clearTimeout(this.later);
  }
}
