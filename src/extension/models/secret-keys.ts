import * as vscode from "vscode";
import type { StoredKeys } from "../../core/models/credentials";

/** Where a store keeps its secrets ("arbor.apiKey/<provider>") and the list of their providers. */
export interface SecretNames {
  prefix: string;
  index: string;
}

/** The API keys' names (unchanged since the first release). */
export const API_KEY_NAMES: SecretNames = { prefix: "arbor.apiKey/", index: "arbor.apiKeyProviders" };
/** Subscription logins: pi-ai's OAuth credentials as JSON. */
export const LOGIN_NAMES: SecretNames = { prefix: "arbor.oauth/", index: "arbor.oauthProviders" };

/**
 * API keys the user entered in Arbor (or imported from Pi's auth.json), one SecretStorage entry per
 * provider. SecretStorage cannot list its entries, so the provider ids that have one are kept in
 * globalState (ids only, never keys) for quick "is there a key" checks in model lists.
 */
export class SecretKeyStore implements StoredKeys, vscode.Disposable {
  private readonly providers: Set<string>;
  private readonly changed = new vscode.EventEmitter<string>();
  /** A provider's key was set or removed (in this window or another). */
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
    private readonly names: SecretNames = API_KEY_NAMES,
  ) {
    this.providers = new Set(state.get<string[]>(names.index, []));
    // Another window changed a key: bring the index up to date.
    this.subscription = secrets.onDidChange((event) => {
      if (!event.key.startsWith(names.prefix)) return;
      const provider = event.key.slice(names.prefix.length);
      void secrets.get(event.key).then((key) => this.note(provider, Boolean(key)));
    });
  }

  /** Drops index entries whose secret is gone (removed outside Arbor, or another profile). */
  async verify(): Promise<void> {
    for (const provider of [...this.providers]) {
      const key = await this.secrets.get(this.names.prefix + provider);
      if (!key) await this.note(provider, false);
    }
  }

  has(provider: string): boolean {
    return this.providers.has(provider);
  }

  async get(provider: string): Promise<string | undefined> {
    return (await this.secrets.get(this.names.prefix + provider)) || undefined;
  }

  /** Stores a key; an empty key removes it. */
  async set(provider: string, key: string): Promise<void> {
    if (key) await this.secrets.store(this.names.prefix + provider, key);
    else await this.secrets.delete(this.names.prefix + provider);
    await this.note(provider, Boolean(key));
  }

  /** The providers that have a key, for display. */
  list(): string[] {
    return [...this.providers].sort();
  }

  private async note(provider: string, present: boolean): Promise<void> {
    const had = this.providers.has(provider);
    if (present) this.providers.add(provider);
    else this.providers.delete(provider);
    if (had === present) return;
    await this.state.update(this.names.index, [...this.providers]);
    this.changed.fire(provider);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
