import * as vscode from "vscode";
import type { AgentSessionConfig } from "../core/agent/agent-session";
import { customModel, StaticModelSource } from "../core/models/custom-models";
import { describePiModel, PiAiProvider } from "../core/models/pi-ai-provider";
import type { SessionManager } from "../core/session/session-manager";
import { SECTION } from "./settings";

/** The SecretStorage key of the API key for one endpoint (keys never go to settings). */
export function apiKeySecretName(baseUrl: string): string {
  return `arbor.apiKey:${baseUrl.replace(/\/+$/, "")}`;
}

interface ProviderSettings {
  id: string;
  baseUrl: string;
  model: string;
  contextWindow: number;
}

function readProviderSettings(): ProviderSettings | undefined {
  const c = vscode.workspace.getConfiguration(SECTION);
  const baseUrl = c.get<string>("model.baseUrl", "").trim();
  const model = c.get<string>("model.id", "").trim();
  if (!baseUrl || !model) return undefined;
  return { id: c.get<string>("model.provider", "openai").trim() || "openai", baseUrl, model, contextWindow: c.get<number>("model.contextWindow", 128000) };
}

/** Whether a model is configured (prompting, compaction and branch summaries need one). */
export function hasModelConfigured(): boolean {
  return readProviderSettings() !== undefined;
}

/**
 * What every agent session of this window gets: the configured OpenAI-compatible endpoint (its key
 * from SecretStorage), compaction settings, and no shell in an untrusted workspace.
 */
export function sessionConfig(secrets: vscode.SecretStorage, outputDirectory: string): (sm: SessionManager) => AgentSessionConfig {
  return () => {
    const c = vscode.workspace.getConfiguration(SECTION);
    const config: AgentSessionConfig = {
      allowShell: vscode.workspace.isTrusted,
      outputDirectory,
      compaction: {
        enabled: c.get<boolean>("compaction.enabled", true),
        reserveTokens: c.get<number>("compaction.reserveTokens", 16384),
        keepRecentTokens: c.get<number>("compaction.keepRecentTokens", 20000),
      },
    };
    const p = readProviderSettings();
    if (p) {
      const model = customModel({ provider: p.id, id: p.model, api: "openai-completions", baseUrl: p.baseUrl, contextWindow: p.contextWindow });
      const provider = new PiAiProvider({
        id: p.id,
        models: new StaticModelSource([model]),
        // pi-ai always sends a key; a local server without one gets a placeholder it ignores.
        resolveAuth: async () => ({ ok: true, apiKey: (await secrets.get(apiKeySecretName(p.baseUrl))) || "none" }),
      });
      config.providers = [provider];
      config.defaultModel = describePiModel(model);
    }
    return config;
  };
}

/** Asks for the API key of the configured endpoint and keeps it in SecretStorage. */
export async function promptForApiKey(secrets: vscode.SecretStorage): Promise<void> {
  const p = readProviderSettings();
  if (!p) {
    const open = "Open Settings";
    const choice = await vscode.window.showInformationMessage("Set arbor.model.baseUrl and arbor.model.id first (any OpenAI-compatible endpoint, local servers included).", open);
    if (choice === open) await vscode.commands.executeCommand("workbench.action.openSettings", "arbor.model");
    return;
  }
  const key = await vscode.window.showInputBox({ title: `API key for ${p.baseUrl}`, password: true, ignoreFocusOut: true, prompt: "Stored in VS Code's SecretStorage; empty removes it" });
  if (key === undefined) return;
  if (key) await secrets.store(apiKeySecretName(p.baseUrl), key);
  else await secrets.delete(apiKeySecretName(p.baseUrl));
}
