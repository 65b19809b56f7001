/**
 * Every pi-ai model Arbor can offer: pi-ai's built-in catalog, changed and extended by Pi's
 * `models.json` in the agent folder (and by Arbor's own file of the same format, where "Add a
 * Model..." writes), the way Pi's model registry builds its list:
 *
 * - built-in models in catalog order; a provider entry with `baseUrl`/`compat` changes all of its
 *   built-in models, and `modelOverrides` change single ones (costs and compat flags merged field by field);
 * - then the models the files define, each replacing a model of the same provider and id or added at
 *   the end, with Pi's defaults for what they leave out;
 * - a file with any problem is ignored as a whole (its error is kept for the user); the rest stays.
 *
 * The registry also keeps what each provider's requests need beyond the model (key, headers) for the
 * credential resolver. It re-reads its files on `refresh()`; `watchModelFiles` calls that on change.
 *
 * Pure core: no `vscode`.
 */

import { readFileSync, statSync } from "node:fs";
import { Emitter } from "../util/emitter";
import { customModel } from "./custom-models";
import { parseModelsJson, type CompatConfig, type ModelOverride, type ModelsConfig, type ProviderConfig } from "./models-json";
import type { PiCatalog, PiModel } from "./pi-ai-modules";
import type { PiModelSource } from "./pi-ai-provider";

/** What one provider's requests carry besides the model: the key config value, headers, `authHeader`. */
export interface ProviderRequestConfig {
  apiKey?: string;
  headers?: Record<string, string>;
  authHeader?: boolean;
}

/** Where a model comes from. */
export type ModelOrigin = "built-in" | "models.json" | "arbor";

/** A models file the registry reads, in order (later files win on the same provider name). */
export interface ModelsFile {
  path: string;
  origin: Exclude<ModelOrigin, "built-in">;
}

/** A models file that could not be used, and why. */
export interface ModelsFileError {
  path: string;
  message: string;
}

export class ModelRegistry implements PiModelSource {
  private models: PiModel[] = [];
  private readonly origins = new Map<string, ModelOrigin>();
  private requestConfigs = new Map<string, ProviderRequestConfig>();
  private modelHeaders = new Map<string, Record<string, string>>();
  private providerNames = new Map<string, string>();
  private errors: ModelsFileError[] = [];
  private readonly changed = new Emitter<void>();
  /** Fires after `refresh()` changed the models or the errors. */
  readonly onDidChange = this.changed.event;
  private signature = "";

  /** `files` are read in order; a file that does not exist is simply not there (no error). */
  constructor(
    private readonly catalog: Pick<PiCatalog, "getProviders" | "getModels">,
    private files: readonly ModelsFile[] = [],
  ) {
    this.load();
  }

  /** Reads the files again; fires `onDidChange` when anything differs. */
  refresh(): void {
    const before = this.signature;
    this.load();
    if (this.signature !== before) this.changed.fire();
  }

  /** Points the registry at other files (the agent folder setting changed) and reloads. */
  setFiles(files: readonly ModelsFile[]): void {
    this.files = files;
    this.refresh();
  }

  getFiles(): readonly ModelsFile[] {
    return this.files;
  }

  /** Every model, built-in ones first. */
  getAll(): readonly PiModel[] {
    return this.models;
  }

  find(provider: string, modelId: string): PiModel | undefined {
    return this.models.find((model) => model.provider === provider && model.id === modelId);
  }

  modelsOf(provider: string): readonly PiModel[] {
    return this.models.filter((model) => model.provider === provider);
  }

  /** Provider ids, in the order their first model appears. */
  getProviders(): string[] {
    return [...new Set(this.models.map((model) => model.provider))];
  }

  /** Where a model was defined (a file's model replacing a built-in one counts as the file's). */
  originOf(model: Pick<PiModel, "provider" | "id">): ModelOrigin {
    return this.origins.get(key(model.provider, model.id)) ?? "built-in";
  }

  /** The display name a file gives a provider (`providers.<id>.name`). */
  providerName(provider: string): string | undefined {
    return this.providerNames.get(provider);
  }

  /** Whether pi-ai's catalog has this provider. */
  isBuiltInProvider(provider: string): boolean {
    return this.catalog.getProviders().includes(provider);
  }

  /** The key config value, headers and `authHeader` the files give a provider. */
  requestConfig(provider: string): ProviderRequestConfig | undefined {
    return this.requestConfigs.get(provider);
  }

  /** Headers the files give one model (values are config values). */
  modelRequestHeaders(provider: string, modelId: string): Record<string, string> | undefined {
    return this.modelHeaders.get(key(provider, modelId));
  }

  /** The files that were ignored, with their reasons. */
  getErrors(): readonly ModelsFileError[] {
    return this.errors;
  }

  dispose(): void {
    this.changed.dispose();
  }

  // -------------------------------------------------------------------------------------------

  private load(): void {
    const builtInProviders = new Set(this.catalog.getProviders());
    const configs: { file: ModelsFile; config: ModelsConfig }[] = [];
    const errors: ModelsFileError[] = [];
    const stamps: string[] = [];
    for (const file of this.files) {
      const text = readIfExists(file.path);
      stamps.push(`${file.path}:${text === undefined ? "-" : text.length}:${text ?? ""}`);
      if (text === undefined) continue;
      const result = parseModelsJson(text, builtInProviders, file.path);
      if (result.ok) configs.push({ file, config: result.config });
      else errors.push({ path: file.path, message: result.error });
    }

    // One view of all providers: a later file's entry for a provider replaces an earlier one's.
    const providers = new Map<string, { config: ProviderConfig; origin: ModelsFile["origin"] }>();
    for (const { file, config } of configs) {
      for (const [name, provider] of Object.entries(config.providers)) providers.set(name, { config: provider, origin: file.origin });
    }

    this.requestConfigs = new Map();
    this.modelHeaders = new Map();
    this.providerNames = new Map();
    this.origins.clear();
    for (const [name, { config }] of providers) {
      if (config.apiKey || config.headers || config.authHeader) {
        this.requestConfigs.set(name, { apiKey: config.apiKey, headers: config.headers, authHeader: config.authHeader });
      }
      if (config.name) this.providerNames.set(name, config.name);
      for (const [modelId, override] of Object.entries(config.modelOverrides ?? {})) this.setModelHeaders(name, modelId, override.headers);
    }

    const models = this.builtInModels(providers);
    for (const [name, { config, origin }] of providers) {
      for (const model of this.definedModels(name, config, builtInProviders)) {
        const index = models.findIndex((m) => m.provider === model.provider && m.id === model.id);
        if (index >= 0) models[index] = model;
        else models.push(model);
        this.origins.set(key(model.provider, model.id), origin);
      }
    }
    this.models = models;
    this.errors = errors;
    this.signature = stamps.join("\n");
  }

  private builtInModels(providers: Map<string, { config: ProviderConfig }>): PiModel[] {
    return this.catalog.getProviders().flatMap((provider) => {
      const config = providers.get(provider)?.config;
      return this.catalog.getModels(provider).map((builtIn) => {
        let model = builtIn;
        if (config && (config.baseUrl || config.compat)) {
          model = { ...model, baseUrl: config.baseUrl ?? model.baseUrl, compat: mergeCompat(model.compat, config.compat) as PiModel["compat"] };
        }
        const override = config?.modelOverrides?.[builtIn.id];
        return override ? applyOverride(model, override) : model;
      });
    });
  }

  private definedModels(name: string, config: ProviderConfig, builtInProviders: ReadonlySet<string>): PiModel[] {
    const definitions = config.models ?? [];
    if (definitions.length === 0) return [];
    // A built-in provider's own endpoint and API, for models that name neither.
    const inherited = builtInProviders.has(name) ? this.catalog.getModels(name)[0] : undefined;
    const out: PiModel[] = [];
    for (const definition of definitions) {
      const api = definition.api ?? config.api ?? inherited?.api;
      const baseUrl = definition.baseUrl ?? config.baseUrl ?? inherited?.baseUrl;
      if (!api || !baseUrl) continue;
      this.setModelHeaders(name, definition.id, definition.headers);
      const model = customModel({
        provider: name,
        id: definition.id,
        api,
        baseUrl,
        name: definition.name,
        reasoning: definition.reasoning,
        input: definition.input,
        contextWindow: definition.contextWindow,
        maxTokens: definition.maxTokens,
        compat: mergeCompat(config.compat, definition.compat) as PiModel["compat"],
      });
      if (definition.thinkingLevelMap) model.thinkingLevelMap = definition.thinkingLevelMap;
      if (definition.cost) model.cost = { ...definition.cost };
      out.push(model);
    }
    return out;
  }

  private setModelHeaders(provider: string, modelId: string, headers: Record<string, string> | undefined): void {
    if (headers && Object.keys(headers).length > 0) this.modelHeaders.set(key(provider, modelId), headers);
    else this.modelHeaders.delete(key(provider, modelId));
  }
}

function key(provider: string, modelId: string): string {
  return `${provider}\u0000${modelId}`;
}

function readIfExists(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Compat flags merged field by field; the routing objects inside merged one level deeper. */
export function mergeCompat(base: unknown, override: CompatConfig | undefined): CompatConfig | undefined {
  if (!override) return base as CompatConfig | undefined;
  const baseRecord = (base ?? {}) as CompatConfig;
  const merged: CompatConfig = { ...baseRecord, ...override };
  for (const field of ["openRouterRouting", "vercelGatewayRouting"]) {
    if (baseRecord[field] || override[field]) merged[field] = { ...(baseRecord[field] as object), ...(override[field] as object) };
  }
  return merged;
}

function applyOverride(model: PiModel, override: ModelOverride): PiModel {
  const result: PiModel = { ...model };
  if (override.name !== undefined) result.name = override.name;
  if (override.reasoning !== undefined) result.reasoning = override.reasoning;
  if (override.thinkingLevelMap !== undefined) result.thinkingLevelMap = { ...model.thinkingLevelMap, ...override.thinkingLevelMap };
  if (override.input !== undefined) result.input = override.input;
  if (override.contextWindow !== undefined) result.contextWindow = override.contextWindow;
  if (override.maxTokens !== undefined) result.maxTokens = override.maxTokens;
  if (override.cost) {
    result.cost = {
      input: override.cost.input ?? model.cost.input,
      output: override.cost.output ?? model.cost.output,
      cacheRead: override.cost.cacheRead ?? model.cost.cacheRead,
      cacheWrite: override.cost.cacheWrite ?? model.cost.cacheWrite,
    };
  }
  result.compat = mergeCompat(model.compat, override.compat) as PiModel["compat"];
  return result;
}
