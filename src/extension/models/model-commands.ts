import * as vscode from "vscode";
import { isThinkingLevel } from "../../core/agent/model-selection";
import { formatModelKey, parseModelKey, type ModelKey } from "../../core/models/default-model";
import { THINKING_LEVELS, type ThinkingLevel } from "../../core/session/types";
import { registerCommandSet } from "../register-commands";
import type { SessionHost } from "../session-host";
import { addModel } from "./add-model";
import { ModelActions } from "./model-actions";
import { registerCycleCommands } from "./model-cycling";
import type { ModelEntry, ModelService } from "./model-service";
import { VSCODE_LM_PROVIDER } from "./vscode-lm-provider";
import { showPick } from "../quick-pick-probe";

/** The model commands; package.json contributes exactly these (with the rest of Arbor's). */
export const MODEL_COMMAND_IDS = ["arbor.selectModel", "arbor.setThinkingLevel", "arbor.setApiKey", "arbor.addModel", "arbor.importPiCredentials"] as const;

export interface ModelCommandDeps {
  host: SessionHost;
  models: ModelService;
  agentDir: () => string;
  log: vscode.LogOutputChannel;
}

const SOURCE_LABELS: Record<ModelEntry["source"], string> = {
  arbor: "Added in Arbor",
  "models.json": "Pi's models.json",
  "built-in": "Providers with a key",
  "vscode-lm": "VS Code chat models",
};

type ModelPick = vscode.QuickPickItem & ({ kind?: undefined; model?: ModelKey; provider?: string; addModel?: true } | { kind: vscode.QuickPickItemKind.Separator });

/** Registers Select Model..., Set Thinking Level..., Set API Key..., Add a Model... and Import Pi Credentials.... */
export function registerModelCommands(deps: ModelCommandDeps): vscode.Disposable[] {
  const { host, models } = deps;
  const actions = new ModelActions(host, models, deps.agentDir);

  const currentModel = (): ModelKey | undefined => {
    const model = host.session?.getModel() ?? models.defaultModel();
    return model ? { provider: model.provider, id: model.id } : undefined;
  };

  /** The quick pick of every usable model; providers without a key are offered one item each. */
  const pickModel = async (onlyProvider?: string): Promise<ModelKey | "add" | string | undefined> => {
    const entries = (await models.listModels({ userAction: true })).filter((entry) => !onlyProvider || entry.provider === onlyProvider);
    const current = currentModel();
    const items: ModelPick[] = [];
    const usable = entries.filter((entry) => !entry.keyMissing);
    for (const source of ["arbor", "models.json", "built-in", "vscode-lm"] as const) {
      const group = usable.filter((entry) => entry.source === source);
      if (group.length === 0) continue;
      items.push({ label: SOURCE_LABELS[source], kind: vscode.QuickPickItemKind.Separator });
      for (const entry of group) {
        const isCurrent = current?.provider === entry.provider && current.id === entry.id;
        items.push({
          label: `${isCurrent ? "$(check) " : ""}${entry.name}`,
          description: `${entry.providerName} · ${formatModelKey(entry)}`,
          detail: `${Math.round(entry.contextWindow / 1000)}k context · thinking: ${entry.thinkingLevels.join(", ")}${entry.keyFrom ? ` · key: ${entry.keyFrom}` : ""}`,
          model: { provider: entry.provider, id: entry.id },
        });
      }
    }
    if (onlyProvider === undefined) {
      const needingKeys = [...new Set(entries.filter((entry) => entry.keyMissing).map((entry) => entry.provider))];
      if (needingKeys.length > 0) items.push({ label: vscode.l10n.t("Need an API key"), kind: vscode.QuickPickItemKind.Separator });
      for (const provider of needingKeys) {
        const count = entries.filter((entry) => entry.provider === provider).length;
        items.push({ label: `$(key) ${models.providerName(provider)}`, description: count === 1 ? vscode.l10n.t("1 model") : vscode.l10n.t("{0} models", count), detail: vscode.l10n.t("Set an API key to use these models"), provider });
      }
      items.push({ label: "", kind: vscode.QuickPickItemKind.Separator }, { label: vscode.l10n.t("$(add) Add a Model..."), description: vscode.l10n.t("an API key, a local server such as Ollama, or VS Code's chat models"), addModel: true });
    }
    const picked = await showPick(items, {
      title: onlyProvider ? `Select a Model of ${models.providerName(onlyProvider)}` : "Select Model",
      placeHolder: vscode.l10n.t("Type to search the models"),
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked || picked.kind !== undefined) return undefined;
    if (picked.addModel) return "add";
    if (picked.provider) return picked.provider;
    return picked.model;
  };

  const selectModel = async (arg?: unknown): Promise<boolean> => {
    await models.ready;
    const given = modelKeyOf(arg);
    if (given) {
      // The chat's picker names the model; VS Code's models are looked up now, in answer to that click.
      if (given.provider === VSCODE_LM_PROVIDER) await models.refreshVsCodeModels();
      return actions.useModel(given);
    }
    const picked = await pickModel();
    if (picked === undefined) return false;
    if (picked === "add") return addModel(actions);
    if (typeof picked === "string") {
      if (!(await actions.promptForKey(picked))) return false;
      const model = await pickModel(picked);
      return model !== undefined && typeof model !== "string" ? actions.useModel(model) : false;
    }
    return actions.useModel(picked);
  };

  const setThinkingLevel = async (arg?: unknown): Promise<ThinkingLevel | undefined> => {
    await models.ready;
    const session = host.session;
    const model = session?.getModel() ?? models.defaultModel();
    const levels = model?.thinkingLevels ?? [...THINKING_LEVELS];
    let level: unknown = typeof arg === "string" ? arg : (arg as { level?: unknown } | undefined)?.level;
    if (level === undefined) {
      const current = session?.getThinkingLevel() ?? models.defaultThinkingLevel();
      const picked = await showPick(
        levels.map((l) => ({ label: `${l === current ? "$(check) " : ""}${l}`, level: l })),
        { title: vscode.l10n.t("Set Thinking Level"), placeHolder: model ? vscode.l10n.t("The levels {0} takes", model.name) : vscode.l10n.t("No model yet: the level new sessions start with") },
      );
      if (!picked) return undefined;
      level = picked.level;
    }
    if (!isThinkingLevel(level)) throw new Error(`Unknown thinking level ${JSON.stringify(level)}: use one of ${THINKING_LEVELS.join(", ")}.`);
    if (!session) {
      await vscode.workspace.getConfiguration("arbor.model").update("defaultThinkingLevel", level, vscode.ConfigurationTarget.Global);
      void vscode.window.showInformationMessage(vscode.l10n.t("No session is open: new sessions start at thinking level {0}.", level));
      return level;
    }
    session.setThinkingLevel(level);
    const applied = session.getThinkingLevel();
    if (applied !== level && model) void vscode.window.showInformationMessage(vscode.l10n.t("{0} takes the levels {1}: using {2}.", model.name, levels.join(", "), applied));
    return applied;
  };

  const setApiKey = async (arg?: unknown): Promise<boolean> => {
    await models.ready;
    let provider = typeof arg === "string" ? arg : (arg as { provider?: unknown } | undefined)?.provider;
    if (typeof provider !== "string" || provider === "") {
      const other = "$(edit) Another provider id...";
      const items = models
        .providers()
        .map((id) => ({ label: models.providerName(id), description: id, detail: models.keyFrom(id) ? `Key from ${models.keyFrom(id)}` : "No key", id }))
        .sort((a, b) => Number(Boolean(models.keyFrom(b.id))) - Number(Boolean(models.keyFrom(a.id))) || a.label.localeCompare(b.label));
      const picked = await showPick([...items, { label: other, description: "", detail: vscode.l10n.t("A provider of your models.json"), id: "" }], {
        title: vscode.l10n.t("Set API Key"),
        placeHolder: vscode.l10n.t("The provider whose key to set"),
        matchOnDescription: true,
      });
      if (!picked) return false;
      provider = picked.label === other ? await vscode.window.showInputBox({ title: vscode.l10n.t("Provider id"), prompt: vscode.l10n.t("As models.json names it") }) : picked.id;
      if (!provider) return false;
    }
    return actions.promptForKey(provider as string);
  };

  const handlers: Record<(typeof MODEL_COMMAND_IDS)[number], (...args: unknown[]) => unknown> = {
    "arbor.selectModel": selectModel,
    "arbor.setThinkingLevel": setThinkingLevel,
    "arbor.setApiKey": setApiKey,
    "arbor.addModel": () => addModel(actions),
    "arbor.importPiCredentials": () => actions.importPiCredentials(),
  };
  return [...registerCommandSet(MODEL_COMMAND_IDS, handlers, deps.log), ...registerCycleCommands(host, models, actions, deps.log)];
}

/** `{provider, id}` (or `{provider, modelId}`, or "provider/id") given to Select Model. */
function modelKeyOf(arg: unknown): ModelKey | undefined {
  if (typeof arg === "string") return parseModelKey(arg);
  const record = arg as { provider?: unknown; id?: unknown; modelId?: unknown } | undefined;
  const id = record?.id ?? record?.modelId;
  return typeof record?.provider === "string" && typeof id === "string" ? { provider: record.provider, id } : undefined;
}
