import * as vscode from "vscode";
import { join } from "node:path";
import { AgentError } from "../../core/agent/errors";
import { formatModelKey, type ModelKey } from "../../core/models/default-model";
import { readPiAuthFile } from "../../core/models/pi-auth-file";
import type { SessionHost } from "../session-host";
import type { ModelService } from "./model-service";

/** The steps the model commands share: using a model, asking for a key, importing Pi's keys. */
export class ModelActions {
  constructor(
    private readonly host: SessionHost,
    readonly models: ModelService,
    private readonly agentDir: () => string,
  ) {}

  /**
   * Makes a model the current session's (recorded as Pi records a model change) and the default for
   * new sessions. A model whose key is missing asks for the key first. Returns whether it was used.
   */
  async useModel(key: ModelKey): Promise<boolean> {
    await this.models.ready;
    const info = this.models.describe(key);
    if (!info) throw new Error(`Arbor does not know the model ${formatModelKey(key)}. Run "Arbor: Add a Model..." to set it up.`);
    if (this.models.findEntry(key)?.keyMissing && !(await this.promptForKey(key.provider, `${info.name} needs an API key for ${this.models.providerName(key.provider)}.`))) {
      return false;
    }
    // The session first, then the remembered default: a session that never chose a model follows the
    // default, so remembering first would make it already "be" on the new model, and setModel would
    // see no change (no model_select for extensions, and the wrong previousModel).
    const session = this.host.session;
    if (session && !session.isDisposed()) {
      try {
        session.setModel(info);
      } catch (error) {
        if (error instanceof AgentError) throw new Error(`Could not use ${info.name}: ${error.message}`);
        throw error;
      }
    }
    await this.models.rememberSelection(key);
    vscode.window.setStatusBarMessage(`$(sparkle) Model: ${info.name}`, 4000);
    return true;
  }

  /** Asks for a provider's key and stores it (empty removes it). Returns whether a key was stored. */
  async promptForKey(provider: string, reason?: string): Promise<boolean> {
    await this.models.ready;
    const name = this.models.providerName(provider);
    const from = this.models.keyFrom(provider);
    const key = await vscode.window.showInputBox({
      title: vscode.l10n.t("API key for {0}", name),
      prompt: [reason, `Kept in VS Code's secret storage, never in settings, logs or session files.${from ? ` Now: ${from}.` : ""} Empty removes the stored key.`].filter(Boolean).join(" "),
      password: true,
      ignoreFocusOut: true,
      placeHolder: vscode.l10n.t("Paste the key"),
    });
    if (key === undefined) return false;
    const trimmed = key.trim();
    await this.models.keys.set(provider, trimmed);
    void vscode.window.showInformationMessage(trimmed ? vscode.l10n.t("Stored the API key for {0}.", name) : vscode.l10n.t("Removed the API key stored for {0}.", name));
    return trimmed !== "";
  }

  /** Pi's auth.json in the agent folder. */
  piAuthFile(): string {
    return join(this.agentDir(), "auth.json");
  }

  /**
   * Imports the API keys and subscription logins of Pi's auth.json into SecretStorage after a
   * confirmation that names the file, the providers, what it replaces and what it skips. Returns how
   * many entries were imported.
   */
  async importPiCredentials(): Promise<number> {
    await this.models.ready;
    const file = this.piAuthFile();
    const entries = await readPiAuthFile(file);
    const loginIds = new Set((await this.models.credentials.logins.providers().catch(() => [])).map((p) => p.id));
    const skipped = entries.flatMap((entry) => (entry.importable ? [] : [`${entry.provider} (${entry.reason})`]));
    const importable = entries.flatMap((entry) => {
      if (!entry.importable) return [];
      if (entry.login && !loginIds.has(entry.provider)) {
        skipped.push(`${entry.provider} (a subscription login this version of Arbor cannot use)`);
        return [];
      }
      return [entry];
    });
    if (importable.length === 0) {
      void vscode.window.showInformationMessage(
        skipped.length ? vscode.l10n.t("{0} holds no API keys or logins Arbor can import. Skipped: {1}.", file, skipped.join("; ")) : vscode.l10n.t("{0} holds no API keys or logins Arbor can import.", file),
      );
      return 0;
    }
    const keys = importable.filter((entry) => entry.key !== undefined);
    const logins = importable.filter((entry) => entry.login !== undefined);
    const names = (list: typeof importable): string => list.map((entry) => this.models.providerName(entry.provider)).join(", ");
    const replacing = importable.filter((entry) => (entry.login ? this.models.credentials.isLogin(entry.provider) : this.models.keys.has(entry.provider)));
    const detail = [
      keys.length > 0 ? `API keys for: ${names(keys)}.` : "",
      logins.length > 0 ? `Subscription logins for: ${names(logins)} (renewed by Arbor when they expire).` : "",
      replacing.length > 0 ? `This replaces what Arbor has stored for: ${names(replacing)}.` : "",
      skipped.length > 0 ? `Skipped: ${skipped.join("; ")}.` : "",
      "They are copied into VS Code's secret storage; the file is not changed.",
    ]
      .filter(Boolean)
      .join("\n");
    const importLabel = vscode.l10n.t("Import");
    const question =
      logins.length === 0
        ? keys.length === 1
          ? vscode.l10n.t("Import 1 API key from {0}?", file)
          : vscode.l10n.t("Import {0} API keys from {1}?", keys.length, file)
        : importable.length === 1
          ? vscode.l10n.t("Import 1 login from {0}?", file)
          : vscode.l10n.t("Import {0} keys and logins from {1}?", importable.length, file);
    const choice = await vscode.window.showWarningMessage(question, { modal: true, detail }, importLabel);
    if (choice !== importLabel) return 0;
    for (const entry of importable) {
      if (entry.login) await this.models.credentials.logins.import(entry.provider, entry.login);
      else await this.models.keys.set(entry.provider, entry.key);
    }
    void vscode.window.showInformationMessage(vscode.l10n.t("Imported the credentials for {0} from {1}.", names(importable), file));
    return importable.length;
  }
}
