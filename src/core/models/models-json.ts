/**
 * Reading Pi's `models.json` (in the agent folder) the way Pi 0.73.1 reads it: JSON that may carry
 * `//` comments and trailing commas; a schema check; then rules across fields. Any problem rejects the
 * whole file with one message (Pi then keeps only the built-in models, and so does Arbor).
 *
 * Our own code, tested against the reference's model registry on the same files.
 */

import type { ThinkingLevel } from "../session/types";
import { THINKING_LEVELS } from "../session/types";

/** Per-level values sent to the provider; `null` marks a level the model does not take. */
export type ThinkingLevelMap = Partial<Record<ThinkingLevel, string | null>>;

/** Compatibility flags (OpenAI completions/responses, Anthropic messages), passed to pi-ai as they are. */
export type CompatConfig = Record<string, unknown>;

export interface ModelCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** A model a provider defines (`providers.<name>.models[]`). */
export interface ModelDefinition {
  id: string;
  name?: string;
  api?: string;
  baseUrl?: string;
  reasoning?: boolean;
  thinkingLevelMap?: ThinkingLevelMap;
  input?: ("text" | "image")[];
  cost?: ModelCost;
  contextWindow?: number;
  maxTokens?: number;
  headers?: Record<string, string>;
  compat?: CompatConfig;
}

/** Changes to one built-in model (`providers.<name>.modelOverrides.<id>`). */
export interface ModelOverride {
  name?: string;
  reasoning?: boolean;
  thinkingLevelMap?: ThinkingLevelMap;
  input?: ("text" | "image")[];
  cost?: Partial<ModelCost>;
  contextWindow?: number;
  maxTokens?: number;
  headers?: Record<string, string>;
  compat?: CompatConfig;
}

/** One provider's entry. `apiKey` and header values are config values (see config-value.ts). */
export interface ProviderConfig {
  name?: string;
  baseUrl?: string;
  apiKey?: string;
  api?: string;
  headers?: Record<string, string>;
  compat?: CompatConfig;
  authHeader?: boolean;
  models?: ModelDefinition[];
  modelOverrides?: Record<string, ModelOverride>;
}

export interface ModelsConfig {
  providers: Record<string, ProviderConfig>;
}

/** The outcome of reading one file: a config, or the reason it was rejected. */
export type ModelsJsonResult = { ok: true; config: ModelsConfig } | { ok: false; error: string };

/** Removes `//` line comments and trailing commas outside of strings (Pi accepts both). */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      const end = endOfString(text, i);
      out += text.slice(i, end);
      i = end;
    } else if (ch === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (ch === ",") {
      // A comma followed only by whitespace (and comments) before } or ] is dropped.
      let j = i + 1;
      for (;;) {
        while (j < text.length && /\s/.test(text[j]!)) j++;
        if (text[j] === "/" && text[j + 1] === "/") {
          while (j < text.length && text[j] !== "\n") j++;
          continue;
        }
        break;
      }
      if (text[j] !== "}" && text[j] !== "]") out += ch;
      i++;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === "\\") i += 2;
    else if (text[i] === '"') return i + 1;
    else i++;
  }
  return text.length;
}

/**
 * Parses and checks a models.json text. `builtInProviders` are pi-ai's provider ids: a provider of
 * that name may define models without an endpoint or key of its own (it inherits them).
 */
export function parseModelsJson(text: string, builtInProviders: ReadonlySet<string>, file = "models.json"): ModelsJsonResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripJsonComments(text));
  } catch (error) {
    return { ok: false, error: `${file} is not valid JSON: ${(error as Error).message}` };
  }
  const problems: string[] = [];
  checkConfig(parsed, "", problems);
  if (problems.length > 0) return { ok: false, error: `${file} does not match Pi's schema:\n${problems.map((p) => `  - ${p}`).join("\n")}` };
  const config = parsed as ModelsConfig;
  const rule = breaksRules(config, builtInProviders);
  if (rule) return { ok: false, error: `${file}: ${rule}` };
  return { ok: true, config };
}

// ---------------------------------------------------------------------------------------------
// Schema (types of the fields Pi declares; other fields are allowed and ignored, as in Pi)

type Check = (value: unknown, path: string, problems: string[]) => void;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const str = (minLength = 0): Check => (value, path, problems) => {
  if (typeof value !== "string") problems.push(`${path}: expected a string`);
  else if (value.length < minLength) problems.push(`${path}: must not be empty`);
};
const num: Check = (value, path, problems) => {
  if (typeof value !== "number" || !Number.isFinite(value)) problems.push(`${path}: expected a number`);
};
const bool: Check = (value, path, problems) => {
  if (typeof value !== "boolean") problems.push(`${path}: expected true or false`);
};
const oneOf = (...allowed: string[]): Check => (value, path, problems) => {
  if (typeof value !== "string" || !allowed.includes(value)) problems.push(`${path}: expected one of ${allowed.join(", ")}`);
};
const arrayOf = (item: Check): Check => (value, path, problems) => {
  if (!Array.isArray(value)) return void problems.push(`${path}: expected an array`);
  value.forEach((element, index) => item(element, `${path}.${index}`, problems));
};
const recordOf = (item: Check): Check => (value, path, problems) => {
  if (!isObject(value)) return void problems.push(`${path}: expected an object`);
  for (const [key, element] of Object.entries(value)) item(element, `${path}.${key}`, problems);
};
const stringOrNull: Check = (value, path, problems) => {
  if (value !== null && typeof value !== "string") problems.push(`${path}: expected a string or null`);
};
const numOrString: Check = (value, path, problems) => {
  if (typeof value !== "string" && (typeof value !== "number" || !Number.isFinite(value))) problems.push(`${path}: expected a number or a string`);
};

/** An object whose listed fields, when present, pass their checks; `required` fields must be present. */
function object(fields: Record<string, Check>, required: string[] = []): Check {
  return (value, path, problems) => {
    if (!isObject(value)) return void problems.push(`${path || "root"}: expected an object`);
    for (const name of required) if (!(name in value)) problems.push(`${path ? `${path}.` : ""}${name}: required`);
    for (const [name, check] of Object.entries(fields)) {
      if (name in value && value[name] !== undefined) check(value[name], path ? `${path}.${name}` : name, problems);
    }
  };
}

/** Passes when any of the checks passes (the problems of the first are reported otherwise). */
function anyOf(...checks: Check[]): Check {
  return (value, path, problems) => {
    const attempts = checks.map((check) => {
      const found: string[] = [];
      check(value, path, found);
      return found;
    });
    if (attempts.some((found) => found.length === 0)) return;
    problems.push(...(attempts[0] ?? []));
  };
}

const percentiles = object({ p50: num, p75: num, p90: num, p99: num });
const openRouterRouting = object({
  allow_fallbacks: bool,
  require_parameters: bool,
  data_collection: oneOf("deny", "allow"),
  zdr: bool,
  enforce_distillable_text: bool,
  order: arrayOf(str()),
  only: arrayOf(str()),
  ignore: arrayOf(str()),
  quantizations: arrayOf(str()),
  sort: anyOf(str(), object({ by: str(), partition: anyOf(str(), (v, p, pr) => void (v !== null && pr.push(`${p}: expected a string or null`))) })),
  max_price: object({ prompt: numOrString, completion: numOrString, image: numOrString, audio: numOrString, request: numOrString }),
  preferred_min_throughput: anyOf(num, percentiles),
  preferred_max_latency: anyOf(num, percentiles),
});
const completionsCompat = object({
  supportsStore: bool,
  supportsDeveloperRole: bool,
  supportsReasoningEffort: bool,
  supportsUsageInStreaming: bool,
  maxTokensField: oneOf("max_completion_tokens", "max_tokens"),
  requiresToolResultName: bool,
  requiresAssistantAfterToolResult: bool,
  requiresThinkingAsText: bool,
  requiresReasoningContentOnAssistantMessages: bool,
  thinkingFormat: oneOf("openai", "openrouter", "deepseek", "zai", "qwen", "qwen-chat-template"),
  cacheControlFormat: oneOf("anthropic"),
  openRouterRouting,
  vercelGatewayRouting: object({ only: arrayOf(str()), order: arrayOf(str()) }),
  supportsStrictMode: bool,
  supportsLongCacheRetention: bool,
});
const responsesCompat = object({ sendSessionIdHeader: bool, supportsLongCacheRetention: bool });
const anthropicCompat = object({ supportsEagerToolInputStreaming: bool, supportsLongCacheRetention: bool });
const compat = anyOf(completionsCompat, responsesCompat, anthropicCompat);
const thinkingLevelMap = object(Object.fromEntries(THINKING_LEVELS.map((level) => [level, stringOrNull])));
const input = arrayOf(oneOf("text", "image"));
const headers = recordOf(str());

const modelDefinition = object(
  {
    id: str(1),
    name: str(1),
    api: str(1),
    baseUrl: str(1),
    reasoning: bool,
    thinkingLevelMap,
    input,
    cost: object({ input: num, output: num, cacheRead: num, cacheWrite: num }, ["input", "output", "cacheRead", "cacheWrite"]),
    contextWindow: num,
    maxTokens: num,
    headers,
    compat,
  },
  ["id"],
);
const modelOverride = object({
  name: str(1),
  reasoning: bool,
  thinkingLevelMap,
  input,
  cost: object({ input: num, output: num, cacheRead: num, cacheWrite: num }),
  contextWindow: num,
  maxTokens: num,
  headers,
  compat,
});
const providerConfig = object({
  name: str(1),
  baseUrl: str(1),
  apiKey: str(1),
  api: str(1),
  headers,
  compat,
  authHeader: bool,
  models: arrayOf(modelDefinition),
  modelOverrides: recordOf(modelOverride),
});
const checkConfig = object({ providers: recordOf(providerConfig) }, ["providers"]);

// ---------------------------------------------------------------------------------------------
// Rules across fields

function breaksRules(config: ModelsConfig, builtIn: ReadonlySet<string>): string | undefined {
  for (const [name, provider] of Object.entries(config.providers)) {
    const models = provider.models ?? [];
    const isBuiltIn = builtIn.has(name);
    if (models.length === 0) {
      const hasOverrides = provider.modelOverrides !== undefined && Object.keys(provider.modelOverrides).length > 0;
      if (!provider.baseUrl && !provider.headers && !provider.compat && !hasOverrides) {
        return `provider "${name}" must set "baseUrl", "headers", "compat", "modelOverrides" or "models".`;
      }
    } else if (!isBuiltIn) {
      if (!provider.baseUrl) return `provider "${name}" defines models, so it needs a "baseUrl".`;
      if (!provider.apiKey) return `provider "${name}" defines models, so it needs an "apiKey" (a key, an environment variable's name, or !command).`;
    }
    for (const model of models) {
      if (!provider.api && !model.api && !isBuiltIn) return `model "${model.id}" of provider "${name}" has no "api" (set it on the provider or the model).`;
      if (model.contextWindow !== undefined && model.contextWindow <= 0) return `model "${model.id}" of provider "${name}" has an invalid contextWindow.`;
      if (model.maxTokens !== undefined && model.maxTokens <= 0) return `model "${model.id}" of provider "${name}" has an invalid maxTokens.`;
    }
  }
  return undefined;
}
