/**
 * The Chat webview: the transcript of the current path, what is running now, and the input. It
 * validates every host message, holds only the transcript items it was sent, and asks the host for
 * earlier ones as the reader scrolls up.
 */
import { isHostToChatMessage } from "../../src/protocol/chat-guards";
import { EMPTY_EXTENSION_UI } from "../../src/core/pi-extensions/chrome";
import type { ChatStateMessage, ChatToHostMessage, ExtensionUiState, HostToChatMessage, RunState, TranscriptWindow } from "../../src/protocol/chat-messages";
import { describeInvalidMessage } from "../../src/protocol/validate";
import { codicon, el } from "../shared/dom";
import type { VsCodeApi } from "../shared/vscode-api";
import { Attachments } from "./attachments";
import { attachCodeBlockActions } from "./code-block-actions";
import { FileMention } from "./file-mention";
import { Composer } from "./composer";
import { ExtensionChromeView } from "./extension-chrome";
import type { FoldState, LiveTools } from "./item-view";
import { LiveArea } from "./live-reply";
import { QueuedPromptsView } from "./queued-prompts";
import { TranscriptList } from "./transcript-list";
import { renderSessionStats } from "./session-stats-view";

interface SavedState {
  input: string;
  history: string[];
  folds: string[];
}

function parseSaved(raw: unknown): SavedState {
  const r = (raw ?? {}) as Partial<Record<keyof SavedState, unknown>>;
  const strings = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === "string").slice(-500) : []);
  return { input: typeof r.input === "string" ? r.input : "", history: strings(r.history), folds: strings(r.folds) };
}

export class ChatApp {
  private readonly header = el("div", "chat-header");
  private readonly title = el("div", "chat-title");
  /** "Context: N files" and a button per file: what the agent is told besides the conversation. */
  private readonly contextLine = el("div", "context-files");
  private readonly notices = el("div", "notices");
  private readonly noModel = el("div", "notice notice-model");
  private readonly restricted = el("div", "notice notice-restricted");
  private readonly readOnly = el("div", "notice notice-readonly");
  private readonly message = el("div", "notice notice-message");
  private readonly stats = el("div", "notice notice-stats");
  private readonly indicator = el("div", "run-indicator");
  private readonly chrome: ExtensionChromeView;
  private readonly list: TranscriptList;
  private readonly live: LiveArea;
  private readonly composer: Composer;
  private readonly queued = new QueuedPromptsView((id) => this.post({ type: "takeBackQueued", id }));
  private readonly attachments: Attachments;
  private readonly mentions: FileMention;
  private readonly folds: FoldState;
  private readonly tools: LiveTools = { running: new Set(), output: new Map() };
  private generation = -1;
  private run: RunState | null = null;
  private saved: SavedState;

  private constructor(
    root: HTMLElement,
    private readonly api: VsCodeApi<ChatToHostMessage>,
  ) {
    this.saved = parseSaved(api.getState());
    this.folds = new Set(this.saved.folds);
    this.list = new TranscriptList({
      request: (start, end) => this.post({ type: "requestItems", generation: this.generation, start, end }),
      folds: this.folds,
      tools: this.tools,
    });
    this.live = new LiveArea(this.list.tail, () => this.list.tailChanged());
    this.composer = new Composer({
      send: (text, followUp) => {
        this.showMessage(null);
        this.stats.hidden = true;
        // Markers of large pastes go out as what was pasted; the images go with the text.
        const images = this.attachments.take();
        this.post({ type: "send", text: this.attachments.pastes.expand(text), ...(images ? { images } : {}), ...(followUp ? { followUp } : {}) });
        this.list.scrollToBottom();
      },
      stop: () => this.post({ type: "stop" }),
      takeBackQueued: () => this.post({ type: "takeBackQueued" }),
      hasQueued: () => this.queued.size > 0,
      pickModel: () => this.post({ type: "pickModel" }),
      cycle: (what) => this.post({ type: "cycle", what }),
      setThinkingLevel: (level) => this.post({ type: "setThinkingLevel", level }),
      changed: (input, history) => {
        this.save({ input, history });
        this.post({ type: "inputChanged", text: input });
      },
    });
    this.composer.restore(this.saved.input, this.saved.history);
    this.attachments = new Attachments(this.composer.input, this.composer.element, { post: (m) => this.post(m), notify: (text, level) => this.showMessage(text, level) });
    this.composer.element.insertBefore(this.attachments.element, this.composer.input);
    this.mentions = new FileMention(this.composer.element, this.composer.input, (m) => this.post(m));

    this.chrome = new ExtensionChromeView(this.indicator);
    this.header.append(codicon("comment-discussion"), this.title, this.chrome.title);
    const addModel = el("button", "link-button", "Add a model");
    addModel.type = "button";
    addModel.addEventListener("click", () => this.post({ type: "addModel" }));
    this.noModel.append(codicon("sparkle"), el("span", "notice-text"), addModel);
    this.restricted.append(codicon("shield"), el("span", "notice-text"));
    this.readOnly.append(codicon("lock"), el("span", "notice-text"));
    this.message.append(codicon("error"), el("span", "notice-text"));
    for (const n of [this.noModel, this.restricted, this.readOnly, this.message, this.stats]) n.hidden = true;
    this.notices.append(this.readOnly, this.restricted, this.noModel, this.message, this.stats);
    this.indicator.setAttribute("role", "status");
    this.indicator.setAttribute("aria-live", "polite");
    this.contextLine.hidden = true;
    root.append(this.header, this.contextLine, this.list.element, this.indicator, this.notices, this.chrome.above, this.queued.element, this.composer.element, this.chrome.below);

    // Links in messages open through the host (VS Code asks before opening an untrusted domain);
    // the folds the reader opens are remembered across reloads of the view.
    root.addEventListener("click", (e) => {
      const link = (e.target as HTMLElement).closest("a");
      if (!link) return;
      e.preventDefault();
      const href = link.getAttribute("href");
      if (href) this.post({ type: "openLink", href });
    });
    root.addEventListener("toggle", () => this.save({ folds: [...this.folds] }), true);
    root.addEventListener("copy-request", (e) => this.post({ type: "copy", text: (e as CustomEvent<string>).detail }));
    attachCodeBlockActions(root, (action, code) => this.post(action === "copy" ? { type: "copy", text: code } : { type: "insertCode", text: code }));
  }

  static mount(root: HTMLElement, api: VsCodeApi<ChatToHostMessage>): ChatApp {
    root.classList.add("chat");
    const app = new ChatApp(root, api);
    api.postMessage({ type: "ready" });
    // A draft restored from the view's saved state is in the input: the host mirrors it too.
    if (app.saved.input) api.postMessage({ type: "inputChanged", text: app.saved.input });
    return app;
  }

  private post(message: ChatToHostMessage): void {
    this.api.postMessage(message);
  }

  private save(patch: Partial<SavedState>): void {
    this.saved = { ...this.saved, ...patch };
    this.api.setState(this.saved);
  }

  handleMessage(raw: unknown): void {
    if (!isHostToChatMessage(raw)) {
      this.post({ type: "log", level: "warn", message: `Chat: dropped a host message (${describeInvalidMessage(raw)})` });
      return;
    }
    this.apply(raw);
  }

  private apply(m: HostToChatMessage): void {
    switch (m.type) {
      case "chatState":
        return this.applyState(m);
      case "transcriptReset":
        return this.resetTranscript(m.transcript);
      case "itemsAppended":
        if (m.generation !== this.generation) return;
        // A recorded reply replaces its live copy.
        if (m.items.some((i) => i?.kind === "assistant")) this.live.endReply();
        if (m.items.some((i) => i?.kind === "bash")) this.live.endBash();
        return this.list.put(m.start, m.items, m.total);
      case "itemUpdated":
        if (m.generation === this.generation) this.list.update(m.index, m.item);
        return;
      case "items":
        if (m.generation === this.generation) this.list.put(m.start, m.items);
        return;
      case "replyStart":
        return this.live.startReply(m.model);
      case "replyDelta":
        return this.live.delta(m.index, m.part, m.delta);
      case "replyEnd":
        return this.live.endReply();
      case "toolProgress":
        if (m.state === "running") this.tools.running.add(m.toolCallId);
        else if (m.state === "output") this.tools.output.set(m.toolCallId, ((this.tools.output.get(m.toolCallId) ?? "") + (m.text ?? "")).slice(-20_000));
        else {
          this.tools.running.delete(m.toolCallId);
          this.tools.output.delete(m.toolCallId);
        }
        return this.list.refreshTool(m.toolCallId);
      case "bashProgress":
        if (m.state === "start") this.live.startBash(m.command ?? "");
        else if (m.state === "output") this.live.bashOutput(m.text ?? "");
        return;
      case "runState":
        return this.setRun(m.run);
      case "modelState":
        this.composer.setModel(m.model, m.thinkingLevel, m.context);
        return this.setNotice(this.noModel, m.noModel);
      case "sessionInfo":
        return this.setSession(m.session);
      case "commands":
        return this.composer.setCommands(m.commands);
      case "setInput":
        return this.composer.setText(m.text);
      case "notice":
        return this.showMessage(m.text, m.level);
      case "sessionStats":
        renderSessionStats(this.stats, m.stats, () => (this.stats.hidden = true));
        this.stats.hidden = false;
        return;
      case "extensionUi":
        return this.setExtensionUi(m.ui);
      case "focusInput":
        return this.focusInput();
      case "queue":
        return this.queued.set(m.queued);
      case "imageAttached":
      case "dropResolved":
        return this.attachments.receive(m);
      case "fileResults":
        return this.mentions.receive(m);
    }
  }

  private applyState(m: ChatStateMessage): void {
    this.setSession(m.session);
    this.setExtensionUi(m.extensionUi);
    this.resetTranscript(m.transcript);
    this.setRun(m.run);
    this.composer.setModel(m.model, m.thinkingLevel, m.context);
    this.setNotice(this.noModel, m.noModel);
    this.composer.setCommands(m.commands);
    if (m.input !== null) this.composer.setText(m.input);
    if (!m.run) {
      this.live.endReply();
      this.live.endBash();
    }
  }

  private resetTranscript(t: TranscriptWindow): void {
    this.generation = t.generation;
    this.tools.running.clear();
    this.tools.output.clear();
    this.list.reset(t.total, t.start, t.items);
    this.composer.seedHistory(t.items.flatMap((i) => (i?.kind === "user" ? [i.text] : [])));
  }

  private setSession(session: ChatStateMessage["session"]): void {
    this.title.textContent = session ? session.title : "No session: type below to start one";
    this.title.title = this.title.textContent;
    this.setNotice(this.readOnly, session?.readOnly ? `Read-only: ${session.readOnly}. Fork the session to continue here.` : null);
    this.setNotice(this.restricted, session?.restriction ?? null);
    this.setContextFiles(session?.contextFiles ?? []);
  }

  private setContextFiles(files: NonNullable<ChatStateMessage["session"]>["contextFiles"]): void {
    this.contextLine.replaceChildren();
    this.contextLine.hidden = files.length === 0;
    if (files.length === 0) return;
    this.contextLine.append(codicon("book"), el("span", "context-count", `Context: ${files.length} ${files.length === 1 ? "file" : "files"}`));
    for (const file of files) {
      const button = el("button", "link-button context-file", file.label);
      button.type = "button";
      button.title = `Open ${file.path}`;
      button.addEventListener("click", () => this.post({ type: "openContextFile", path: file.path }));
      this.contextLine.append(button);
    }
  }

  private setNotice(node: HTMLElement, text: string | null): void {
    node.hidden = text === null;
    node.querySelector(".notice-text")!.textContent = text ?? "";
  }

  private showMessage(text: string | null, level: "info" | "error" = "error"): void {
    this.message.classList.toggle("info", level === "info");
    this.setNotice(this.message, text);
  }

  private setExtensionUi(ui: ExtensionUiState = EMPTY_EXTENSION_UI): void {
    this.chrome.set(ui);
    this.chrome.showRun(this.run);
  }

  private setRun(run: RunState | null): void {
    this.run = run;
    this.composer.setBusy(run !== null, run?.stopLabel);
    this.chrome.showRun(run);
    if (!run) {
      this.live.endReply();
      this.live.endBash();
    }
  }

  /** Puts the caret in the input. */
  focusInput(): void {
    this.composer.focus();
  }

  /** For tests and the benchmark: what is drawn. */
  debug(): { generation: number; total: number; drawn: [number, number]; running: boolean; lastPaint: number } {
    return { generation: this.generation, total: this.list.itemCount, drawn: this.list.drawnRange(), running: this.run !== null, lastPaint: this.live.lastPaint };
  }
}
