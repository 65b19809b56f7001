/**
 * Models that are not in pi-ai's catalog: the defaults Pi gives a model that a models.json
 * provider declares with only an id (a local server, most often), and a plain list of models as a
 * {@link PiModelSource}.
 */

import type { PiModel } from "./pi-ai-modules";
import type { PiModelSource } from "./pi-ai-provider";

/** Pi's defaults for a custom model's unspecified fields. */
export const CUSTOM_MODEL_DEFAULTS = {
  contextWindow: 128_000,
  maxTokens: 16_384,
  input: ["text"] as ("text" | "image")[],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  reasoning: false,
} as const;

/** What a custom model must name; everything else has Pi's defaults. */
export interface CustomModelSpec {
  provider: string;
  id: string;
  api: string;
  baseUrl: string;
  name?: string;
  contextWindow?: number;
  maxTokens?: number;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  compat?: PiModel["compat"];
}

/** A pi-ai model from a spec, with Pi's defaults for what it leaves out. */
export function customModel(spec: CustomModelSpec): PiModel {
  return {
    id: spec.id,
    name: spec.name ?? spec.id,
    api: spec.api,
    provider: spec.provider,
    baseUrl: spec.baseUrl,
    reasoning: spec.reasoning ?? CUSTOM_MODEL_DEFAULTS.reasoning,
    input: [...(spec.input ?? CUSTOM_MODEL_DEFAULTS.input)],
    cost: { ...CUSTOM_MODEL_DEFAULTS.cost },
    contextWindow: spec.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow,
    maxTokens: spec.maxTokens ?? CUSTOM_MODEL_DEFAULTS.maxTokens,
    compat: spec.compat,
  };
}

/** A fixed list of models. */
export class StaticModelSource implements PiModelSource {
  constructor(private readonly models: readonly PiModel[]) {}

  modelsOf(provider: string): readonly PiModel[] {
    return this.models.filter((model) => model.provider === provider);
  }

  find(provider: string, modelId: string): PiModel | undefined {
    return this.models.find((model) => model.provider === provider && model.id === modelId);
  }
}
