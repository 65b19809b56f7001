/** Finding the provider and model info for a model a session names, and the session's current choice. */
import { clampToLevels } from "../models/thinking-levels";
import type { SessionManager } from "../session/session-manager";
import { THINKING_LEVELS, type ModelRef, type ThinkingLevel } from "../session/types";
import { DEFAULT_CONTEXT_WINDOW, type ModelInfo, type ModelProvider } from "./providers/provider";

/** Where models come from: the host's providers, and what it knows about their models. */
export interface ModelSource {
  providers: readonly ModelProvider[];
  /**
   * Looks a provider up by id when it is not in `providers` (hosts whose providers come and go, as a
   * model registry's do when models.json changes).
   */
  resolveProvider?: (providerId: string) => ModelProvider | undefined;
  /** Known details (context window, pricing) of a model; undefined when the host knows nothing. */
  describeModel?: (ref: ModelRef) => ModelInfo | undefined;
  /**
   * Whether a model a session names can be used now (it has credentials). A session whose model is
   * not available starts on the default model instead, as Pi does. Absent: every known model is.
   */
  isAvailable?: (ref: ModelRef) => boolean;
}

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/** The provider with this id, if the host has it. */
export function findProvider(source: ModelSource, providerId: string): ModelProvider | undefined {
  return source.providers.find((provider) => provider.id === providerId) ?? source.resolveProvider?.(providerId);
}

/** A provider that can describe its own models without a network call (the pi-ai one can). */
interface DescribingProvider extends ModelProvider {
  describeModel(modelId: string): ModelInfo | undefined;
}

function canDescribe(provider: ModelProvider): provider is DescribingProvider {
  return typeof (provider as Partial<DescribingProvider>).describeModel === "function";
}

/**
 * The model info for a model a session names, when its provider is available: the host's details,
 * else the provider's own, else defaults. Undefined when no provider with that id is configured.
 */
export function resolveModel(source: ModelSource, ref: ModelRef): ModelInfo | undefined {
  const provider = findProvider(source, ref.provider);
  if (!provider) return undefined;
  const known = source.describeModel?.(ref);
  if (known) return known;
  const described = canDescribe(provider) ? provider.describeModel(ref.modelId) : undefined;
  if (described) return { ...described, provider: ref.provider };
  return { provider: ref.provider, id: ref.modelId, name: ref.modelId, contextWindow: DEFAULT_CONTEXT_WINDOW };
}

/** Whether two model descriptions name the same model. */
export function sameModel(a: { provider: string; id: string } | undefined, b: { provider: string; id: string } | undefined): boolean {
  return a?.provider === b?.provider && a?.id === b?.id;
}

/**
 * The model and thinking level of one agent session: restored from the path when the session
 * opens (falling back to the host's defaults), and written back as `model_change` /
 * `thinking_level_change` entries only where the path does not already say the same.
 *
 * As in Pi: the model named last on the path (a `model_change` or an assistant message) is used when
 * the host has it with credentials, else the default; the level comes from the last
 * `thinking_level_change`, else the default; and the level is always one the model takes.
 */
export class ModelSelection {
  /** The session's own choice (restored or set); undefined means "the host's default, whatever it is now". */
  private chosen: ModelInfo | undefined;
  /** The level asked for; what applies is this clamped to the model (see `thinkingLevel`). */
  private level: ThinkingLevel;
  private fallback: string | undefined;

  constructor(
    private readonly source: ModelSource,
    private readonly sessionManager: SessionManager,
    private readonly defaults: { model?: ModelInfo | (() => ModelInfo | undefined); thinkingLevel?: ThinkingLevel },
  ) {
    const context = sessionManager.buildSessionContext();
    const hasLevel = sessionManager.getPathIds().some((id) => sessionManager.getEntryType(id) === "thinking_level_change");
    this.level = hasLevel && isThinkingLevel(context.thinkingLevel) ? context.thinkingLevel : (defaults.thinkingLevel ?? "off");
    const named = context.model;
    this.chosen = named && (source.isAvailable?.(named) ?? true) ? resolveModel(source, named) : undefined;
    if (named && !this.chosen) {
      const reason = resolveModel(source, named) ? "it has no API key" : "it is not configured here";
      const fallback = this.defaultModel();
      const using = fallback ? ` Using ${fallback.provider}/${fallback.id}.` : "";
      this.fallback = `This session used ${named.provider}/${named.modelId}, which cannot be used (${reason}).${using}`;
    }
  }

  /** The session's model, else the host's default now (a model added later is picked up). */
  get model(): ModelInfo | undefined {
    const chosen = this.chosen;
    // The host's details as they are now: a models.json edited while the session is open (a new
    // context window, say) applies at once.
    if (chosen) return this.source.describeModel?.({ provider: chosen.provider, modelId: chosen.id }) ?? chosen;
    return this.defaultModel();
  }
  /** The level in use: the one asked for, clamped to what the model takes. */
  get thinkingLevel(): ThinkingLevel {
    return clampToLevels(this.model?.thinkingLevels, this.level);
  }
  /** Why the session's own model was not restored, when it was not. */
  get fallbackNotice(): string | undefined {
    return this.fallback;
  }

  /** The provider serving the current model, if configured. */
  provider(): ModelProvider | undefined {
    const model = this.model;
    return model ? findProvider(this.source, model.provider) : undefined;
  }

  /**
   * Selects a model; throws when no provider serves it. Returns whether it changed. The thinking level
   * carries over, clamped to what the new model takes (coming from a model without thinking, the
   * default level is asked for, as in Pi).
   */
  setModel(model: ModelInfo): boolean {
    if (!findProvider(this.source, model.provider)) throw new Error(`No provider "${model.provider}" is configured.`);
    const previous = this.model;
    const changed = !sameModel(previous, model);
    const wanted = previous && previous.supportsThinking === false ? (this.defaults.thinkingLevel ?? this.level) : this.thinkingLevel;
    this.chosen = model;
    this.fallback = undefined;
    this.level = clampToLevels(model.thinkingLevels, wanted);
    this.record();
    return changed;
  }

  /** Sets the level, clamped to what the current model takes. Returns whether the level in use changed. */
  setThinkingLevel(level: ThinkingLevel): boolean {
    if (!isThinkingLevel(level)) throw new Error(`Unknown thinking level: ${String(level)}`);
    const before = this.thinkingLevel;
    this.level = clampToLevels(this.model?.thinkingLevels, level);
    this.record();
    return this.thinkingLevel !== before;
  }

  /** Appends model / thinking-level entries where the current path resolves to something else. */
  record(): void {
    if (this.sessionManager.isReadOnly()) return;
    const context = this.sessionManager.buildSessionContext();
    const model = this.model;
    if (model && (context.model?.provider !== model.provider || context.model.modelId !== model.id)) {
      this.sessionManager.appendModelChange(model.provider, model.id);
    }
    const level = this.thinkingLevel;
    if (context.thinkingLevel !== level) this.sessionManager.appendThinkingLevelChange(level);
  }

  private defaultModel(): ModelInfo | undefined {
    const fallback = this.defaults.model;
    return typeof fallback === "function" ? fallback() : fallback;
  }
}
