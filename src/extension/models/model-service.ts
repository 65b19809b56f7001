import * as vscode from "vscode";
import { join } from "node:path";
import type { AgentSessionConfig } from "../../core/agent/agent-session";
import { DEFAULT_CONTEXT_WINDOW, type ModelInfo } from "../../core/agent/providers/provider";
import type { KeySource } from "../../core/models/credentials";
import { formatModelKey, parseModelKey, type ModelKey } from "../../core/models/default-model";
import { ModelHub } from "../../core/models/model-hub";
import type { ModelOrigin } from "../../core/models/model-registry";
import type { PiModel } from "../../core/models/pi-ai-modules";
import type { RequestAuth } from "../../core/models/pi-ai-provider";
import { readPiDefaults, type PiDefaults } from "../../core/models/pi-auth-file";
import type { ModelRef, ThinkingLevel } from "../../core/session/types";
import type { Disposable } from "../../core/util/disposable";
import { watchFiles } from "../../core/util/watch-files";
import { InsecureSendGuard } from "./insecure-send";
import { onDidChangeModelSettings, readModelSettings } from "./model-settings";
import { SecretKeyStore } from "./secret-keys";
import { StoredCredentials } from "./credential-stores";
import { VSCODE_LM_PROVIDER, VsCodeLmProvider } from "./vscode-lm-provider";
import { DEFAULT_RETRY_SETTINGS, type RetrySettings } from "../../core/agent/retry-policy";

/** Where a model in Arbor's lists comes from. */
export type ModelSourceKind = ModelOrigin | "vscode-lm";

/** One model as pickers and the chat show it. Never carries a key. */
export interface ModelEntry {
  provider: string;
  id: string;
  name: string;
  /** The provider's display name. */
  providerName: string;
  contextWindow: number;
  /** The thinking levels the model takes, `off` first. */
  thinkingLevels: ThinkingLevel[];
  source: ModelSourceKind;
  /** True when calls would fail for want of a key. */
  keyMissing: boolean;
  /** Where the key comes from, in words ("ANTHROPIC_API_KEY", "Arbor's secret storage", ...). */
  keyFrom?: string;
}

const LAST_MODEL_KEY = "arbor.lastModel";
/** Pi's default thinking level when nothing else says one. */
const PI_DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium";

/**
 * Every model Arbor can use, for the chat and the commands: pi-ai's catalog and the models.json files
 * (through the core ModelHub), and VS Code's own chat models (vscode.lm, listed only after a user
 * action). It builds what each agent session needs to restore and choose its model, keeps keys in
 * SecretStorage, re-reads models.json and Pi's settings.json when they change, and says when the list
 * changes. Everything works without it being ready: sessions wait for it, lists are empty until then.
 */
export class ModelService implements vscode.Disposable {
  readonly ready: Promise<void>;
  readonly keys: SecretKeyStore;
  /** The API keys and the subscription logins, as model calls use them. */
  readonly credentials: StoredCredentials;
  readonly insecureSend: InsecureSendGuard;
  readonly vscodeLm = new VsCodeLmProvider();
  /** Arbor's own models file (Pi's format), where "Add a Model..." writes. */
  readonly arborModelsFile: string;
  /** What the open Add a Model list offers once its lookups have ended (read by Arbor's host tests). */
  lastAddModelOffer: string[] | undefined;
  private hub: ModelHub | undefined;
  private vscodeModels: ModelInfo[] | undefined;
  private piDefaults: PiDefaults = {};
  private settings = readModelSettings();
  private fileWatch: Disposable | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** The list of models, their keys or the defaults changed. */
  readonly onDidChangeModels = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly agentDir: () => string,
  ) {
    this.keys = new SecretKeyStore(context.secrets, context.globalState);
    this.credentials = new StoredCredentials(this.keys, context.secrets, context.globalState);
    this.insecureSend = new InsecureSendGuard(context.globalState);
    this.arborModelsFile = join(context.globalStorageUri.fsPath, "models.json");
    this.disposables.push(this.credentials, this.keys, this.changed);
    this.ready = this.init();
  }

  private async init(): Promise<void> {
    await this.credentials.verify().catch((error: Error) => this.log.warn(`checking stored API keys and logins: ${error.message}`));
    this.disposables.push(this.credentials.onDidChange(() => this.changed.fire()));
    this.disposables.push(
      onDidChangeModelSettings(() => {
        this.settings = readModelSettings();
        this.changed.fire();
      }),
    );
    this.disposables.push(
      vscode.lm.onDidChangeChatModels(() => {
        // Listed again only once the user has asked for the list (the API wants a user action first).
        if (this.vscodeModels) void this.refreshVsCodeModels().then(() => this.changed.fire());
      }),
    );
    try {
      this.hub = await ModelHub.create({
        files: this.modelFiles(),
        storedKeys: this.credentials,
        allowCommands: () => vscode.workspace.isTrusted,
        confirmInsecureSend: this.insecureSend.confirm,
        limits: () => this.settings.limits,
        thinkingBudgets: () => this.piDefaults.thinkingBudgets,
        missingKeyHint: (provider) => `Run "Arbor: Set API Key..." for ${provider}, or "Arbor: Add a Model...".`,
      });
      this.hub.registry.onDidChange(() => {
        this.reportFileErrors();
        this.changed.fire();
      });
      this.reportFileErrors();
    } catch (error) {
      this.log.error(`Could not load pi-ai, the provider library: ${(error as Error).message}. Only VS Code's chat models are offered.`);
    }
    await this.watch();
    this.log.info(`models: ${this.hub?.registry.getAll().length ?? 0} from pi-ai and ${this.modelFiles().map((f) => f.path).join(", ")}`);
  }

  /** The agent folder changed: read its models.json and settings.json instead. */
  async relocate(): Promise<void> {
    await this.ready;
    this.hub?.registry.setFiles(this.modelFiles());
    await this.watch();
    this.changed.fire();
  }

  /** Re-reads the model files now (after "Add a Model..." wrote one). */
  refresh(): void {
    this.hub?.registry.refresh();
  }

  // ------------------------------------------------------------------ lists

  /**
   * Every model from every source. With `userAction`, VS Code's chat models are looked up now (call
   * it so only when the user opened a picker or ran a command); otherwise the last lookup is used.
   */
  async listModels(options: { userAction?: boolean } = {}): Promise<ModelEntry[]> {
    await this.ready;
    if (options.userAction) await this.refreshVsCodeModels();
    return this.entries();
  }

  /** The models known now, without waiting or looking anything up. */
  entries(): ModelEntry[] {
    const hubEntries: ModelEntry[] = (this.hub?.list() ?? []).map((listing) => ({
      ...baseEntry(listing.info),
      providerName: this.providerName(listing.info.provider),
      source: listing.origin,
      keyMissing: listing.keySource === undefined,
      keyFrom: describeKeySource(listing.keySource),
    }));
    const lmEntries: ModelEntry[] = (this.vscodeModels ?? []).map((info) => ({ ...baseEntry(info), providerName: "VS Code", source: "vscode-lm", keyMissing: false }));
    return [...hubEntries, ...lmEntries];
  }

  /** VS Code's chat models, looked up now. Call only in response to a user action. */
  async refreshVsCodeModels(): Promise<ModelInfo[]> {
    try {
      this.vscodeModels = await this.vscodeLm.listModels();
    } catch (error) {
      this.log.warn(`listing VS Code's chat models: ${(error as Error).message}`);
      this.vscodeModels = [];
    }
    return this.vscodeModels;
  }

  /** One model's entry, when known. */
  findEntry(model: ModelKey): ModelEntry | undefined {
    return this.entries().find((entry) => entry.provider === model.provider && entry.id === model.id);
  }

  /** Arbor's description of a model (for sessions), when its source knows it. */
  describe(model: ModelKey): ModelInfo | undefined {
    if (model.provider === VSCODE_LM_PROVIDER) return this.describeVsCodeModel(model.id);
    return this.hub?.describe(model);
  }

  /** The address a registry model is called at (undefined for VS Code's models). */
  baseUrlOf(model: ModelKey): string | undefined {
    return model.provider === VSCODE_LM_PROVIDER ? undefined : this.hub?.registry.find(model.provider, model.id)?.baseUrl;
  }

  /** pi-ai's own Model object of a registry model (what Pi extensions get as `ctx.model`); undefined for VS Code's models. */
  piModel(model: ModelKey): PiModel | undefined {
    return model.provider === VSCODE_LM_PROVIDER ? undefined : this.hub?.registry.find(model.provider, model.id);
  }

  /** The key and headers a registry model's calls carry (Pi extensions' `ctx.modelRegistry.getApiKeyAndHeaders`). */
  async requestAuth(model: ModelKey): Promise<RequestAuth> {
    await this.ready;
    const found = this.piModel(model);
    if (!found || !this.hub) return { ok: false, error: `Arbor has no key for ${formatModelKey(model)}: ${model.provider === VSCODE_LM_PROVIDER ? "VS Code's chat models are called through VS Code" : "the model is unknown"}.` };
    return this.hub.credentials.resolve(found);
  }

  /** The model's context window, for the status bar (undefined when the model is unknown). */
  contextWindowOf(model: ModelKey): number | undefined {
    return this.describe(model)?.contextWindow;
  }

  /** Display name of a provider. */
  providerName(provider: string): string {
    if (provider === VSCODE_LM_PROVIDER) return "VS Code";
    return this.hub?.registry.providerName(provider) ?? PROVIDER_NAMES[provider] ?? provider;
  }

  /** Provider ids that models can come from (pi-ai's and the files'). */
  providers(): string[] {
    return this.hub?.registry.getProviders() ?? [];
  }

  /** Where a provider's key comes from, in words; undefined when there is none. */
  keyFrom(provider: string): string | undefined {
    return describeKeySource(this.hub?.credentials.keySource(provider));
  }

  /** Whether any model could answer now (for "add a model" prompts). */
  hasUsableModel(): boolean {
    return this.entries().some((entry) => !entry.keyMissing);
  }

  // ------------------------------------------------------------------ defaults and sessions

  /**
   * In order: `arbor.model.default`, the project's default in its `.pi/settings.json` (as Pi, where the
   * project's setting wins over the model last chosen, which Pi keeps in the user's file), the model
   * last chosen in Arbor, Pi's default from the user's settings.json.
   */
  preferences(project?: ModelKey): ModelKey[] {
    const last = parseModelKey(this.context.globalState.get<string>(LAST_MODEL_KEY));
    const pi = this.piDefaults.provider && this.piDefaults.model ? { provider: this.piDefaults.provider, id: this.piDefaults.model } : undefined;
    return [this.settings.defaultModel, project, last, pi].filter((key): key is ModelKey => key !== undefined);
  }

  /** The model new sessions start with (see default-model.ts); `project`: the session folder's Pi default. */
  defaultModel(project?: ModelKey): ModelInfo | undefined {
    const preferences = this.preferences(project);
    for (const preference of preferences) {
      if (preference.provider === VSCODE_LM_PROVIDER) return this.describeVsCodeModel(preference.id);
      if (this.hub?.describe(preference)) break;
    }
    return this.hub?.defaultModel(preferences);
  }

  /**
   * The patterns of the scoped models that cycling steps through: `arbor.model.enabled`, else Pi's
   * `enabledModels` from its settings.json; none means every usable model.
   */
  enabledModelPatterns(): readonly string[] {
    return this.settings.enabledModels ?? this.piDefaults.enabledModels ?? [];
  }

  /** `arbor.model.defaultThinkingLevel`, else the project's Pi default, else the user's, else Pi's own default. */
  defaultThinkingLevel(project?: ThinkingLevel): ThinkingLevel {
    return this.settings.defaultThinkingLevel ?? project ?? this.piDefaults.thinkingLevel ?? PI_DEFAULT_THINKING_LEVEL;
  }

  /** Remembers the user's choice as the default for new sessions, as Pi does. */
  async rememberSelection(model: ModelKey): Promise<void> {
    await this.context.globalState.update(LAST_MODEL_KEY, formatModelKey(model));
    this.changed.fire();
  }

  /** What every agent session gets from the models: providers, details, availability, defaults. */
  async sessionConfig(): Promise<AgentSessionConfig> {
    await this.ready;
    const isVsCode = (ref: ModelRef): boolean => ref.provider === VSCODE_LM_PROVIDER;
    return {
      resolveProvider: (id) => (id === VSCODE_LM_PROVIDER ? this.vscodeLm : this.hub?.provider(id)),
      describeModel: (ref) => (isVsCode(ref) ? this.describeVsCodeModel(ref.modelId) : this.hub?.describe(ref)),
      // A VS Code model is checked when it is used: looking it up now would need a user action.
      isModelAvailable: (ref) => isVsCode(ref) || (this.hub?.isAvailable(ref) ?? false),
      defaultModel: () => this.defaultModel(),
      defaultThinkingLevel: this.defaultThinkingLevel(),
      retrySettings: () => this.retrySettings(),
    };
  }

  /**
   * Pi's `retry.*`, from its global settings.json as read now (the one place they are read: point it
   * at a merged global and project reading when there is one).
   */
  retrySettings(): RetrySettings {
    return this.piDefaults.retry ?? DEFAULT_RETRY_SETTINGS;
  }

  dispose(): void {
    this.fileWatch?.dispose();
    this.hub?.dispose();
    for (const disposable of this.disposables) disposable.dispose();
  }

  // ------------------------------------------------------------------ internals

  private modelFiles(): { path: string; origin: "models.json" | "arbor" }[] {
    return [
      { path: join(this.agentDir(), "models.json"), origin: "models.json" },
      { path: this.arborModelsFile, origin: "arbor" },
    ];
  }

  private async watch(): Promise<void> {
    this.fileWatch?.dispose();
    const settingsFile = join(this.agentDir(), "settings.json");
    this.piDefaults = await readPiDefaults(settingsFile);
    this.fileWatch = watchFiles([...this.modelFiles().map((file) => file.path), settingsFile], () => {
      this.hub?.registry.refresh();
      void readPiDefaults(settingsFile).then((defaults) => {
        if (JSON.stringify(defaults) === JSON.stringify(this.piDefaults)) return;
        this.piDefaults = defaults;
        this.changed.fire();
      });
    });
  }

  private reportFileErrors(): void {
    for (const error of this.hub?.registry.getErrors() ?? []) this.log.error(`${error.message} (the file is ignored until it is fixed)`);
  }

  private describeVsCodeModel(id: string): ModelInfo {
    // Until the user has listed VS Code's models, a model a session names is described from its id.
    return (
      this.vscodeModels?.find((model) => model.id === id) ?? {
        provider: VSCODE_LM_PROVIDER,
        id,
        name: id,
        contextWindow: DEFAULT_CONTEXT_WINDOW,
        thinkingLevels: ["off"],
        supportsThinking: false,
        api: VSCODE_LM_PROVIDER,
      }
    );
  }
}

function baseEntry(info: ModelInfo): Omit<ModelEntry, "providerName" | "source" | "keyMissing"> {
  return { provider: info.provider, id: info.id, name: info.name, contextWindow: info.contextWindow, thinkingLevels: [...(info.thinkingLevels ?? ["off"])] };
}

function describeKeySource(source: KeySource | undefined): string | undefined {
  switch (source?.kind) {
    case "stored":
      return "a key stored in Arbor";
    case "login":
      return "a subscription login";
    case "environment":
      return source.variable;
    case "ambient":
      return "credentials from the environment";
    case "models.json":
      return source.command ? "a command in models.json" : "models.json";
    default:
      return undefined;
  }
}

/** Display names of pi-ai's providers that read better than their ids. */
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  anthropic: "Anthropic",
  openai: "OpenAI",
  google: "Google Gemini",
  "google-vertex": "Google Vertex AI",
  mistral: "Mistral",
  openrouter: "OpenRouter",
  groq: "Groq",
  xai: "xAI",
  deepseek: "DeepSeek",
  cerebras: "Cerebras",
  "azure-openai-responses": "Azure OpenAI",
  "github-copilot": "GitHub Copilot",
  huggingface: "Hugging Face",
  fireworks: "Fireworks",
  "vercel-ai-gateway": "Vercel AI Gateway",
  zai: "Z.ai",
  moonshotai: "Moonshot AI",
};
