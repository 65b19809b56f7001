import * as vscode from "vscode";
import type { StoredKeys } from "../../core/models/credentials";
import { OAuthLogins } from "../../core/models/oauth-logins";
import type { PiModel } from "../../core/models/pi-ai-modules";
import { LOGIN_NAMES, SecretKeyStore } from "./secret-keys";

/**
 * What the user stored in Arbor for a provider, as the model calls see it: a subscription login
 * ("Arbor: Log In...", refreshed before it expires) wins over an API key ("Arbor: Set API Key..."),
 * as Pi's `/login` replaces a key in auth.json. Both live only in VS Code's SecretStorage.
 */
export class StoredCredentials implements StoredKeys, vscode.Disposable {
  readonly loginSecrets: SecretKeyStore;
  readonly logins: OAuthLogins;
  /** A key or a login was added or removed. */
  readonly onDidChange: vscode.Event<string>;
  private readonly changed = new vscode.EventEmitter<string>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    readonly keys: SecretKeyStore,
    secrets: vscode.SecretStorage,
    state: vscode.Memento,
  ) {
    this.loginSecrets = new SecretKeyStore(secrets, state, LOGIN_NAMES);
    this.logins = new OAuthLogins(this.loginSecrets);
    this.onDidChange = this.changed.event;
    this.subscriptions = [this.loginSecrets, this.changed, keys.onDidChange((p) => this.changed.fire(p)), this.loginSecrets.onDidChange((p) => this.changed.fire(p))];
  }

  async verify(): Promise<void> {
    await Promise.all([this.keys.verify(), this.loginSecrets.verify()]);
  }

  has(provider: string): boolean {
    return this.logins.has(provider) || this.keys.has(provider);
  }

  isLogin(provider: string): boolean {
    return this.logins.has(provider);
  }

  async get(provider: string): Promise<string | undefined> {
    if (this.logins.has(provider)) return this.logins.apiKey(provider);
    return this.keys.get(provider);
  }

  async baseUrlFor(model: PiModel): Promise<string | undefined> {
    if (!this.logins.has(model.provider)) return undefined;
    return (await this.logins.adjustModel(model)).baseUrl;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
