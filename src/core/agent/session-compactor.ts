import type { CompactionSettings } from "../compaction/tokens";
import type { SessionManager } from "../session/session-manager";
import type { AssistantMessage } from "../session/types";
import { crossesThreshold } from "./auto-compaction";
import { runCompaction, type CompactionRunOutcome } from "./compaction-runner";
import type { AgentSessionEvent, CompactionReason } from "./events";
import type { AgentSessionHooks } from "./hooks";
import { sameModel, type ModelSelection } from "./model-selection";
import type { ModelInfo, ModelProvider } from "./providers/provider";

export interface SessionCompactorDeps {
  sessionManager: SessionManager;
  selection: ModelSelection;
  settings: CompactionSettings;
  hooks?: AgentSessionHooks;
  /** Throws AgentError("no-model") when there is none. */
  requireModel(): { provider: ModelProvider; model: ModelInfo };
  emit(event: AgentSessionEvent): void;
}

/**
 * Runs compactions for one agent session with their start / progress / end events: manual ones
 * (errors go to the caller) and automatic ones (errors become events, so a prompt never fails
 * because its compaction did).
 */
export class SessionCompactor {
  constructor(private readonly deps: SessionCompactorDeps) {}

  /** One compaction; rejects with AgentError when there is nothing to compact or the model fails. */
  async run(reason: CompactionReason, signal: AbortSignal, customInstructions?: string, willRetry = false): Promise<CompactionRunOutcome> {
    const { provider, model } = this.deps.requireModel();
    const emit = this.deps.emit;
    emit({ type: "compaction_start", reason });
    try {
      const outcome = await runCompaction({
        sessionManager: this.deps.sessionManager,
        provider,
        model,
        thinkingLevel: this.deps.selection.thinkingLevel,
        settings: this.deps.settings,
        customInstructions,
        signal,
        hooks: this.deps.hooks,
        onProgress: (phase) => emit({ type: "compaction_progress", reason, phase }),
      });
      const result = outcome.kind === "compacted" ? outcome.result : undefined;
      emit({ type: "compaction_end", reason, result, cancelled: outcome.kind === "cancelled", willRetry: willRetry && result !== undefined });
      return outcome;
    } catch (error) {
      const errorMessage = error instanceof Error ? error.message : String(error);
      emit({ type: "compaction_end", reason, cancelled: false, errorMessage, willRetry: false });
      throw error;
    }
  }

  /** An automatic compaction; returns whether it compacted. */
  async auto(reason: Exclude<CompactionReason, "manual">, signal: AbortSignal): Promise<boolean> {
    if (!this.deps.settings.enabled || signal.aborted) return false;
    try {
      return (await this.run(reason, signal, undefined, reason === "overflow")).kind === "compacted";
    } catch (error) {
      this.deps.emit({ type: "error", error: error instanceof Error ? error : new Error(String(error)) });
      return false;
    }
  }

  /** Compacts when `last` (a reply of the current model) shows the context crossed the threshold. */
  async ifOverThreshold(last: AssistantMessage | undefined, signal: AbortSignal): Promise<void> {
    const model = this.deps.selection.model;
    if (!last || !model || !sameModel(model, { provider: last.provider, id: last.model })) return;
    const sm = this.deps.sessionManager;
    const crossed = crossesThreshold({
      lastAssistant: last,
      // All the check reads of the path is its latest compaction: on a long session the whole
      // path is tens of thousands of entries, read after every reply.
      path: sm.getBranchSinceCompaction(),
      contextMessages: sm.buildSessionContext().messages,
      contextWindow: model.contextWindow,
      settings: this.deps.settings,
    });
    if (crossed) await this.auto("threshold", signal);
  }
}
