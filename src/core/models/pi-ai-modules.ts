/**
 * Loading `@mariozechner/pi-ai` (Pi's own provider layer) one piece at a time.
 *
 * pi-ai is ESM-only and large: its model catalog alone is half a megabyte, and each API pulls in a
 * vendor SDK. Nothing of it is imported statically. Every piece is loaded with `import()` the first
 * time it is needed: the catalog when models are first listed, an API's module when a model of that
 * API first streams. Under mocha (our CommonJS output on Node 20) `import()` loads the package
 * itself; in the extension bundle, scripts/build.mjs maps each of these specifiers to a lazily loaded
 * ESM chunk next to the bundle (dist/pi-ai/), so the specifiers below must stay string literals.
 *
 * Pure core: no `vscode`.
 */

import type {
  Api,
  AssistantMessageEventStream,
  Context,
  Model,
  SimpleStreamOptions,
} from "@mariozechner/pi-ai" with { "resolution-mode": "import" };
import { installResponseGuard, type GuardableSdkClass } from "./endpoint-guard";

/** A model as pi-ai describes it (also what Pi's models.json produces). */
export type PiModel = Model<Api>;

/** pi-ai's uniform streaming entry of one API (`streamSimple…`). */
export type PiStreamFunction = (model: PiModel, context: Context, options?: SimpleStreamOptions) => AssistantMessageEventStream;

/** What Arbor uses from pi-ai's root module: the built-in model catalog and the environment keys. */
export interface PiCatalog {
  getProviders(): string[];
  getModels(provider: string): PiModel[];
  /** The API key pi-ai finds in the environment for a provider (`ANTHROPIC_API_KEY`, ...). */
  getEnvApiKey(provider: string): string | undefined;
  /** The names of the environment variables that hold a key for the provider, when set. */
  findEnvKeys(provider: string): string[] | undefined;
}

/** The APIs Arbor streams through, each loaded from its own pi-ai entry point. */
const API_LOADERS: Readonly<Record<string, () => Promise<PiStreamFunction>>> = {
  "openai-completions": async () => (await import("@mariozechner/pi-ai/openai-completions")).streamSimpleOpenAICompletions as PiStreamFunction,
  "openai-responses": async () => (await import("@mariozechner/pi-ai/openai-responses")).streamSimpleOpenAIResponses as PiStreamFunction,
  "azure-openai-responses": async () =>
    (await import("@mariozechner/pi-ai/azure-openai-responses")).streamSimpleAzureOpenAIResponses as PiStreamFunction,
  "openai-codex-responses": async () =>
    (await import("@mariozechner/pi-ai/openai-codex-responses")).streamSimpleOpenAICodexResponses as PiStreamFunction,
  "anthropic-messages": async () => (await import("@mariozechner/pi-ai/anthropic")).streamSimpleAnthropic as PiStreamFunction,
  "google-generative-ai": async () => (await import("@mariozechner/pi-ai/google")).streamSimpleGoogle as PiStreamFunction,
  "google-vertex": async () => (await import("@mariozechner/pi-ai/google-vertex")).streamSimpleGoogleVertex as PiStreamFunction,
  "mistral-conversations": async () => (await import("@mariozechner/pi-ai/mistral")).streamSimpleMistral as PiStreamFunction,
};

/**
 * The vendor SDK each API streams through, where that SDK lets Arbor check responses (see
 * endpoint-guard). Loading the SDK here yields the same module instance the API's module uses.
 */
const SDK_LOADERS: Readonly<Record<string, () => Promise<GuardableSdkClass>>> = {
  "openai-completions": loadOpenAiSdk,
  "openai-responses": loadOpenAiSdk,
  "azure-openai-responses": loadOpenAiSdk,
  "openai-codex-responses": loadOpenAiSdk,
  "anthropic-messages": async () => (await import("@anthropic-ai/sdk")).default as unknown as GuardableSdkClass,
};

async function loadOpenAiSdk(): Promise<GuardableSdkClass> {
  return (await import("openai")).default as unknown as GuardableSdkClass;
}

/** The APIs Arbor can stream through (Pi's others, such as Bedrock, would add megabytes of SDK). */
export const SUPPORTED_APIS: readonly string[] = Object.keys(API_LOADERS);

/** An API Arbor has no module for. */
export class UnsupportedApiError extends Error {
  constructor(readonly api: string) {
    super(`Arbor cannot talk to models of the "${api}" API yet (supported: ${SUPPORTED_APIS.join(", ")}).`);
    this.name = "UnsupportedApiError";
  }
}

/** Loads pi-ai's pieces on demand and remembers them. */
export interface PiAiLoader {
  catalog(): Promise<PiCatalog>;
  /** The stream function of an API; rejects with {@link UnsupportedApiError} for an API Arbor lacks. */
  streamFunction(api: string): Promise<PiStreamFunction>;
}

/** Caches each piece as a promise, so concurrent first uses load it once. */
class LazyPiAi implements PiAiLoader {
  private catalogPromise: Promise<PiCatalog> | undefined;
  private readonly streams = new Map<string, Promise<PiStreamFunction>>();

  catalog(): Promise<PiCatalog> {
    this.catalogPromise ??= import("@mariozechner/pi-ai").then((root) => root as unknown as PiCatalog);
    // A failed load (a broken install) is retried next time rather than cached forever.
    this.catalogPromise.catch(() => (this.catalogPromise = undefined));
    return this.catalogPromise;
  }

  streamFunction(api: string): Promise<PiStreamFunction> {
    let pending = this.streams.get(api);
    if (!pending) {
      const load = API_LOADERS[api];
      if (!load) return Promise.reject(new UnsupportedApiError(api));
      const loadSdk = SDK_LOADERS[api];
      pending = (async () => {
        if (loadSdk) installResponseGuard(await loadSdk());
        return load();
      })();
      pending.catch(() => this.streams.delete(api));
      this.streams.set(api, pending);
    }
    return pending;
  }
}

/** The process-wide loader (module instances are process-wide anyway). */
export const piAi: PiAiLoader = new LazyPiAi();
