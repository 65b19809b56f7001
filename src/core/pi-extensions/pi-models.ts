/**
 * Models as Pi extensions see them (`ctx.model`, `ctx.modelRegistry`, `pi.setModel`): pi-ai's
 * Model objects. Where the window's model registry is known its own objects are used; otherwise one
 * is described from what the agent session knows.
 */
import type { ModelInfo } from "../agent/providers/provider";

/** pi-ai's Model shape (the fields extensions read). */
export interface PiModelLike {
  id: string;
  name: string;
  api: string;
  provider: string;
  baseUrl: string;
  reasoning: boolean;
  input: ("text" | "image")[];
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow: number;
  maxTokens: number;
  [key: string]: unknown;
}

/** What the window offers extensions about models (Arbor's model registry and credentials). */
export interface ModelAccess {
  find(provider: string, modelId: string): PiModelLike | undefined;
  getAll(): readonly PiModelLike[];
  /** Models with credentials. */
  getAvailable?(): readonly PiModelLike[];
  getApiKeyAndHeaders?(model: PiModelLike): Promise<{ ok: true; apiKey?: string; headers?: Record<string, string> } | { ok: false; error: string }>;
  /** Arbor's description of a model, from the same source the window's sessions use. */
  describe?(provider: string, modelId: string): ModelInfo | undefined;
  /** Whether calls to the model would carry credentials (`pi.setModel` returns false otherwise, as in Pi). */
  isAvailable?(provider: string, modelId: string): boolean;
  /** `pi.setModel` chose a model: it becomes the default for new sessions, as in Pi. */
  selected?(provider: string, modelId: string): void;
}

export function toPiModel(info: ModelInfo, access?: ModelAccess): PiModelLike {
  const known = access?.find(info.provider, info.id);
  if (known) return known;
  return {
    id: info.id,
    name: info.name,
    api: info.api ?? "",
    provider: info.provider,
    baseUrl: "",
    reasoning: info.supportsThinking === true,
    input: info.supportsImages === false ? ["text"] : ["text", "image"],
    cost: info.pricing ? { ...info.pricing } : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: info.contextWindow,
    maxTokens: info.maxOutputTokens ?? 0,
  };
}

export function fromPiModel(model: PiModelLike): ModelInfo {
  return {
    provider: model.provider,
    id: model.id,
    name: model.name || model.id,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxTokens > 0 ? model.maxTokens : undefined,
    supportsThinking: model.reasoning,
    supportsImages: Array.isArray(model.input) ? model.input.includes("image") : undefined,
    pricing: model.cost ? { ...model.cost } : undefined,
    api: model.api,
  };
}

/** `ctx.modelRegistry`: read access (and credentials when the window provides them). */
export function modelRegistryView(access: ModelAccess | undefined, sessionModels: () => PiModelLike[]): Record<string, unknown> {
  const all = (): readonly PiModelLike[] => access?.getAll() ?? sessionModels();
  return Object.freeze({
    find: (provider: string, modelId: string) => access?.find(provider, modelId) ?? sessionModels().find((m) => m.provider === provider && m.id === modelId),
    getAll: () => [...all()],
    getAvailable: () => [...(access?.getAvailable?.() ?? sessionModels())],
    getApiKeyAndHeaders: async (model: PiModelLike) =>
      access?.getApiKeyAndHeaders ? access.getApiKeyAndHeaders(model) : { ok: false as const, error: `Arbor has no credentials for provider "${model.provider}" to hand to extensions.` },
    getApiKey: async (model: PiModelLike) => {
      const auth = access?.getApiKeyAndHeaders ? await access.getApiKeyAndHeaders(model) : undefined;
      return auth?.ok ? auth.apiKey : undefined;
    },
  });
}
