/**
 * The API key and headers of one model call, found where Pi finds them, in Pi's order:
 *
 * 1. a key the user stored for the provider (in Arbor: VS Code's SecretStorage, entered with
 *    "Arbor: Set API Key..." or imported from Pi's auth.json; in Pi: auth.json);
 * 2. the environment variable pi-ai knows for the provider (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, ...);
 * 3. the provider's `apiKey` in models.json (a key, an environment variable's name, or `!command`).
 *
 * Headers: the model's own, then the provider's and the model's from models.json (values resolved the
 * same way), and `Authorization: Bearer <key>` when the provider sets `authHeader`.
 *
 * Pure core: no `vscode`. Keys never leave this module except into the request.
 */

import { resolveConfigValue, resolveHeaders, type ConfigValueOptions } from "./config-value";
import type { ModelRegistry } from "./model-registry";
import type { PiCatalog, PiModel } from "./pi-ai-modules";
import type { RequestAuth } from "./pi-ai-provider";

/** Keys the user stored in Arbor, per provider id. */
export interface StoredKeys {
  get(provider: string): Promise<string | undefined>;
  /** Without reading the secret (a quick check for lists). */
  has(provider: string): boolean;
  /** Whether the provider's stored credential is a subscription login rather than an API key. */
  isLogin?(provider: string): boolean;
  /** The base URL a call should go to when the stored login says (GitHub Copilot's comes from its token). */
  baseUrlFor?(model: PiModel): Promise<string | undefined>;
}

/** Where a provider's key comes from, for display; never the key itself. */
export type KeySource =
  | { kind: "stored" }
  /** A subscription login ("Arbor: Log In..."). */
  | { kind: "login" }
  | { kind: "environment"; variable: string }
  /** Credentials the environment provides without a key variable (Google ADC, AWS profiles). */
  | { kind: "ambient" }
  | { kind: "models.json"; command: boolean };

export class CredentialResolver {
  constructor(
    private readonly registry: ModelRegistry,
    private readonly env: Pick<PiCatalog, "getEnvApiKey" | "findEnvKeys">,
    private readonly stored: StoredKeys,
    private readonly valueOptions: () => ConfigValueOptions,
    /** Appended to the "no key" error: how to add one in this host. */
    private readonly missingKeyHint: (provider: string) => string = () => "",
  ) {}

  /** Where the provider's key would come from, or undefined when there is none. Runs no command. */
  keySource(provider: string): KeySource | undefined {
    if (this.stored.has(provider)) return this.stored.isLogin?.(provider) ? { kind: "login" } : { kind: "stored" };
    const variable = this.env.findEnvKeys(provider)?.[0];
    if (variable) return { kind: "environment", variable };
    if (this.env.getEnvApiKey(provider)) return { kind: "ambient" };
    const configured = this.registry.requestConfig(provider)?.apiKey;
    if (configured !== undefined) return { kind: "models.json", command: configured.startsWith("!") };
    return undefined;
  }

  /** Whether calls to this model would carry credentials (Pi lists only such models as available). */
  hasConfiguredAuth(model: Pick<PiModel, "provider">): boolean {
    return this.keySource(model.provider) !== undefined;
  }

  /** The key and headers for one call (see the module comment for the order). */
  async resolve(model: PiModel): Promise<RequestAuth> {
    const provider = model.provider;
    const config = this.registry.requestConfig(provider);
    const options = this.valueOptions();
    try {
      const stored = this.stored.has(provider) ? await this.stored.get(provider) : undefined;
      const apiKey =
        stored ||
        this.env.getEnvApiKey(provider) ||
        (config?.apiKey ? await resolveConfigValue(config.apiKey, `API key of provider "${provider}"`, options) : undefined);
      const providerHeaders = await resolveHeaders(config?.headers, `provider "${provider}"`, options);
      const modelHeaders = await resolveHeaders(this.registry.modelRequestHeaders(provider, model.id), `model "${provider}/${model.id}"`, options);
      let headers = model.headers || providerHeaders || modelHeaders ? { ...model.headers, ...providerHeaders, ...modelHeaders } : undefined;
      if (!apiKey) {
        const hint = this.missingKeyHint(provider);
        return { ok: false, error: `No API key for provider "${provider}".${hint ? ` ${hint}` : ""}` };
      }
      if (config?.authHeader) {
        headers = { ...headers, Authorization: `Bearer ${apiKey}` };
      }
      const baseUrl = stored && this.stored.baseUrlFor ? await this.stored.baseUrlFor(model) : undefined;
      return { ok: true, apiKey, headers: headers && Object.keys(headers).length > 0 ? headers : undefined, ...(baseUrl && baseUrl !== model.baseUrl ? { baseUrl } : {}) };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}

