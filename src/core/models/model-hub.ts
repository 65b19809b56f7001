/**
 * The pi-ai side of Arbor's models in one place, for any host (the VS Code layer, tests): the model
 * registry (pi-ai's catalog + models.json files), credentials, one {@link PiAiProvider} per provider
 * id, and what an agent session needs to restore and choose its model.
 *
 * Pure core: no `vscode`. Hosts add their own backends (vscode.lm) next to it.
 */

import type { AgentSessionConfig } from "../agent/agent-session";
import type { ModelInfo } from "../agent/providers/provider";
import type { ModelRef, ThinkingLevel } from "../session/types";
import type { ConfigValueOptions } from "./config-value";
import { CredentialResolver, type KeySource, type StoredKeys } from "./credentials";
import { chooseDefaultModel, type ModelKey } from "./default-model";
import type { EndpointLimits } from "./endpoint-guard";
import { ModelRegistry, type ModelOrigin, type ModelsFile } from "./model-registry";
import { piAi, type PiAiLoader, type PiModel } from "./pi-ai-modules";
import { describePiModel, PiAiProvider, type InsecureSend } from "./pi-ai-provider";
import type { ThinkingBudgets } from "./pi-auth-file";

export interface ModelHubOptions {
  /** models.json files, read in order (Pi's, then Arbor's own). */
  files: readonly ModelsFile[];
  storedKeys: StoredKeys;
  /** Whether `!command` keys may run (a trusted workspace). */
  allowCommands: () => boolean;
  confirmInsecureSend?: (send: InsecureSend) => Promise<boolean>;
  limits?: () => EndpointLimits;
  /** Pi's `thinkingBudgets` (see PiAiProviderOptions.thinkingBudgets). */
  thinkingBudgets?: () => ThinkingBudgets | undefined;
  /** Added to "no API key" errors: how to add one in this host. */
  missingKeyHint?: (provider: string) => string;
  loader?: PiAiLoader;
}

/** One model as a picker lists it. */
export interface ModelListing {
  info: ModelInfo;
  origin: ModelOrigin;
  /** Where the key comes from; undefined: there is none, so calls would fail. */
  keySource: KeySource | undefined;
}

export class ModelHub {
  readonly registry: ModelRegistry;
  readonly credentials: CredentialResolver;
  private readonly providers = new Map<string, PiAiProvider>();

  private constructor(
    private readonly options: ModelHubOptions,
    catalog: Awaited<ReturnType<PiAiLoader["catalog"]>>,
  ) {
    this.registry = new ModelRegistry(catalog, options.files);
    const valueOptions = (): ConfigValueOptions => ({ allowCommands: options.allowCommands() });
    this.credentials = new CredentialResolver(this.registry, catalog, options.storedKeys, valueOptions, options.missingKeyHint);
  }

  /** Loads pi-ai's catalog (once per process) and reads the files. */
  static async create(options: ModelHubOptions): Promise<ModelHub> {
    const catalog = await (options.loader ?? piAi).catalog();
    return new ModelHub(options, catalog);
  }

  /** The provider serving a provider id, when the registry has models of it. */
  provider(id: string): PiAiProvider | undefined {
    if (this.registry.modelsOf(id).length === 0) return undefined;
    let provider = this.providers.get(id);
    if (!provider) {
      provider = new PiAiProvider({
        id,
        models: this.registry,
        resolveAuth: (model) => this.credentials.resolve(model),
        confirmInsecureSend: this.options.confirmInsecureSend,
        limits: this.options.limits,
        thinkingBudgets: this.options.thinkingBudgets,
        loader: this.options.loader,
      });
      this.providers.set(id, provider);
    }
    return provider;
  }

  /** Arbor's description of a registry model. */
  describe(ref: ModelRef | ModelKey): ModelInfo | undefined {
    const model = this.find(ref);
    return model ? describePiModel(model) : undefined;
  }

  /** Whether the model is known and has credentials. */
  isAvailable(ref: ModelRef | ModelKey): boolean {
    const model = this.find(ref);
    return model !== undefined && this.credentials.hasConfiguredAuth(model);
  }

  /** Every registry model with where it comes from and whether it has a key. */
  list(): ModelListing[] {
    return this.registry.getAll().map((model) => ({
      info: describePiModel(model),
      origin: this.registry.originOf(model),
      keySource: this.credentials.keySource(model.provider),
    }));
  }

  /** The model a session without its own starts with (see default-model.ts). */
  defaultModel(preferences: readonly (ModelKey | undefined)[]): ModelInfo | undefined {
    const chosen = chooseDefaultModel({
      models: this.registry.getAll() as PiModel[],
      preferences,
      hasCredentials: (model) => this.credentials.hasConfiguredAuth(model),
      isConfigured: (model) => this.registry.originOf(model) !== "built-in",
    });
    return chosen ? describePiModel(chosen) : undefined;
  }

  /**
   * What an agent session needs from the registry: providers by id, model details, availability, and
   * the default model, chosen anew each time it is asked for (files and keys change while sessions run).
   */
  sessionConfig(preferences: () => readonly (ModelKey | undefined)[], defaultThinkingLevel?: ThinkingLevel): AgentSessionConfig {
    return {
      resolveProvider: (id) => this.provider(id),
      describeModel: (ref) => this.describe(ref),
      isModelAvailable: (ref) => this.isAvailable(ref),
      defaultModel: () => this.defaultModel(preferences()),
      defaultThinkingLevel,
    };
  }

  dispose(): void {
    this.registry.dispose();
  }

  private find(ref: ModelRef | ModelKey): PiModel | undefined {
    const id = "modelId" in ref ? ref.modelId : ref.id;
    return this.registry.find(ref.provider, id);
  }
}
