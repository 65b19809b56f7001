import * as vscode from "vscode";
import type { AgentSession } from "../../core/agent/agent-session";
import type { AgentSessionEvent } from "../../core/agent/events";
import { retryFailureNotice, retryRunLabel } from "./retry-status";
import type { ModelInfo } from "../../core/agent/providers/provider";
import { clampToLevels } from "../../core/models/thinking-levels";
import type { SessionManager } from "../../core/session/session-manager";
import { EMPTY_EXTENSION_UI, type ExtensionUiState } from "../../core/pi-extensions/chrome";
import { THINKING_LEVELS, type ThinkingLevel } from "../../core/session/types";
import { DisposableStore } from "../../core/util/disposable";
import { isChatToHostMessage } from "../../protocol/chat-guards";
import { describeInvalidMessage } from "../../protocol/validate";
import type {
  ChatModel,
  ChatSessionInfo,
  ChatStateMessage,
  ChatToHostMessage,
  ContextUse,
  HostToChatMessage,
  RunState,
  SessionStats,
  SlashCommand,
} from "../../protocol/chat-messages";
import type { SessionHost } from "../session-host";
import { ChatTranscript, type TranscriptUpdate } from "./chat-transcript";
import { chatSessionTitle } from "./chat-title";
import { contextFileRefs, openContextFile } from "./chat-resources";
import { insertAtCursor } from "./insert-code";
import { queueMessage, queuePrompt, queuesNow, takeBack } from "./chat-queue";
import { PromptAttachments } from "./prompt-attachments";
import type { ImageContent } from "../../core/session/types";

/** Where the controller's messages go: one per open chat webview (the side view, the editor panel). */
export interface ChatSurface {
  post(message: HostToChatMessage): void;
  /** Whether its page is loaded and shown (a hidden webview view drops what it is sent). */
  readonly visible: boolean;
}

/** What the chat asks the rest of the extension to do (commands, pickers, the tree). */
export interface ChatActions {
  /** Runs the user's input: a prompt (with the images pasted into it), `!cmd`, or a slash command. */
  send(text: string, images?: ImageContent[]): Promise<void>;
  /** The slash commands on offer now. */
  commands(): SlashCommand[];
  pickModel(): Promise<void>;
  addModel(): Promise<void>;
  revealEntry(entryId: string): void;
  /** Why tools are restricted here (Restricted Mode), or null. */
  restriction(): string | null;
  /** Why there is no model and how to add one, or null when the session has one. */
  noModelText(session: AgentSession | undefined): string | null;
  /** The model and level a new session would start with (shown in the pickers while no session is open). */
  defaults?(): { model: ModelInfo | undefined; thinkingLevel: ThinkingLevel };
}

/** The thinking levels a model offers: what its description lists, else all of them for a model that thinks, else only "off". */
export function thinkingLevelsOf(model: ModelInfo | undefined): ThinkingLevel[] {
  if (model?.thinkingLevels?.length) return [...model.thinkingLevels];
  return model?.supportsThinking ? [...THINKING_LEVELS] : ["off"];
}

export function chatModelOf(model: ModelInfo | undefined): ChatModel | null {
  if (!model) return null;
  return { provider: model.provider, id: model.id, name: model.name || model.id, contextWindow: model.contextWindow, thinkingLevels: thinkingLevelsOf(model) };
}

/**
 * The host side of the chat: follows this window's agent session, keeps the transcript of its
 * current path, and turns what the session does (appends, streaming, tools, shell, compaction) into
 * increments for every open chat webview. It never re-sends the whole transcript per token: a new
 * path sends its tail, appends send the new items, a streaming reply sends its deltas.
 */
export class ChatController implements vscode.Disposable {
  private readonly surfaces = new Set<ChatSurface>();
  private readonly disposables = new DisposableStore();
  private readonly binding = new DisposableStore();
  private readonly transcript = new ChatTranscript();
  /** Images, the `@` search and dropped files of the input. */
  private readonly attachments = new PromptAttachments(() => this.session);
  private session: AgentSession | undefined;
  private run: RunState | null = null;
  /** Text for the input that no visible chat has taken yet (it goes with the next full state). */
  private pendingInput: string | null = null;
  /** The input's text as the chat last reported or was given it (extensions read it with `ctx.ui.getEditorText()`). */
  private inputText = "";
  /** What Pi extensions show in the chat's chrome (widgets, title, working indicator, thinking label). */
  private extensionUi: ExtensionUiState = EMPTY_EXTENSION_UI;
  /** The session info last sent, to send it again only when it changed. */
  private lastInfo = "";
  /** Messages from the webviews that failed validation (for tests and diagnostics). */
  rejectedMessages = 0;

  constructor(
    private readonly host: SessionHost,
    private readonly actions: ChatActions,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.add(host.onDidChangeSession(() => this.rebind()));
    this.rebind();
  }

  /** Attaches a webview; it gets the full state when it says `ready`. */
  attach(surface: ChatSurface): vscode.Disposable {
    this.surfaces.add(surface);
    return { dispose: () => this.surfaces.delete(surface) };
  }

  private broadcast(message: HostToChatMessage): void {
    for (const surface of this.surfaces) surface.post(message);
  }

  // ---------------------------------------------------------------- session binding

  private rebind(): void {
    this.binding.clear();
    this.session = this.host.session;
    this.run = null;
    const session = this.session;
    this.transcript.reset(session?.sessionManager);
    if (session) {
      this.binding.add(session.onEvent((event) => this.onEvent(event)));
      this.binding.add(session.sessionManager.onDidChange((change) => change.kind === "name" && this.refreshSessionInfo()));
    }
    for (const surface of this.surfaces) {
      surface.post(this.state());
      surface.post(queueMessage(session));
    }
  }

  /** The full state, sent after `ready` and when the session is replaced. */
  state(): ChatStateMessage {
    const session = this.session;
    const info = this.sessionInfo();
    this.lastInfo = JSON.stringify(info);
    return {
      type: "chatState",
      session: info,
      transcript: this.transcript.window(),
      run: this.run,
      ...this.modelAndLevel(session),
      noModel: this.actions.noModelText(session),
      commands: this.actions.commands(),
      context: this.contextUse(),
      input: this.pendingInput,
      extensionUi: this.extensionUi,
    };
  }

  /** What the extensions show in the chat changed: every open chat draws it. */
  setExtensionUi(state: ExtensionUiState): void {
    this.extensionUi = state;
    this.broadcast({ type: "extensionUi", ui: state });
  }

  /** What the extensions show in the chat now (for tests). */
  get extensionUiState(): ExtensionUiState {
    return this.extensionUi;
  }

  /** The session's model and level; with no session, what a new one would start with. */
  private modelAndLevel(session: AgentSession | undefined): { model: ReturnType<typeof chatModelOf>; thinkingLevel: ThinkingLevel } {
    if (session) return { model: chatModelOf(session.getModel()), thinkingLevel: session.getThinkingLevel() };
    const defaults = this.actions.defaults?.();
    const model = defaults?.model;
    // The level a new session would use: the default, clamped to what the model takes.
    return { model: chatModelOf(model), thinkingLevel: model && defaults ? clampToLevels(thinkingLevelsOf(model), defaults.thinkingLevel) : "off" };
  }

  /** The current session's title (the Sessions view's rule), or undefined without a session. */
  title(): string | undefined {
    return this.sessionInfo()?.title;
  }

  private sessionInfo(): ChatSessionInfo | null {
    const session = this.session;
    if (!session) return null;
    const sm: SessionManager = session.sessionManager;
    return { sessionId: sm.getSessionId(), title: chatSessionTitle(sm), readOnly: sm.getReadOnlyReason() ?? null, restriction: this.actions.restriction(), contextFiles: contextFileRefs(session) };
  }

  private contextUse(): ContextUse | null {
    try {
      const usage = this.session?.getContextUsage();
      return usage && usage.tokens !== null ? { tokens: usage.tokens, window: usage.contextWindow } : null;
    } catch {
      return null;
    }
  }

  /** Sends the model, thinking level and context use again (after a model change or a reply). */
  postModelState(): void {
    const session = this.session;
    this.broadcast({ type: "modelState", ...this.modelAndLevel(session), noModel: this.actions.noModelText(session), context: this.contextUse() });
  }

  /** Sends the slash commands again (extensions registered or removed some). */
  postCommands(): void {
    this.broadcast({ type: "commands", commands: this.actions.commands() });
  }

  /** The chat input's text now: what the user typed (each open chat reports its changes), or what was set last. */
  input(): string {
    return this.inputText;
  }

  /** Whether a chat (the side view or an editor tab) is showing. */
  get anyVisible(): boolean {
    return [...this.surfaces].some((s) => s.visible);
  }

  /** Puts text in the chat input of every open chat (a checkout of a user message). */
  setInput(text: string): void {
    this.inputText = text;
    const shown = [...this.surfaces].some((s) => s.visible);
    this.pendingInput = shown ? null : text;
    this.broadcast({ type: "setInput", text });
  }

  /** Puts the caret in the input of every open chat (after the chat was shown for typing). */
  focusInput(): void {
    this.broadcast({ type: "focusInput" });
  }

  /** Shows `/session`'s report in every open chat. */
  showSessionStats(stats: SessionStats): void {
    this.broadcast({ type: "sessionStats", stats });
  }

  notify(level: "info" | "error", text: string): void {
    this.broadcast({ type: "notice", level, text: text.slice(0, 100_000) });
  }

  /** The run line's text before an approval dialog replaced it. */
  private labelBeforeApproval: string | undefined;

  private setRun(run: RunState | null): void {
    this.run = run;
    this.broadcast({ type: "runState", run });
  }

  // ---------------------------------------------------------------- session events

  /** Sends the session info again when what it says changed (the title follows the first message). */
  private refreshSessionInfo(): void {
    const info = this.sessionInfo();
    const key = JSON.stringify(info);
    if (key === this.lastInfo) return;
    this.lastInfo = key;
    this.broadcast({ type: "sessionInfo", session: info });
  }

  private applyTranscript(update: TranscriptUpdate): void {
    if (update.kind === "reset") {
      this.broadcast({ type: "transcriptReset", transcript: update.window });
      this.refreshSessionInfo();
    } else if (update.kind === "append") {
      const generation = this.transcript.currentGeneration;
      for (const index of update.updated) {
        const item = this.transcript.itemAt(index);
        if (item) this.broadcast({ type: "itemUpdated", generation, index, item });
      }
      if (update.items.length) this.broadcast({ type: "itemsAppended", generation, total: this.transcript.length, start: update.start, items: update.items });
      if (update.items.some((i) => i?.kind === "user")) this.refreshSessionInfo();
    }
  }

  private onEvent(event: AgentSessionEvent): void {
    switch (event.type) {
      case "entries_appended":
        return this.applyTranscript(this.transcript.onEntriesAppended(event.entries));
      case "leaf_moved":
        return this.applyTranscript(this.transcript.onLeafMoved());
      case "tree_reset":
        this.transcript.reset(this.session?.sessionManager);
        return this.broadcast({ type: "transcriptReset", transcript: this.transcript.window() });
      case "run_start":
        return this.setRun({ kind: "reply", label: "Waiting for the model…" });
      case "run_end":
        this.labelBeforeApproval = undefined;
        this.setRun(null);
        this.postModelState();
        // The prompt read Pi's resources again: the line at the top shows what it sent, the / list what is there now.
        this.refreshSessionInfo();
        return this.postCommands();
      case "message_start":
        if (event.message.role === "assistant") {
          this.broadcast({ type: "replyStart", provider: event.message.provider, model: event.message.model });
          this.setRun({ kind: "reply", label: "Replying…" });
        }
        return;
      case "message_update": {
        const d = event.delta;
        if (d.type === "text_delta") this.broadcast({ type: "replyDelta", index: d.contentIndex, part: "text", delta: d.delta });
        else if (d.type === "thinking_delta") this.broadcast({ type: "replyDelta", index: d.contentIndex, part: "thinking", delta: d.delta });
        else if (d.type === "toolcall_start") this.broadcast({ type: "replyDelta", index: d.contentIndex, part: "toolCall", delta: d.name });
        return;
      }
      case "message_end":
        if (event.message.role === "assistant") this.broadcast({ type: "replyEnd" });
        return;
      case "tool_start":
        this.setRun({ kind: "reply", label: `Running ${event.toolName}…` });
        return this.broadcast({ type: "toolProgress", toolCallId: event.toolCallId, toolName: event.toolName, state: "running" });
      case "tool_update":
        return this.broadcast({ type: "toolProgress", toolCallId: event.toolCallId, toolName: "", state: "output", text: event.text.slice(-20_000) });
      case "approval_requested":
        // The modal asks; the chat's run line says what the reply waits for, then goes back.
        if (this.run) {
          this.labelBeforeApproval = this.run.label;
          this.setRun({ ...this.run, label: "Waiting for your approval…" });
        }
        return;
      case "approval_resolved":
        // "Allow for This Session" of a foreign folder lifts the line that said the tools would ask.
        if (event.request.kind === "working-folder") this.refreshSessionInfo();
        if (this.run && this.labelBeforeApproval !== undefined) this.setRun({ ...this.run, label: this.labelBeforeApproval });
        this.labelBeforeApproval = undefined;
        return;
      case "tool_end":
        this.setRun({ kind: "reply", label: "Waiting for the model…" });
        return this.broadcast({ type: "toolProgress", toolCallId: event.toolCallId, toolName: event.result.toolName, state: "done" });
      case "bash_start":
        if (!this.run) this.setRun({ kind: "bash", label: `Running ${event.command.slice(0, 60)}…` });
        return this.broadcast({ type: "bashProgress", state: "start", command: event.command });
      case "bash_output":
        return this.broadcast({ type: "bashProgress", state: "output", text: event.text.slice(-20_000) });
      case "bash_end":
        if (this.run?.kind === "bash") this.setRun(null);
        return this.broadcast({ type: "bashProgress", state: "end" });
      case "compaction_start":
        return this.setRun({ kind: "compaction", label: event.reason === "manual" ? "Compacting…" : "Compacting the context automatically…" });
      case "compaction_progress":
        return this.setRun({ kind: "compaction", label: `Compacting (${event.phase})…` });
      case "compaction_end":
        if (event.errorMessage) this.notify("error", `Compaction failed: ${event.errorMessage}`);
        this.setRun(event.willRetry ? { kind: "reply", label: "Sending again after compacting…" } : null);
        return this.postModelState();
      case "branch_summary_start":
        return this.setRun({ kind: "summary", label: "Summarizing the branch you left…" });
      case "branch_summary_end":
        if (event.errorMessage) this.notify("error", `Branch summary failed: ${event.errorMessage}`);
        return this.setRun(null);
      case "auto_retry_start":
        return this.setRun({ kind: "reply", label: retryRunLabel(event), stopLabel: "Cancel" });
      case "auto_retry_end": {
        const notice = retryFailureNotice(event);
        if (notice) this.notify("error", notice);
        return;
      }
      case "model_changed":
      case "thinking_level_changed":
        return this.postModelState();
      case "read_only":
        return this.refreshSessionInfo();
      case "queue_changed":
        return this.broadcast(queueMessage(this.session));
      case "error":
        return this.notify("error", event.error.message);
      default:
        return;
    }
  }

  // ---------------------------------------------------------------- messages from the webviews

  /** Validates and handles a message from one surface. */
  receive(surface: ChatSurface, raw: unknown): void {
    if (!isChatToHostMessage(raw)) {
      this.rejectedMessages++;
      this.log.warn(`dropped an invalid message from the chat webview: ${describeInvalidMessage(raw)}`);
      return;
    }
    void this.handle(surface, raw).catch((error: Error) => {
      this.log.error(`chat: ${raw.type} failed: ${error.message}`);
      this.notify("error", error.message);
    });
  }

  private async handle(surface: ChatSurface, m: ChatToHostMessage): Promise<void> {
    switch (m.type) {
      case "ready":
        surface.post(this.state());
        surface.post(queueMessage(this.session));
        this.pendingInput = null;
        return;
      case "send": {
        const images = await this.attachments.forPrompt(m.images).catch((error: Error) => {
          surface.post({ type: "setInput", text: m.text });
          throw error;
        });
        // While the agent works, Enter steers it and Alt+Enter queues a follow-up, as in Pi.
        if (queuesNow(this.session, m.text)) return queuePrompt(this.session, m.text, images, m.followUp ? "followUp" : "steer", (text) => this.notify("error", text));
        return this.actions.send(m.text, images);
      }
      case "takeBackQueued":
        return this.takeBackQueued(m.id);
      case "attachImage":
      case "searchFiles":
      case "resolveDrop":
        return this.attachments.handle(surface, m);
      case "inputChanged":
        this.inputText = m.text;
        return;
      case "stop":
        // Stop also takes back what was queued: it returns to the input, as Pi restores it on Escape.
        this.takeBackQueued(undefined);
        // During the wait before a retry, Stop cancels the retry (the reply ends with its error), as Escape does in Pi.
        if (this.session?.isRetrying()) this.session.abortRetry();
        else this.session?.abort();
        return;
      case "requestItems": {
        const items = this.transcript.slice(m.generation, m.start, m.end);
        if (items) surface.post({ type: "items", generation: m.generation, start: m.start, items });
        return;
      }
      case "pickModel":
        return this.actions.pickModel();
      case "cycle":
        // The same commands as the keybindings (which the workbench does not see from the page's input).
        return void (await vscode.commands.executeCommand(m.what === "model" ? "arbor.cycleModel" : m.what === "modelBackward" ? "arbor.cycleModelBackward" : "arbor.cycleThinkingLevel"));
      case "addModel":
        return this.actions.addModel();
      case "setThinkingLevel": {
        const session = this.session;
        if (!session) return;
        if (!thinkingLevelsOf(session.getModel()).includes(m.level)) throw new Error(`The model ${session.getModel()?.name ?? "(none)"} does not offer the thinking level "${m.level}".`);
        session.setThinkingLevel(m.level);
        return;
      }
      case "openLink":
        await vscode.env.openExternal(vscode.Uri.parse(m.href, true));
        return;
      case "openContextFile":
        return openContextFile(this.session, m.path);
      case "copy":
        await vscode.env.clipboard.writeText(m.text);
        vscode.window.setStatusBarMessage("$(copy) Copied", 2000);
        return;
      case "insertCode":
        await insertAtCursor(m.text);
        return;
      case "revealEntry":
        return this.actions.revealEntry(m.entryId);
      case "log":
        if (m.level === "error") this.log.error(`chat webview: ${m.message}`);
        else if (m.level === "warn") this.log.warn(`chat webview: ${m.message}`);
        else this.log.info(`chat webview: ${m.message}`);
        return;
    }
  }

  /** Puts one queued prompt, or all of them, back into the input, before what is typed there. */
  private takeBackQueued(id: string | undefined): void {
    const text = takeBack(this.session, id, this.inputText);
    if (text !== undefined) this.setInput(text);
  }

  dispose(): void {
    this.attachments.dispose();
    this.binding.dispose();
    this.disposables.dispose();
    this.surfaces.clear();
  }
}
