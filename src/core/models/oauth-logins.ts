/**
 * Subscription logins (Claude Pro/Max, ChatGPT through OpenAI Codex, GitHub Copilot), run with
 * pi-ai's own OAuth helpers, the ones Pi's `/login` runs. The credentials pi-ai returns are kept as
 * JSON in a secret store (VS Code's SecretStorage in the extension), one entry per provider, and
 * turned into the key of each call: refreshed first when they expire (pi-ai sets `expires` a few
 * minutes early), once at a time per provider, the refreshed ones stored again.
 *
 * Pure core: no `vscode`. pi-ai's OAuth module is loaded with import() on first use (see
 * pi-ai-modules.ts); tests hand in providers of their own.
 */
import type { OAuthCredentials, OAuthLoginCallbacks, OAuthProviderInterface } from "@mariozechner/pi-ai/oauth" with { "resolution-mode": "import" };
import type { PiModel } from "./pi-ai-modules";

export type { OAuthCredentials, OAuthLoginCallbacks, OAuthProviderInterface };

/** Where the credentials live: one secret per provider id (JSON text). */
export interface OAuthSecretStore {
  get(provider: string): Promise<string | undefined>;
  /** Stores the text; an empty text removes the entry. */
  set(provider: string, value: string): Promise<void>;
  /** Without reading the secret (a quick check for model lists). */
  has(provider: string): boolean;
  list(): string[];
}

/** pi-ai's OAuth registry, as Arbor uses it. */
export interface OAuthProviderSource {
  getOAuthProviders(): OAuthProviderInterface[];
}

/** Loads pi-ai's OAuth module (a lazily loaded chunk in the bundle). */
export async function loadPiOAuth(): Promise<OAuthProviderSource> {
  return await import("@mariozechner/pi-ai/oauth");
}

/** Credentials as pi-ai returns them and Pi's auth.json keeps them (`refresh`, `access`, `expires`, more). */
export function isOAuthCredentials(x: unknown): x is OAuthCredentials {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const c = x as Record<string, unknown>;
  return typeof c.access === "string" && c.access !== "" && typeof c.refresh === "string" && typeof c.expires === "number" && Number.isFinite(c.expires);
}

/** pi-ai's error in one short line (its messages carry a stack after "; stack="). */
function shortError(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.replace(/; stack=.*$/, "").replace(/^(?:Error: )+/, "");
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
}

export class OAuthLogins {
  private providersPromise: Promise<OAuthProviderInterface[]> | undefined;
  /** Refreshes under way, so concurrent calls refresh once. */
  private readonly refreshing = new Map<string, Promise<OAuthCredentials>>();

  constructor(
    private readonly store: OAuthSecretStore,
    private readonly source: () => Promise<OAuthProviderSource> = loadPiOAuth,
    private readonly now: () => number = Date.now,
  ) {}

  /** The providers a user can log in to, in pi-ai's order. */
  async providers(): Promise<OAuthProviderInterface[]> {
    this.providersPromise ??= this.source().then((s) => s.getOAuthProviders());
    return this.providersPromise;
  }

  async provider(id: string): Promise<OAuthProviderInterface | undefined> {
    return (await this.providers()).find((p) => p.id === id);
  }

  /** Whether the user is logged in to this provider (no secret is read). */
  has(provider: string): boolean {
    return this.store.has(provider);
  }

  /** The providers the user is logged in to. */
  loggedIn(): string[] {
    return this.store.list();
  }

  /** Runs the provider's login flow and stores what it returns; rejects when it fails or is cancelled. */
  async login(id: string, callbacks: OAuthLoginCallbacks): Promise<void> {
    const provider = await this.provider(id);
    if (!provider) throw new Error(`There is no subscription login for provider "${id}".`);
    const credentials = await provider.login(callbacks);
    if (!isOAuthCredentials(credentials)) throw new Error(`The login to ${provider.name} returned no usable credentials.`);
    await this.save(id, credentials);
  }

  /** Stores credentials from elsewhere (Pi's auth.json); false when they are not pi-ai's shape. */
  async import(id: string, credentials: unknown): Promise<boolean> {
    if (!isOAuthCredentials(credentials)) return false;
    await this.save(id, credentials);
    return true;
  }

  async logout(id: string): Promise<void> {
    this.refreshing.delete(id);
    await this.store.set(id, "");
  }

  /**
   * The key for a call to the provider, refreshed first when the stored credentials have expired;
   * undefined when the user is not logged in. A refresh that fails rejects with what to do.
   */
  async apiKey(id: string): Promise<string | undefined> {
    const credentials = await this.current(id);
    if (!credentials) return undefined;
    const provider = await this.provider(id);
    if (!provider) return undefined;
    return provider.getApiKey(credentials);
  }

  /** The model as the provider's credentials say to call it (GitHub Copilot's base URL comes from its token). */
  async adjustModel(model: PiModel): Promise<PiModel> {
    if (!this.has(model.provider)) return model;
    const provider = await this.provider(model.provider);
    const credentials = await this.current(model.provider);
    if (!provider?.modifyModels || !credentials) return model;
    return provider.modifyModels([model], credentials)[0] ?? model;
  }

  private async current(id: string): Promise<OAuthCredentials | undefined> {
    if (!this.store.has(id)) return undefined;
    const text = await this.store.get(id);
    if (!text) return undefined;
    let credentials: unknown;
    try {
      credentials = JSON.parse(text);
    } catch {
      credentials = undefined;
    }
    if (!isOAuthCredentials(credentials)) throw new Error(`The stored login for "${id}" is unreadable. Run "Arbor: Log In..." again.`);
    if (this.now() < credentials.expires) return credentials;
    return this.refresh(id, credentials);
  }

  private refresh(id: string, credentials: OAuthCredentials): Promise<OAuthCredentials> {
    let pending = this.refreshing.get(id);
    if (!pending) {
      pending = (async () => {
        const provider = await this.provider(id);
        if (!provider) throw new Error(`There is no subscription login for provider "${id}".`);
        let fresh: OAuthCredentials;
        try {
          fresh = await provider.refreshToken(credentials);
        } catch (error) {
          throw new Error(`The ${provider.name} login has expired and could not be renewed (${shortError(error)}). Run "Arbor: Log In..." again.`);
        }
        if (!isOAuthCredentials(fresh)) throw new Error(`Renewing the ${provider.name} login returned no usable credentials. Run "Arbor: Log In..." again.`);
        // A logout while the refresh ran wins: nothing is stored again.
        if (this.refreshing.get(id) === pending) await this.save(id, fresh);
        return fresh;
      })();
      this.refreshing.set(id, pending);
      const clear = (): void => {
        if (this.refreshing.get(id) === pending) this.refreshing.delete(id);
      };
      pending.then(clear, clear);
    }
    return pending;
  }

  private async save(id: string, credentials: OAuthCredentials): Promise<void> {
    await this.store.set(id, JSON.stringify(credentials));
  }
}
