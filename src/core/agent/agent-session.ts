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
  AgentMessage,
  StoredMessage,
} from "../session/types";
import { DisposableStore, type Disposable } from "../util/disposable";
import { Emitter } from "../util/emitter";
import { recordQueued, recordRunMessage, runTurnLoop } from "./agent-loop";
import { AutoRetry } from "./auto-retry";
import { runBashCommand, type BashRunResult } from "./bash-command";
import { lastAssistantOf, measureContextUsage, type ContextUsage } from "./auto-compaction";
import type { CompactionRunOutcome } from "./compaction-runner";
import { AgentError, NO_MODEL_MESSAGE, readOnlyMessage, SHELL_DISABLED_MESSAGE } from "./errors";
import { eventForSessionChange, type AgentSessionEvent } from "./events";
import type { InputSource, SystemPromptOptions } from "./hook-events";
import type { AgentSessionHooks } from "./hooks";
import { MessageQueue, resolveQueueModes, type QueuedMessage, type QueuedMessageInfo, type QueueModes, type WithdrawnMessage } from "./message-queue";
import { ModelSelection, type ModelSource } from "./model-selection";
import { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "./output/output-limits";
import type { ModelInfo, ModelProvider, ToolDefinition } from "./providers/provider";
import { DEFAULT_RETRY_SETTINGS, type RetryClock, type RetrySettings } from "./retry-policy";
import { RunSlots } from "./run-slots";
import { SessionResources, type ResourceLoad } from "./session-resources";
import { promptImageSettings } from "./prompt-images";
import { skillReadRoots, type LoadedResources } from "../resources";
import { SessionCompactor } from "./session-compactor";
import { buildSystemPrompt, type SystemPromptInput } from "./system-prompt";
import { ToolGuard, type ToolRestrictions } from "./safety/tool-guard";
import type { WorkingFolderState } from "./safety/working-folder";
import { ProcessGroups } from "./shell/process-groups";
import { ToolSet, type ToolPolicy } from "./tool-runner";
import { createCodingTools, type RipgrepLocator } from "./tools";
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
  /**
   * Used when the session names no model, or one whose provider is not configured. A function is
   * asked each time, so a model added while the session is open is used by its next prompt.
   */
  defaultModel?: ModelInfo | (() => ModelInfo | undefined);
  /** Used when the session's path has no thinking-level entry (default "off"). */
  defaultThinkingLevel?: ThinkingLevel;
  /** Default: the built-in tools (read, write, edit, bash, grep, find, ls). */
  tools?: readonly AgentTool[];
  /** Where the built-in `grep` and `find` find ripgrep (default: `rg` on the PATH). */
  ripgrep?: RipgrepLocator;
  /** Disabled tools, approvals (who asks the user, auto-approve, the workspace folders), the command timeout. */
  toolPolicy?: ToolPolicy;
  /** False (untrusted workspaces) makes `!cmd` and the bash tool refuse. Default true. */
  allowShell?: boolean;
  /** False (untrusted workspaces) offers and runs only read-only tools: no writes, no edits. Default true. */
  allowWrites?: boolean;
  /** Why shell or writes are off, in the host's words (see getToolRestrictions). */
  restrictionReason?: string;
  /**
   * Pi's resources of the session's folder (context files, SYSTEM.md, skills, prompt templates),
   * loaded before each prompt. None: the system prompt has no such sections and `/template` is not expanded.
   */
  resources?: ResourceLoad;
  /** Our own prompt by default; a string replaces it, a function builds it per request. */
  systemPrompt?: string | ((input: SystemPromptInput) => string);
  compaction?: Partial<CompactionSettings>;
  outputLimits?: OutputLimits;
  /** Folder for full-output files of capped output (default: the system temp folder). */
  outputDirectory?: string;
  shellPath?: string;
  /** Model calls per prompt before the loop gives up (default 50). */
  maxTurns?: number;
  /**
   * File checkpoints of the session's workspace: asked for before each prompt runs (typed, queued,
   * `!cmd`, an extension's) and before the leaf leaves an entry. A failure never stops the prompt.
   */
  checkpoints?: (sessionManager: SessionManager) => CheckpointRecorder | undefined;
  /**
   * Pi's `retry.*` settings, read at each failure. Absent: no automatic retries (the extension
   * always passes Pi's settings, whose defaults retry).
   */
  retrySettings?: () => RetrySettings;
  /** Test seam: the clock retries wait on. */
  retryClock?: RetryClock;
  /**
   * The host's own `steeringMode` / `followUpMode` where the user set them, read at each delivery;
   * what it leaves unset comes from Pi's settings.json, else Pi's default ("one-at-a-time").
   */
  queueModes?: () => Partial<QueueModes>;
}

/** Takes a checkpoint of the workspace and records it in the session (see SessionCheckpoints). */
export interface CheckpointRecorder {
  record(moment: "prompt" | "leave"): Promise<unknown>;
}

export interface AgentSessionOptions extends AgentSessionConfig {
  sessionManager: SessionManager;
  hooks?: AgentSessionHooks;
}

/**
 * What `prompt` did: a model reply (the last of the run), a shell command for `!cmd`, a prompt an
 * extension handled itself (`input` answered "handled"), or a prompt queued into the running reply.
 */
export type PromptResult =
  | { kind: "reply"; message: AssistantMessage }
  | ({ kind: "bash" } & BashRunResult)
  | { kind: "handled" }
  | { kind: "queued"; entryId: string }
  /** A queued prompt taken back before it was delivered (`withdrawQueued`). */
  | { kind: "withdrawn" };

/** Tokens kept free for a branch summary's reply when no settings.json says (Pi's default). */
export const DEFAULT_BRANCH_SUMMARY_RESERVE = 16_384;

/** Options of `prompt`. */
export interface PromptOptions {
  signal?: AbortSignal;
  images?: ImageContent[];
  /** Who sent it (extensions see it in `input`); default "interactive". */
  source?: InputSource;
  /** While a reply runs: queue the prompt into it (without this, a second prompt is refused as busy). */
  streamingBehavior?: "steer" | "followUp";
}

/** Options of `sendCustomMessage` (Pi's sendMessage options). */
export interface SendCustomMessageOptions {
  triggerTurn?: boolean;
  deliverAs?: "steer" | "followUp" | "nextTurn";
}

/** What `compact` did. */
export type CompactOutcome = CompactionRunOutcome;

const NO_RETRIES: RetrySettings = { ...DEFAULT_RETRY_SETTINGS, enabled: false };

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
  private readonly guard: ToolGuard;
  private toolPolicy: ToolPolicy;
  /** The process groups of this session's commands; none outlives the session. */
  private readonly processGroups = new ProcessGroups();
  private readonly allowShell: boolean;
  private readonly settings: CompactionSettings;
  private readonly limits: OutputLimits;
  private readonly slots = new RunSlots();
  private readonly compactor: SessionCompactor;
  private readonly queue = new MessageQueue(
    () => this.getQueueModes(),
    () => this.emit({ type: "queue_changed", queued: this.queue.list() }),
  );
  private readonly retry: AutoRetry;
  /** An agent run (not a compaction or summary) is going: messages sent now are steered into it. */
  private running = false;
  private disposed = false;
  private readonly resources: SessionResources;
  private readonly checkpoints: CheckpointRecorder | undefined;

  constructor(private readonly options: AgentSessionOptions) {
    this.sessionManager = options.sessionManager;
    this.resources = new SessionResources(options.resources, () => this.sessionManager.getCwd());
    this.allowShell = options.allowShell ?? true;
    this.toolPolicy = options.toolPolicy ?? {};
    this.checkpoints = options.checkpoints?.(this.sessionManager);
    this.guard = new ToolGuard({
      session: this.sessionManager,
      policy: () => this.toolPolicy,
      readableRoots: () => this.getSkillReadRoots(),
      allowShell: this.allowShell,
      allowWrites: options.allowWrites ?? true,
      restrictionReason: options.restrictionReason,
      emit: (event) => this.emit(event),
    });
    this.tools = new ToolSet(options.tools ?? createCodingTools({ shellPath: options.shellPath, ripgrep: options.ripgrep, commandPrefix: () => this.shellCommandPrefix() }), this.guard, () => this.toolPolicy, options.ripgrep);
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
    this.retry = new AutoRetry({
      settings: options.retrySettings ?? (() => NO_RETRIES),
      clock: options.retryClock,
      emit: (event) => this.emit(event),
    });
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
  /** Nothing runs: no prompt, compaction or summary (Pi's isIdle). */
  isIdle(): boolean {
    return !this.slots.isBusy("run");
  }
  /** Resolves once nothing runs (also when a new run started while waiting and has ended too). */
  async waitForIdle(): Promise<void> {
    while (this.slots.isBusy("run")) await this.slots.whenFree("run");
  }
  /** The abort signal of the running prompt, compaction or summary (undefined when idle). */
  getSignal(): AbortSignal | undefined {
    return this.slots.signal("run");
  }
  /** Messages are waiting for the running reply. */
  hasPendingMessages(): boolean {
    return this.queue.has("steer") || this.queue.has("followUp");
  }
  /** An agent run is going (Pi's isStreaming): a prompt sent with `streamingBehavior` now is queued into it. */
  isStreaming(): boolean {
    return this.running;
  }
  /** The user's prompts queued into the running reply, steering first (see `queue_changed`). */
  getQueuedMessages(): QueuedMessageInfo[] {
    return this.queue.list();
  }
  /** Takes one queued prompt (by id) or all of them back before delivery; their `prompt` calls resolve "withdrawn". */
  withdrawQueued(id?: string): WithdrawnMessage[] {
    return this.queue.withdraw(id);
  }
  /** How many queued messages each delivery takes (the host's settings, else Pi's, else one at a time). */
  getQueueModes(): QueueModes {
    return resolveQueueModes(this.options.queueModes?.(), this.resources.current().settings.view);
  }
  /** Pi's `shellCommandPrefix` (settings.json, the project's over the user's), read at each command. */
  private shellCommandPrefix(): string | undefined {
    return this.resources.current().settings.view.shellCommandPrefix || undefined;
  }
  /** Whether shell commands may run here (false in an untrusted workspace). */
  isShellAllowed(): boolean {
    return this.allowShell;
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
    this.toolPolicy = policy;
  }
  /**
   * What the agent may do here and why not (Restricted Mode, a session without a usable folder, a
   * folder outside the workspace that will be asked about), for the chat to say.
   */
  getToolRestrictions(): ToolRestrictions {
    return this.guard.restrictions();
  }
  /** The session's working folder as the safety rules see it: usable, outside the workspace, or unusable. */
  getWorkingFolder(): WorkingFolderState {
    return this.guard.folder();
  }
  /**
   * Asks, once per session, whether anything may run in the session's folder when it lies outside
   * the open workspace (the same question its tools get; undefined when it may, else why not). Its
   * project extensions (`extensions`, named in the question) and `pi.exec` wait for it.
   */
  async admitWorkingFolder(signal: AbortSignal = new AbortController().signal, extensions?: readonly string[]): Promise<string | undefined> {
    const refusal = await this.guard.admitFolder(signal, extensions);
    return refusal === undefined ? undefined : refusal.cancelled ? "Stopped before the folder was allowed." : refusal.text;
  }
  /** Tools registered by extensions (offered with the built-ins; a same-named one replaces a built-in). */
  setExtensionTools(tools: readonly AgentTool[]): void {
    this.tools.setExtensionTools(tools);
  }
  /** Restricts the tools offered to these names (undefined: all). */
  setActiveTools(names: readonly string[] | undefined): void {
    this.tools.setActiveTools(names);
  }
  /** Every tool, offered or not. */
  getAllTools(): AgentTool[] {
    return this.tools.allTools();
  }
  /**
   * Pi's resources as the last prompt found them (context files, skills, templates, Pi's settings);
   * `refresh` reads them again now.
   */
  getResources(options: { refresh?: boolean } = {}): LoadedResources {
    return options.refresh ? this.resources.refresh() : this.resources.current();
  }
  /**
   * The folders of the loaded skills: the read tool may read there without asking, although they lie
   * outside the session's folder (a skill's instructions name files beside it).
   */
  getSkillReadRoots(): string[] {
    return skillReadRoots(this.resources.current());
  }
  /** The system prompt the next model call would get. */
  getSystemPrompt(): string {
    return this.systemPromptFor(this.tools.definitions());
  }
  /** How full the model's context window is, for a status display. */
  getContextUsage(): ContextUsage | undefined {
    const model = this.selection.model;
    if (!model) return undefined;
    // The path from its latest compaction on is all the measure reads of it: on a long session the
    // whole path is tens of thousands of entries, and this runs on every move of the leaf.
    return measureContextUsage(this.sessionManager.getBranchSinceCompaction(), this.sessionManager.buildSessionContext().messages, model.contextWindow);
  }

  /**
   * Selects a model. A `model_change` entry is appended only when the model differs from what the
   * current path already resolves to (and the session is writable). Returns whether it changed.
   */
  setModel(model: ModelInfo): boolean {
    this.assertOpen();
    const levelBefore = this.selection.thinkingLevel;
    const previous = this.selection.model;
    let changed: boolean;
    try {
      changed = this.selection.setModel(model);
    } catch (error) {
      throw new AgentError("no-model", (error as Error).message);
    }
    if (changed) this.emit({ type: "model_changed", model });
    // The level is clamped to what the new model takes.
    if (this.selection.thinkingLevel !== levelBefore) {
      this.emit({ type: "thinking_level_changed", level: this.selection.thinkingLevel });
      this.options.hooks?.notify?.({ type: "thinking_level_select", level: this.selection.thinkingLevel, previousLevel: levelBefore });
    }
    // As in Pi: a clamped thinking level first, then the model.
    if (changed) this.options.hooks?.notify?.({ type: "model_select", model, previousModel: previous, source: "set" });
    return changed;
  }

  /**
   * Sets the thinking level, clamped to what the model takes (`getThinkingLevel()` says which level
   * it became); appends a `thinking_level_change` only when the path's level differs.
   */
  setThinkingLevel(level: ThinkingLevel): boolean {
    this.assertOpen();
    const previousLevel = this.selection.thinkingLevel;
    const changed = this.selection.setThinkingLevel(level);
    if (changed) {
      this.emit({ type: "thinking_level_changed", level: this.selection.thinkingLevel });
      this.options.hooks?.notify?.({ type: "thinking_level_select", level: this.selection.thinkingLevel, previousLevel });
    }
    return changed;
  }

  /** Why the session's own model was not restored (no key, not configured), when it was not. */
  getModelNotice(): string | undefined {
    return this.selection.fallbackNotice;
  }

  // ---------------------------------------------------------------- prompting

  /**
   * Sends a prompt and runs the agent loop until the model stops; `!cmd` and `!!cmd` run a shell
   * command instead. Extensions see it first (`input`: transform or handle it) and may add to it
   * (`before_agent_start`). Stopping (`signal` or `abort()`) ends the reply with stopReason
   * "aborted", keeping what streamed. Rejects with AgentError when the session is read-only, busy
   * (unless `streamingBehavior` queues it into the running reply) or has no model.
   */
  async prompt(text: string, options: PromptOptions = {}): Promise<PromptResult> {
    this.assertOpen();
    if (text.startsWith("!")) {
      const excludeFromContext = text.startsWith("!!");
      const result = await this.runBash(text.slice(excludeFromContext ? 2 : 1), { excludeFromContext, signal: options.signal });
      return { kind: "bash", ...result };
    }
    let images = options.images;
    const hooks = this.options.hooks;
    if (hooks?.input) {
      const answer = await hooks.input({ type: "input", text, images, source: options.source ?? "interactive" });
      if (answer?.action === "handled") return { kind: "handled" };
      if (answer?.action === "transform") ({ text, images } = { text: answer.text, images: answer.images ?? images });
    }
    // As in Pi: extensions see the text as typed; the model gets `/skill:` and `/template` expanded
    // (not in a message an extension sends: Pi sends those as they are).
    this.resources.refresh();
    if (options.source !== "extension") text = this.resources.expand(text);
    this.assertWritable();
    const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...(images ?? [])];
    // Busy with a reply, or a compaction or summary: queued (what a run does not take starts one once it ends, see exclusive).
    if (options.streamingBehavior && this.slots.isBusy("run")) {
      const user: UserMessage = { role: "user", content, timestamp: Date.now() };
      const outcome = await this.queue.enqueue(options.streamingBehavior, user);
      return "withdrawn" in outcome ? { kind: "withdrawn" } : { kind: "queued", entryId: outcome.entryId };
    }
    this.requireModel();
    return this.exclusive(options.signal, async (signal) => {
      let last: AssistantMessage | undefined;
      this.emit({ type: "run_start" });
      try {
        await this.compactor.ifOverThreshold(lastAssistantOf(this.sessionManager.buildSessionContext().messages), signal);
        this.selection.record();
        const user: UserMessage = { role: "user", content, timestamp: Date.now() };
        let systemPrompt: string | undefined;
        const injected: StoredMessage[] = [];
        if (hooks?.beforeAgentStart) {
          const base = this.getSystemPrompt();
          const answer = await hooks.beforeAgentStart({ type: "before_agent_start", prompt: text, images, systemPrompt: base, systemPromptOptions: this.systemPromptOptions() });
          if (answer?.systemPrompt !== undefined && answer.systemPrompt !== base) systemPrompt = answer.systemPrompt;
          for (const m of (answer as { messages?: { customType: string; content: CustomMessage["content"]; display?: boolean; details?: unknown }[] } | undefined)?.messages ?? []) {
            injected.push({ role: "custom", customType: m.customType, content: m.content, display: m.display as boolean, details: m.details, timestamp: Date.now() });
          }
        }
        await this.checkpoint("prompt");
        last = await this.runAgent(signal, [user], injected, systemPrompt);
        if (!signal.aborted) await this.compactor.ifOverThreshold(last, signal);
        return { kind: "reply", message: last };
      } finally {
        this.emit({ type: "run_end", lastAssistant: last });
      }
    });
  }

  /**
   * One agent run (Pi's agent.prompt): agent_start, turn_start, the opening messages (with the
   * messages held for the next turn), the turn loop, agent_end. Messages still queued when it ends
   * (stopped or failed) are recorded then.
   */
  private async runAgent(signal: AbortSignal, opening: StoredMessage[], injected: StoredMessage[], systemPrompt: string | undefined, queuedOpening: QueuedMessage[] = []): Promise<AssistantMessage> {
    const { provider, model } = this.requireModel();
    const hooks = this.options.hooks;
    const added: AgentMessage[] = [];
    const recorder = { sessionManager: this.sessionManager, hooks, emit: (event: AgentSessionEvent) => this.emit(event), added, beforeQueued: () => this.checkpoint("prompt") };
    this.running = true;
    this.guard.beginRun();
    try {
      hooks?.notify?.({ type: "agent_start" });
      hooks?.notify?.({ type: "turn_start", turnIndex: 0, timestamp: Date.now() });
      const nextTurn = this.queue.take("nextTurn");
      for (const message of opening) {
        if (message.role === "user") this.emit({ type: "message_start", message });
        added.push((await recordRunMessage(recorder, message)).message);
      }
      await recordQueued(queuedOpening, recorder);
      await recordQueued(nextTurn, recorder);
      for (const message of injected) added.push((await recordRunMessage(recorder, message)).message);
      return await runTurnLoop({
        ...recorder,
        provider,
        model,
        thinkingLevel: this.selection.thinkingLevel,
        tools: this.tools,
        systemPrompt: (tools) => systemPrompt ?? this.systemPromptFor(tools),
        signal,
        limits: this.limits,
        allowShell: this.allowShell,
        outputDirectory: this.options.outputDirectory,
        processGroups: this.processGroups,
        maxTurns: this.options.maxTurns ?? 50,
        queue: this.queue,
        recoverFromOverflow: () => this.compactor.auto("overflow", signal),
        retry: this.retry,
        blockImages: () => promptImageSettings(this.resources.current().settings.merged.images).blockImages,
      });
    } finally {
      this.running = false;
      await this.recordLeftovers(recorder);
      hooks?.notify?.({ type: "agent_end", messages: added });
    }
  }

  /** Messages the run did not take (it stopped or failed) are recorded after it, never lost. */
  private async recordLeftovers(recorder: Parameters<typeof recordQueued>[1]): Promise<void> {
    const left: QueuedMessage[] = [...this.queue.takeAll("steer"), ...this.queue.takeAll("followUp")];
    if (left.length > 0) await recordQueued(left, recorder);
  }

  /** What the system prompt was built from (extensions see it in `before_agent_start`). */
  private systemPromptOptions(): SystemPromptOptions {
    const offered = this.tools.offeredTools();
    const toolSnippets: Record<string, string> = {};
    for (const tool of offered) toolSnippets[tool.definition.name] = tool.promptSnippet ?? tool.definition.description;
    return {
      cwd: this.sessionManager.getCwd(),
      selectedTools: offered.map((t) => t.definition.name),
      toolSnippets,
      promptGuidelines: offered.flatMap((t) => t.promptGuidelines ?? []),
      contextFiles: this.resources.promptInput().contextFiles?.map((f) => ({ ...f })) ?? [],
      skills: this.resources.optionSkills(),
      customPrompt: typeof this.options.systemPrompt === "string" ? this.options.systemPrompt : this.resources.current().systemPrompt?.content,
      appendSystemPrompt: this.resources.current().appendSystemPrompt?.content,
    };
  }

  private systemPromptFor(tools: readonly ToolDefinition[]): string {
    const custom = this.options.systemPrompt;
    if (typeof custom === "string") return custom;
    // As in Pi, an extension's tool is listed only with its promptSnippet (it is offered either way).
    const offered = new Map(this.tools.offeredTools().map((t) => [t.definition.name, t]));
    const listed = tools.flatMap((d) => {
      const tool = offered.get(d.name);
      if (!tool?.source || tool.source === "builtin") return [d];
      return tool.promptSnippet ? [{ ...d, description: tool.promptSnippet }] : [];
    });
    // Each guideline once, as in Pi (two tools of one extension often share one).
    const guidelines = [...new Set(tools.flatMap((d) => offered.get(d.name)?.promptGuidelines ?? []))];
    const input: SystemPromptInput = { cwd: this.sessionManager.getCwd(), tools: listed, guidelines, ...this.resources.promptInput() };
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
      const refusal = await this.guard.admitFolder(slot.signal);
      if (refusal) {
        const folder = this.guard.folder();
        if (folder.kind === "invalid") throw new AgentError("no-working-folder", folder.message);
        throw new AgentError("denied", refusal.cancelled ? "The command was stopped before it ran." : refusal.text);
      }
      const override = await this.options.hooks?.userBash?.({
        type: "user_bash",
        command: trimmed,
        excludeFromContext: options.excludeFromContext === true,
        cwd: this.sessionManager.getCwd(),
      });
      await this.checkpoint("prompt");
      return await runBashCommand({
        override,
        sessionManager: this.sessionManager,
        command: trimmed,
        excludeFromContext: options.excludeFromContext === true,
        signal: slot.signal,
        limits: this.limits,
        outputDirectory: this.options.outputDirectory,
        shellPath: this.options.shellPath,
        commandPrefix: this.shellCommandPrefix(),
        processGroups: this.processGroups,
        slots: this.slots,
        emit: (event) => this.emit(event),
      });
    } finally {
      slot.release();
    }
  }

  /**
   * Stops the running prompt, compaction or summary, and any shell command (its whole process
   * group). Processes that earlier commands left in the background keep running until the session ends.
   */
  abort(): void {
    this.slots.abort();
  }

  /** Cancels the wait before an automatic retry (the reply ends with its error); the run stops. */
  abortRetry(): void {
    this.retry.cancelWait();
  }

  /** An automatic retry is waiting to send the call again. */
  isRetrying(): boolean {
    return this.retry.isWaiting();
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
    return this.exclusive(options.signal, async (signal) => {
      if (targetId !== this.sessionManager.getLeafId()) await this.checkpoint("leave");
      return navigateTree(
        {
          sessionManager: this.sessionManager,
          provider: this.selection.provider(),
          model: this.selection.model,
          // Pi's branchSummary.reserveTokens (its own, not compaction's), 16,384 as in Pi.
          reserveTokens: this.resources.current().settings.view.branchSummary.reserveTokens ?? DEFAULT_BRANCH_SUMMARY_RESERVE,
          hooks: this.options.hooks,
          signal,
          emit: (event) => this.emit(event),
        },
        targetId,
        options,
      );
    });
  }

  // ---------------------------------------------------------------- entries for extensions

  /** Appends a `custom` entry (extension state; never reaches the model). */
  appendCustomEntry(customType: string, data?: unknown): string {
    this.assertOpen();
    this.assertWritable();
    return this.sessionManager.appendCustomEntry(customType, data);
  }

  /**
   * Records a `custom_message` (it reaches the model as a user message), delivered as Pi delivers
   * it: while a reply runs it is steered into it ("steer", the default: after the running turn's
   * tool calls) or answered once the model would stop ("followUp"); "nextTurn" holds it for the
   * next prompt. When idle, `triggerTurn` has the model answer it now; else it is just recorded.
   * `display` is recorded as given. Resolves with the entry id once recorded (after the turn, with
   * `triggerTurn`).
   */
  async sendCustomMessage(
    message: Pick<CustomMessage, "customType" | "content"> & { display?: boolean; details?: unknown },
    options: SendCustomMessageOptions = {},
  ): Promise<string> {
    this.assertOpen();
    this.assertWritable();
    const custom: CustomMessage = { role: "custom", customType: message.customType, content: message.content, display: message.display as boolean, timestamp: Date.now() };
    if (message.details !== undefined) custom.details = message.details;
    // A custom message is never listed, so never taken back: it resolves with its entry.
    const queued = async (kind: "steer" | "followUp" | "nextTurn"): Promise<string> => {
      const outcome = await this.queue.enqueue(kind, custom);
      return "entryId" in outcome ? outcome.entryId : "";
    };
    if (options.deliverAs === "nextTurn") return queued("nextTurn");
    if (this.running) return queued(options.deliverAs === "followUp" ? "followUp" : "steer");
    // A compaction or branch summary is running: the message waits for it.
    if (this.slots.isBusy("run")) return this.slots.appendWhenIdle(() => this.appendCustom(custom));
    if (!options.triggerTurn) return this.appendCustom(custom);
    this.requireModel();
    let entryId: string | undefined;
    const sub = this.onEvent((event) => {
      if (event.type === "message_end" && event.message === custom) entryId = event.entryId;
    });
    try {
      await this.exclusive(undefined, async (signal) => {
        let last: AssistantMessage | undefined;
        this.emit({ type: "run_start" });
        try {
          await this.checkpoint("prompt");
          last = await this.runAgent(signal, [custom], [], undefined);
        } finally {
          this.emit({ type: "run_end", lastAssistant: last });
        }
      });
    } finally {
      sub.dispose();
    }
    return entryId ?? this.sessionManager.getLeafId() ?? "";
  }

  private appendCustom(custom: CustomMessage): string {
    const entryId = this.sessionManager.appendCustomMessageEntry(custom.customType, custom.content, custom.display, custom.details);
    this.emit({ type: "message_end", message: custom, entryId });
    return entryId;
  }

  /**
   * Sends a user prompt on an extension's behalf (Pi's sendUserMessage): like a typed prompt with
   * source "extension"; while a reply runs, `deliverAs` queues it (without it, that is refused).
   */
  async sendUserMessage(content: string | (TextContent | ImageContent)[], options: { deliverAs?: "steer" | "followUp" } = {}): Promise<PromptResult> {
    const text = typeof content === "string" ? content : content.filter((b): b is TextContent => b.type === "text").map((b) => b.text).join("\n");
    const images = typeof content === "string" ? undefined : content.filter((b): b is ImageContent => b.type === "image");
    if (this.running && !options.deliverAs) throw new AgentError("busy", "The agent is answering; send the message with deliverAs \"steer\" or \"followUp\" to queue it.");
    return this.prompt(text, { images: images && images.length > 0 ? images : undefined, source: "extension", streamingBehavior: options.deliverAs });
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

  /** A checkpoint of the files; its failure is the checkpoints' own business, never the prompt's. */
  private async checkpoint(moment: "prompt" | "leave"): Promise<void> {
    if (!this.checkpoints || this.isReadOnly()) return;
    await this.checkpoints.record(moment).catch(() => undefined);
  }

  private async exclusive<T>(external: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.slots.isBusy("run")) throw new AgentError("busy", "The agent is busy; wait for it or stop it first.");
    const slot = this.slots.occupy("run", external);
    try {
      return await work(slot.signal);
    } finally {
      slot.release();
      this.startQueuedRun();
    }
  }

  /**
   * Prompts queued while no reply could take them (a compaction or branch summary ran, or the one
   * after a reply) start a run once the session is free, as Pi flushes them: the first delivery
   * opens the run, the rest are delivered by it in their turn.
   */
  private startQueuedRun(): void {
    if (this.disposed || this.slots.isBusy("run") || this.isReadOnly() || !this.selection.model) return;
    const opening = this.queue.has("steer") ? this.queue.take("steer") : this.queue.take("followUp");
    if (opening.length === 0) return;
    void this.exclusive(undefined, async (signal) => {
      let last: AssistantMessage | undefined;
      this.emit({ type: "run_start" });
      try {
        last = await this.runAgent(signal, [], [], undefined, opening);
      } finally {
        this.emit({ type: "run_end", lastAssistant: last });
      }
    }).catch((error: unknown) => this.emit({ type: "error", error: error instanceof Error ? error : new Error(String(error)) }));
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
    // Held for a next prompt that will not come in this session: record them rather than lose them.
    await recordQueued(this.queue.take("nextTurn"), { sessionManager: this.sessionManager, emit: (event) => this.emit(event) });
    this.finishDispose();
  }

  /** Synchronous dispose: stops what runs; held-back appends are written as the work settles. */
  dispose(): void {
    if (this.disposed) return;
    this.abort();
    this.finishDispose();
  }

  private finishDispose(): void {
    // No process of this session outlives it.
    this.processGroups.dispose();
    this.emit({ type: "disposed" });
    this.disposed = true;
    this.subscriptions.dispose();
    this.events.dispose();
  }
}
