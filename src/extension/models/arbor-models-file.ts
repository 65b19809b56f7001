import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ModelKey } from "../../core/models/default-model";
import { stripJsonComments, type ModelsConfig, type ProviderConfig } from "../../core/models/models-json";
import type { ModelService } from "./model-service";

/** A model on an OpenAI-compatible server, as "Add a Model..." adds it. */
export interface LocalServerSpec {
  /** The provider id wanted (a free one is taken if another file already uses it). */
  provider: string;
  /** The provider's display name. */
  name: string;
  baseUrl: string;
  modelId: string;
}

/**
 * Flags for OpenAI-compatible local servers: the `system` role (not OpenAI's newer `developer`), no
 * `store` field, and the output cap in `max_tokens`, which Ollama, LM Studio, vLLM and llama.cpp read.
 */
const LOCAL_SERVER_COMPAT = { supportsDeveloperRole: false, supportsStore: false, maxTokensField: "max_tokens" } as const;

/**
 * Adds a model to Arbor's own models file (Pi's format, in Arbor's storage: Pi's own files are never
 * written) and re-reads the models. A model the registry already has at the same address is reused
 * as it is. The file holds no key: a key typed in Arbor goes to SecretStorage, and local servers,
 * which need none, get the placeholder `none` (pi-ai always sends a key). Returns the model to use.
 */
export async function addLocalModel(models: ModelService, spec: LocalServerSpec): Promise<ModelKey> {
  await models.ready;
  const existing = models
    .entries()
    .find((entry) => entry.id === spec.modelId && entry.source !== "vscode-lm" && baseUrlOf(models, entry) === spec.baseUrl);
  if (existing) return { provider: existing.provider, id: existing.id };

  const file = models.arborModelsFile;
  const config = await readConfig(file);
  const provider = freeProviderId(models, config, spec);
  const current: ProviderConfig = config.providers[provider] ?? {};
  const modelsOfProvider = (current.models ?? []).filter((model) => model.id !== spec.modelId);
  config.providers[provider] = {
    ...current,
    name: current.name ?? spec.name,
    baseUrl: spec.baseUrl,
    api: "openai-completions",
    apiKey: current.apiKey ?? "none",
    compat: { ...LOCAL_SERVER_COMPAT, ...current.compat },
    models: [...modelsOfProvider, { id: spec.modelId }],
  };
  await writeAtomically(file, `${JSON.stringify(config, null, 2)}\n`);
  models.refresh();
  return { provider, id: spec.modelId };
}

async function readConfig(file: string): Promise<ModelsConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return { providers: {} };
  }
  try {
    const parsed = JSON.parse(stripJsonComments(text)) as Partial<ModelsConfig>;
    return { ...parsed, providers: { ...(parsed.providers ?? {}) } };
  } catch {
    throw new Error(`Arbor's models file ${file} is not valid JSON; fix or delete it, then add the model again.`);
  }
}

/** The wanted id, unless Pi's models.json or the catalog already has a provider of that name elsewhere. */
function freeProviderId(models: ModelService, config: ModelsConfig, spec: LocalServerSpec): string {
  const taken = (id: string): boolean => {
    if (config.providers[id]) return config.providers[id]?.baseUrl !== spec.baseUrl;
    return models.entries().some((entry) => entry.provider === id);
  };
  if (!taken(spec.provider)) return spec.provider;
  for (let n = 2; ; n++) if (!taken(`${spec.provider}-${n}`)) return `${spec.provider}-${n}`;
}

function baseUrlOf(models: ModelService, entry: ModelKey): string | undefined {
  return models.baseUrlOf(entry)?.replace(/\/+$/, "");
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text, { encoding: "utf8", mode: 0o600 });
  await rename(temp, file);
}
