import * as vscode from "vscode";
import { existsSync } from "node:fs";
import { readAtMost } from "../../core/models/endpoint-guard";
import { addLocalModel, type LocalServerSpec } from "./arbor-models-file";
import type { ModelActions } from "./model-actions";
import { NO_VSCODE_MODELS_MESSAGE, VSCODE_LM_PROVIDER } from "./vscode-lm-provider";
import { reportQuickPick, showPick } from "../quick-pick-probe";

/** Local OpenAI-compatible servers and where they listen by default. */
const LOCAL_SERVERS: readonly { label: string; provider: string; baseUrl: string }[] = [
  { label: "Ollama", provider: "ollama", baseUrl: "http://127.0.0.1:11434/v1" },
  { label: "LM Studio", provider: "lmstudio", baseUrl: "http://127.0.0.1:1234/v1" },
  { label: "vLLM", provider: "vllm", baseUrl: "http://127.0.0.1:8000/v1" },
  { label: "llama.cpp server", provider: "llama-cpp", baseUrl: "http://127.0.0.1:8080/v1" },
];

type Route = "local" | "key" | "vscode" | "endpoint" | "import";

/** A model found ready to use when Add a Model opens: one of VS Code's chat models, or one a local server runs. */
type Ready = { provider: typeof VSCODE_LM_PROVIDER; id: string } | { server: (typeof LOCAL_SERVERS)[number]; id: string };

type AddItem = vscode.QuickPickItem & { route?: Route; ready?: Ready };

/** How long a local server may take to list its models before Add a Model stops waiting for it. */
const PROBE_TIMEOUT_MS = 1500;

/**
 * "Add a Model...": the one path for a user without a model. Models that are ready now (VS Code's
 * chat models, the models of a local server running on its usual port) are offered at the top, and
 * one pick uses them: one step. Otherwise one question (what kind), then the fewest steps that kind
 * needs: a local server is probed for its models; a provider gets its key and a model; VS Code's own
 * chat models are listed; Pi's keys can be imported. The model added is selected for the current
 * session. Returns whether a model was set up.
 */
export async function addModel(actions: ModelActions): Promise<boolean> {
  const models = actions.models;
  await models.ready;
  const routes: AddItem[] = [
    { label: vscode.l10n.t("$(server) A local server"), description: "Ollama, LM Studio, vLLM, llama.cpp", detail: vscode.l10n.t("No account or key; the model runs on this machine"), route: "local" },
    { label: vscode.l10n.t("$(key) A provider with an API key"), description: vscode.l10n.t("Anthropic, OpenAI, Google, Mistral, OpenRouter, Groq, xAI..."), detail: vscode.l10n.t("Paste the key once; it stays in VS Code's secret storage"), route: "key" },
    { label: vscode.l10n.t("$(copilot) VS Code's chat models"), description: vscode.l10n.t("GitHub Copilot and other extensions' models"), detail: vscode.l10n.t("The models you already use in VS Code"), route: "vscode" },
    { label: vscode.l10n.t("$(globe) Another OpenAI-compatible endpoint"), description: vscode.l10n.t("any /v1/chat/completions server"), detail: vscode.l10n.t("A base URL, an optional key and a model id"), route: "endpoint" },
  ];
  if (existsSync(actions.piAuthFile())) {
    routes.push({ label: vscode.l10n.t("$(cloud-download) Import your Pi API keys"), description: actions.piAuthFile(), detail: vscode.l10n.t("Copies the keys of Pi's auth.json into VS Code's secret storage"), route: "import" });
  }
  const picked = await pickWithReadyModels(actions, routes);
  if (picked?.ready) return useReady(actions, picked.ready);
  switch (picked?.route) {
    case "local":
      return addLocalServer(actions);
    case "key":
      return addKeyedProvider(actions);
    case "vscode":
      return addVsCodeModel(actions);
    case "endpoint":
      return addEndpoint(actions);
    case "import":
      return (await actions.importPiCredentials()) > 0 && (await vscode.commands.executeCommand<boolean>("arbor.selectModel")) === true;
    default:
      return false;
  }
}

/**
 * The first list of Add a Model: the routes at once, and the ready models above them as they are
 * found (the user opened this list, so VS Code's chat models may be looked up now).
 */
async function pickWithReadyModels(actions: ModelActions, routes: AddItem[]): Promise<AddItem | undefined> {
  const pick = vscode.window.createQuickPick<AddItem>();
  pick.title = "Add a Model";
  pick.placeholder = "Pick a model that is ready, or where the model should come from";
  pick.ignoreFocusOut = true;
  pick.matchOnDescription = true;
  pick.items = routes;
  pick.busy = true;
  actions.models.lastAddModelOffer = undefined;
  const reported = reportQuickPick(pick);
  const ready: AddItem[] = [];
  const show = (found: AddItem[]): void => {
    ready.push(...found);
    if (ready.length === 0) return;
    const separator = (label: string): AddItem => ({ label, kind: vscode.QuickPickItemKind.Separator });
    pick.items = [separator("Ready to use"), ...ready, separator("Or set one up"), ...routes];
  };
  const probes = [
    actions.models.refreshVsCodeModels().then((found) =>
      show(found.map((model) => ({ label: `$(copilot) ${model.name}`, description: vscode.l10n.t("VS Code chat model"), detail: vscode.l10n.t("Use it now (VS Code may ask whether Arbor may use it)"), ready: { provider: VSCODE_LM_PROVIDER, id: model.id } }))),
    ),
    ...LOCAL_SERVERS.map((server) =>
      listServerModels(server.baseUrl, undefined, PROBE_TIMEOUT_MS).then((found) =>
        show(typeof found === "string" ? [] : found.map((id) => ({ label: `$(server) ${id}`, description: `${server.label} · ${server.baseUrl}`, detail: vscode.l10n.t("Running on this machine: use it now"), ready: { server, id } }))),
      ),
    ),
  ];
  void Promise.allSettled(probes).then(() => {
    pick.busy = false;
    actions.models.lastAddModelOffer = pick.items.filter((item) => item.kind !== vscode.QuickPickItemKind.Separator).map((item) => item.label);
  });
  try {
    return await new Promise<AddItem | undefined>((resolve) => {
      pick.onDidAccept(() => resolve(pick.selectedItems[0]));
      pick.onDidHide(() => resolve(undefined));
      pick.show();
    });
  } finally {
    reported.dispose();
    pick.dispose();
  }
}

/** Uses a model found ready: a VS Code chat model as it is, a local server's model added to Arbor's models file first. */
async function useReady(actions: ModelActions, ready: Ready): Promise<boolean> {
  if (!("server" in ready)) return actions.useModel(ready);
  const added = await addLocalModel(actions.models, { provider: ready.server.provider, name: ready.server.label, baseUrl: ready.server.baseUrl, modelId: ready.id });
  return actions.useModel(added);
}

async function addLocalServer(actions: ModelActions): Promise<boolean> {
  const picked = await showPick(
    [...LOCAL_SERVERS.map((server) => ({ label: server.label, description: server.baseUrl, server })), { label: vscode.l10n.t("Another address..."), description: "", server: undefined }],
    { title: vscode.l10n.t("Add a Model: Local Server"), placeHolder: vscode.l10n.t("Which server?"), ignoreFocusOut: true },
  );
  if (!picked) return false;
  let server = picked.server;
  if (!server) {
    const baseUrl = await askBaseUrl("http://127.0.0.1:8080/v1");
    if (!baseUrl) return false;
    server = { label: new URL(baseUrl).host, provider: providerIdFor(baseUrl), baseUrl };
  }
  return addFromServer(actions, { provider: server.provider, name: server.label, baseUrl: server.baseUrl });
}

async function addEndpoint(actions: ModelActions): Promise<boolean> {
  const baseUrl = await askBaseUrl("https://");
  if (!baseUrl) return false;
  const provider = await vscode.window.showInputBox({
    title: vscode.l10n.t("Add a Model: Provider Id"),
    prompt: vscode.l10n.t("A short name for this endpoint, recorded in sessions (letters, digits, - and _)"),
    value: providerIdFor(baseUrl),
    ignoreFocusOut: true,
    validateInput: (value) => (/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(value) ? undefined : "Use letters, digits, '.', '-' and '_'"),
  });
  if (!provider) return false;
  const key = await vscode.window.showInputBox({ title: vscode.l10n.t("Add a Model: API Key for {0}", provider), prompt: vscode.l10n.t("Kept in VS Code's secret storage. Leave empty if the endpoint needs none."), password: true, ignoreFocusOut: true });
  if (key === undefined) return false;
  if (key.trim()) await actions.models.keys.set(provider, key.trim());
  return addFromServer(actions, { provider, name: provider, baseUrl, apiKey: key.trim() || undefined });
}

/** Lists the server's models (GET /models), lets the user pick one (or type an id), writes it to Arbor's models file and selects it. */
async function addFromServer(actions: ModelActions, spec: Omit<LocalServerSpec, "modelId"> & { apiKey?: string }): Promise<boolean> {
  const listed = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t("Asking {0} for its models…", spec.baseUrl) }, () => listServerModels(spec.baseUrl, spec.apiKey));
  let modelId: string | undefined;
  if (typeof listed === "string" || listed.length === 0) {
    modelId = await vscode.window.showInputBox({
      title: vscode.l10n.t("Add a Model: Model Id"),
      prompt: typeof listed === "string" ? `${listed} Type the model's id to add it anyway.` : "The server lists no models. Type the id of the model to use.",
      ignoreFocusOut: true,
    });
  } else {
    modelId = (await showPick(listed.map((label) => ({ label })), { title: vscode.l10n.t("Add a Model: {0}", spec.name), placeHolder: vscode.l10n.t("Which model?"), ignoreFocusOut: true }))?.label;
  }
  if (!modelId) return false;
  const added = await addLocalModel(actions.models, { ...spec, modelId });
  return actions.useModel(added);
}

async function addKeyedProvider(actions: ModelActions): Promise<boolean> {
  const models = actions.models;
  const providers = [...new Set(models.entries().filter((entry) => entry.source === "built-in").map((entry) => entry.provider))];
  const picked = await showPick(
    providers.map((provider) => ({ label: models.providerName(provider), description: provider, detail: models.keyFrom(provider) ? `Key from ${models.keyFrom(provider)}` : undefined, provider })),
    { title: vscode.l10n.t("Add a Model: Provider"), placeHolder: vscode.l10n.t("Whose models?"), matchOnDescription: true, ignoreFocusOut: true },
  );
  if (!picked) return false;
  if (!models.keyFrom(picked.provider) && !(await actions.promptForKey(picked.provider))) return false;
  return pickAndUse(actions, picked.provider);
}

async function addVsCodeModel(actions: ModelActions): Promise<boolean> {
  const found = await actions.models.refreshVsCodeModels();
  if (found.length === 0) {
    void vscode.window.showInformationMessage(NO_VSCODE_MODELS_MESSAGE);
    return false;
  }
  return pickAndUse(actions, VSCODE_LM_PROVIDER);
}

/** A quick pick of one provider's models, then uses the one picked. */
async function pickAndUse(actions: ModelActions, provider: string): Promise<boolean> {
  const entries = actions.models.entries().filter((entry) => entry.provider === provider);
  const picked = await showPick(
    entries.map((entry) => ({ label: entry.name, description: entry.id, detail: vscode.l10n.t("{0}k context · thinking: {1}", Math.round(entry.contextWindow / 1000), entry.thinkingLevels.join(", ")), entry })),
    { title: vscode.l10n.t("Add a Model: {0}", actions.models.providerName(provider)), placeHolder: vscode.l10n.t("Which model?"), matchOnDescription: true, ignoreFocusOut: true },
  );
  return picked ? actions.useModel({ provider, id: picked.entry.id }) : false;
}

async function askBaseUrl(value: string): Promise<string | undefined> {
  const url = await vscode.window.showInputBox({
    title: vscode.l10n.t("Add a Model: Base URL"),
    prompt: vscode.l10n.t("The API root, the part before /chat/completions (e.g. http://127.0.0.1:11434/v1)"),
    value,
    ignoreFocusOut: true,
    validateInput: (text) => {
      try {
        const parsed = new URL(text);
        return parsed.protocol === "http:" || parsed.protocol === "https:" ? undefined : "Use an http:// or https:// URL";
      } catch {
        return "Not a URL";
      }
    },
  });
  return url?.replace(/\/+$/, "");
}

/** A provider id from a URL's host ("gpu-box.lan:8000" -> "gpu-box-lan-8000"). */
function providerIdFor(baseUrl: string): string {
  try {
    return new URL(baseUrl).host.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "local";
  } catch {
    return "local";
  }
}

/** The ids a server lists at GET {baseUrl}/models, or why it could not be asked. */
export async function listServerModels(baseUrl: string, apiKey?: string, timeoutMs = 5000): Promise<string[] | string> {
  try {
    const response = await fetch(`${baseUrl}/models`, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.body) return `${baseUrl}/models answered ${response.status} without a body.`;
    // A listing is small; a server that sends more is not read further.
    const { bytes } = await readAtMost(response.body, 2 * 1024 * 1024);
    if (!response.ok) return `${baseUrl}/models answered ${response.status}.`;
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { data?: { id?: unknown }[] } | { id?: unknown }[];
    const list = Array.isArray(parsed) ? parsed : (parsed.data ?? []);
    return [...new Set(list.flatMap((item) => (typeof item?.id === "string" ? [item.id] : [])))];
  } catch (error) {
    return `Could not reach ${baseUrl}: ${(error as Error).message}.`;
  }
}
