import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from "../compaction/tokens";
import type { SessionManager } from "../session/session-manager";
import type {
  AssistantMessage,
  CustomMessage,
  ImageContent,
  SessionEntry,
  TextContent,
  ThinkingLevel,
  UserMessage,
} from "../session/types";
import { DisposableStore, type Disposable } from "../util/disposable";
import { Emitter } from "../util/emitter";
import { runTurnLoop } from "./agent-loop";
import { runBashCommand, type BashRunResult } from "./bash-command";
import { lastAssistantOf, measureContextUsage, type ContextUsage } from "./auto-compaction";
import type { CompactionRunOutcome } from "./compaction-runner";
import { AgentError, NO_MODEL_MESSAGE, readOnlyMessage, SHELL_DISABLED_MESSAGE } from "./errors";
import { eventForSessionChange, type AgentSessionEvent } from "./events";
import type { AgentSessionHooks } from "./hooks";
import { ModelSelection, type ModelSource } from "./model-selection";
import { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "./output/output-limits";
import type { ModelInfo, ModelProvider, ToolDefinition } from "./providers/provider";
import { RunSlots } from "./run-slots";
import { SessionCompactor } from "./session-compactor";
import { buildSystemPrompt, type SystemPromptInput } from "./system-prompt";
import { ToolSet, type ToolPolicy } from "./tool-runner";
import { createCodingTools } from "./tools";
import type { AgentTool } from "./tools/tool";
import { navigateTree, type NavigateTreeOptions, type NavigateTreeResult } from "./tree-navigation";

/** What the host decides for every agent session (the runtime asks for it per session). */
export interface AgentSessionConfig {
  /** The model backends; none means the session browses but cannot prompt. */
  providers?: readonly ModelProvider[];
  /** Finds providers not in `providers` by id (a model registry's providers come and go). */
  resolveProvider?: ModelSource["resolveProvider"];
  /** Known details of models (context window, pricing). */
  describeModel?: ModelSource["describeModel"];
  /** Whether a model the session names may be restored (it has credentials); see ModelSource. */
  isModelAvailable?: ModelSource["isAvailable"];
  /** Used when the session names no model, or one whose provider is not configured. */
  defaultModel?: ModelInfo;
  /** Used when the session's path has no thinking-level entry (default "off"). */
  defaultThinkingLevel?: ThinkingLevel;
  /** Default: the core coding tools (read, write, edit, bash). */
  tools?: readonly AgentTool[];
  toolPolicy?: ToolPolicy;
  /** False (untrusted workspaces) makes `!cmd` and the bash tool refuse. Default true. */
  allowShell?: boolean;
  /** Our own prompt by default; a string replaces it, a function builds it per request. */
  systemPrompt?: string | ((input: SystemPromptInput) => string);
  compaction?: Partial<CompactionSettings>;
  outputLimits?: OutputLimits;
  /** Folder for full-output files of capped output (default: the system temp folder). */
  outputDirectory?: string;
  shellPath?: string;
  /** Model calls per prompt before the loop gives up (default 50). */
  maxTurns?: number;
}

export interface AgentSessionOptions extends AgentSessionConfig {
  sessionManager: SessionManager;
  hooks?: AgentSessionHooks;
}

/** What `prompt` did: a model reply (the last of the run), or a shell command for `!cmd`. */
export type PromptResult = { kind: "reply"; message: AssistantMessage } | ({ kind: "bash" } & BashRunResult);

/** What `compact` did. */
export type CompactOutcome = CompactionRunOutcome;

const DISPOSED_MESSAGE = "This agent session was closed (its session was replaced or the window closed).";

/**
 * One conversation with a model over a SessionManager. It holds the model and thinking level
 * (restored from the path), sends prompts through the provider and appends complete messages,
 * runs `!cmd`, tools, compaction and tree navigation, and tells front ends what happens through
 * `onEvent`. One prompt, compaction or summary runs at a time; `abort()` stops it.
 */
export class AgentSession implements Disposable {
  readonly sessionManager: SessionManager;
  private readonly events = new Emitter<AgentSessionEvent>();
  /** Subscribe to everything the session does; the returned disposable unsubscribes. */
  readonly onEvent = this.events.event;

  private readonly subscriptions = new DisposableStore();
  private readonly selection: ModelSelection;
  private readonly tools: ToolSet;
  private readonly allowShell: boolean;
  private readonly settings: CompactionSettings;
  private readonly limits: OutputLimits;
  private readonly slots = new RunSlots();
  private readonly compactor: SessionCompactor;
  private disposed = false;

  constructor(private readonly options: AgentSessionOptions) {
    this.sessionManager = options.sessionManager;
    this.allowShell = options.allowShell ?? true;
    this.tools = new ToolSet(options.tools ?? createCodingTools({ shellPath: options.shellPath }), options.toolPolicy, this.allowShell);
    this.settings = { ...DEFAULT_COMPACTION_SETTINGS, ...options.compaction };
    this.limits = options.outputLimits ?? DEFAULT_OUTPUT_LIMITS;
    this.selection = new ModelSelection(
      {
        providers: options.providers ?? [],
        resolveProvider: options.resolveProvider,
        describeModel: options.describeModel,
        isAvailable: options.isModelAvailable,
      },
      this.sessionManager,
      { model: options.defaultModel, thinkingLevel: options.defaultThinkingLevel },
    );
    this.compactor = new SessionCompactor({
      sessionManager: this.sessionManager,
      selection: this.selection,
      settings: this.settings,
      hooks: options.hooks,
      requireModel: () => this.requireModel(),
      emit: (event) => this.emit(event),
    });
    this.subscriptions.add(
      this.sessionManager.onDidChange((change) => {
        const event = eventForSessionChange(change);
        if (event) this.emit(event);
      }),
    );
  }

  // ---------------------------------------------------------------- state

  getModel(): ModelInfo | undefined {
    return this.selection.model;
  }
  getThinkingLevel(): ThinkingLevel {
    return this.selection.thinkingLevel;
  }
  /** A prompt, compaction or branch summary is running. */
  isBusy(): boolean {
    return this.slots.isBusy("run");
  }
  isBashRunning(): boolean {
    return this.slots.isBusy("bash");
  }
  isReadOnly(): boolean {
    return this.sessionManager.isReadOnly();
  }
  isDisposed(): boolean {
    return this.disposed;
  }
  /** The tools offered to the model under the current policy. */
  getToolDefinitions(): ToolDefinition[] {
    return this.tools.definitions();
  }
  setToolPolicy(policy: ToolPolicy): void {
    this.tools.setPolicy(policy);
  }
  /** How full the model's context window is, for a status display. */
  getContextUsage(): ContextUsage | undefined {
    const model = this.selection.model;
    if (!model) return undefined;
    return measureContextUsage(this.sessionManager.getBranch(), this.sessionManager.buildSessionContext().messages, model.contextWindow);
  }

  /**
   * Selects a model. A `model_change` entry is appended only when the model differs from what the
   * current path already resolves to (and the session is writable). Returns whether it changed.
   */
  setModel(model: ModelInfo): boolean {
    this.assertOpen();
    const levelBefore = this.selection.thinkingLevel;
    let changed: boolean;
    try {
      changed = this.selection.setModel(model);
    } catch (error) {
      throw new AgentError("no-model", (error as Error).message);
    }
    if (changed) this.emit({ type: "model_changed", model });
    // The level is clamped to what the new model takes.
    if (this.selection.thinkingLevel !== levelBefore) this.emit({ type: "thinking_level_changed", level: this.selection.thinkingLevel });
    return changed;
  }

  /**
   * Sets the thinking level, clamped to what the model takes (`getThinkingLevel()` says which level
   * it became); appends a `thinking_level_change` only when the path's level differs.
   */
  setThinkingLevel(level: ThinkingLevel): boolean {
    this.assertOpen();
    const changed = this.selection.setThinkingLevel(level);
    if (changed) this.emit({ type: "thinking_level_changed", level: this.selection.thinkingLevel });
    return changed;
  }

  /** Why the session's own model was not restored (no key, not configured), when it was not. */
  getModelNotice(): string | undefined {
    return this.selection.fallbackNotice;
  }

  // ---------------------------------------------------------------- prompting

  /**
   * Sends a prompt and runs the agent loop until the model stops; `!cmd` and `!!cmd` run a shell
   * command instead. Stopping (`signal` or `abort()`) ends the reply with stopReason "aborted",
   * keeping what streamed. Rejects with AgentError when the session is read-only, busy or has no model.
   */
  async prompt(text: string, options: { signal?: AbortSignal; images?: ImageContent[] } = {}): Promise<PromptResult> {
    this.assertOpen();
    if (text.startsWith("!")) {
      const excludeFromContext = text.startsWith("!!");
      const result = await this.runBash(text.slice(excludeFromContext ? 2 : 1), { excludeFromContext, signal: options.signal });
      return { kind: "bash", ...result };
    }
    this.assertWritable();
    const { provider, model } = this.requireModel();
    return this.exclusive(options.signal, async (signal) => {
      this.emit({ type: "run_start" });
      let last: AssistantMessage | undefined;
      try {
        await this.compactor.ifOverThreshold(lastAssistantOf(this.sessionManager.buildSessionContext().messages), signal);
        this.selection.record();
        const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...(options.images ?? [])];
        const user: UserMessage = { role: "user", content, timestamp: Date.now() };
        this.emit({ type: "message_start", message: user });
        this.emit({ type: "message_end", message: user, entryId: this.sessionManager.appendMessage(user) });
        last = await runTurnLoop({
          sessionManager: this.sessionManager,
          provider,
          model,
          thinkingLevel: this.selection.thinkingLevel,
          tools: this.tools,
          systemPrompt: (tools) => this.systemPromptFor(tools),
          signal,
          limits: this.limits,
          allowShell: this.allowShell,
          outputDirectory: this.options.outputDirectory,
          maxTurns: this.options.maxTurns ?? 50,
          emit: (event) => this.emit(event),
          recoverFromOverflow: () => this.compactor.auto("overflow", signal),
        });
        if (!signal.aborted) await this.compactor.ifOverThreshold(last, signal);
        return { kind: "reply", message: last };
      } finally {
        this.emit({ type: "run_end", lastAssistant: last });
      }
    });
  }

  private systemPromptFor(tools: readonly ToolDefinition[]): string {
    const custom = this.options.systemPrompt;
    if (typeof custom === "string") return custom;
    const input: SystemPromptInput = { cwd: this.sessionManager.getCwd(), tools };
    return custom ? custom(input) : buildSystemPrompt(input);
  }

  /**
   * Runs a shell command in the session's cwd and records a `bashExecution` message (kept out of the
   * model's context with `excludeFromContext`, as `!!cmd` does). Output is capped: the tail is kept
   * and the whole output saved to a file. While a prompt runs, the record waits for it to finish.
   */
  async runBash(command: string, options: { excludeFromContext?: boolean; signal?: AbortSignal } = {}): Promise<BashRunResult> {
    this.assertOpen();
    if (!this.allowShell) throw new AgentError("shell-disabled", SHELL_DISABLED_MESSAGE);
    const trimmed = command.trim();
    if (trimmed === "") throw new AgentError("empty-command", "Type a command after the ! to run it.");
    this.assertWritable();
    if (this.slots.isBusy("bash")) throw new AgentError("busy", "A shell command is already running; stop it first.");
    const slot = this.slots.occupy("bash", options.signal);
    try {
      return await runBashCommand({
        sessionManager: this.sessionManager,
        command: trimmed,
        excludeFromContext: options.excludeFromContext === true,
        signal: slot.signal,
        limits: this.limits,
        outputDirectory: this.options.outputDirectory,
        shellPath: this.options.shellPath,
        slots: this.slots,
        emit: (event) => this.emit(event),
      });
    } finally {
      slot.release();
    }
  }

  /** Stops the running prompt, compaction or summary, and any shell command. */
  abort(): void {
    this.slots.abort();
  }

  /** Stops only the running shell command. */
  abortBash(): void {
    this.slots.abort("bash");
  }

  // ---------------------------------------------------------------- compaction and navigation

  /**
   * Compacts the current path now (stopping a running prompt first). Resolves with
   * `{kind: "cancelled"}` when stopped or cancelled by an extension; rejects with AgentError when
   * there is nothing to compact or the model fails. Nothing is written unless it completes.
   */
  async compact(customInstructions?: string, options: { signal?: AbortSignal } = {}): Promise<CompactOutcome> {
    this.assertOpen();
    this.assertWritable();
    this.requireModel();
    if (this.slots.isBusy("run")) {
      this.slots.abort("run");
      await this.slots.whenFree("run");
    }
    return this.exclusive(options.signal, (signal) => this.compactor.run("manual", signal, customInstructions));
  }

  /**
   * Moves to another entry of the tree with Pi's semantics (see tree-navigation), optionally
   * summarizing the branch being left. Resolves `{cancelled: true}` when cancelled or stopped.
   */
  async navigateTree(targetId: string, options: NavigateTreeOptions = {}): Promise<NavigateTreeResult> {
    this.assertOpen();
    return this.exclusive(options.signal, (signal) =>
      navigateTree(
        {
          sessionManager: this.sessionManager,
          provider: this.selection.provider(),
          model: this.selection.model,
          reserveTokens: this.settings.reserveTokens,
          hooks: this.options.hooks,
          signal,
          emit: (event) => this.emit(event),
        },
        targetId,
        options,
      ),
    );
  }

  // ---------------------------------------------------------------- entries for extensions

  /** Appends a `custom` entry (extension state; never reaches the model). */
  appendCustomEntry(customType: string, data?: unknown): string {
    this.assertOpen();
    this.assertWritable();
    return this.sessionManager.appendCustomEntry(customType, data);
  }

  /** Appends a `custom_message` (reaches the model as a user message); waits for a running prompt to finish. */
  sendCustomMessage(message: Pick<CustomMessage, "customType" | "content"> & { display?: boolean; details?: unknown }): Promise<string> {
    this.assertOpen();
    this.assertWritable();
    return this.slots.appendWhenIdle(() =>
      this.sessionManager.appendCustomMessageEntry(message.customType, message.content, message.display ?? true, message.details),
    );
  }

  /** Labels an entry (undefined or "" clears the label). */
  setLabel(entryId: string, label: string | undefined): string {
    this.assertOpen();
    this.assertWritable();
    if (!this.sessionManager.hasEntry(entryId)) throw new AgentError("unknown-entry", `There is no entry ${entryId} in this session.`);
    return this.sessionManager.appendLabelChange(entryId, label);
  }

  /** Names the session ("" clears the name). */
  setSessionName(name: string): string {
    this.assertOpen();
    this.assertWritable();
    return this.sessionManager.appendSessionInfo(name);
  }

  /** Entries of the current path, root first. */
  getBranch(): SessionEntry[] {
    return this.sessionManager.getBranch();
  }

  // ---------------------------------------------------------------- plumbing

  private async exclusive<T>(external: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.slots.isBusy("run")) throw new AgentError("busy", "The agent is busy; wait for it or stop it first.");
    const slot = this.slots.occupy("run", external);
    try {
      return await work(slot.signal);
    } finally {
      slot.release();
    }
  }

  private requireModel(): { provider: ModelProvider; model: ModelInfo } {
    const model = this.selection.model;
    const provider = this.selection.provider();
    if (!model || !provider) throw new AgentError("no-model", NO_MODEL_MESSAGE);
    return { provider, model };
  }

  private assertOpen(): void {
    if (this.disposed) throw new AgentError("disposed", DISPOSED_MESSAGE);
  }

  private assertWritable(): void {
    if (this.isReadOnly()) throw new AgentError("read-only", readOnlyMessage(this.sessionManager.getReadOnlyReason()));
  }

  private emit(event: AgentSessionEvent): void {
    if (!this.disposed) this.events.fire(event);
  }

  /**
   * Stops whatever runs, waits for it to settle (so a stopped reply is still recorded), writes the
   * held-back appends, then disposes. The session manager is left open: its owner closes it.
   */
  async close(): Promise<void> {
    if (this.disposed) return;
    this.abort();
    await this.slots.whenFree("run");
    await this.slots.whenFree("bash");
    this.slots.flushDeferred();
    this.finishDispose();
  }

  /** Synchronous dispose: stops what runs; held-back appends are written as the work settles. */
  dispose(): void {
    if (this.disposed) return;
    this.abort();
    this.finishDispose();
  }

  private finishDispose(): void {
    this.emit({ type: "disposed" });
    this.disposed = true;
    this.subscriptions.dispose();
    this.events.dispose();
  }
}
