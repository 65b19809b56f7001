/** Helpers for the extension-host tests that use models: Pi's models.json in the runner's agent folder, Arbor's test hooks. */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../../src/core/agent/agent-session";
import type { SessionManager } from "../../../src/core/session/session-manager";
import type { ChatController } from "../../../src/extension/chat/chat-controller";
import type { ModelEntry } from "../../../src/extension/models/model-service";

/** The parts of the ModelService the tests use (through ARBOR_TEST_HOOKS). */
export interface ModelsProbe {
  readonly ready: Promise<void>;
  readonly arborModelsFile: string;
  lastAddModelOffer: string[] | undefined;
  entries(): ModelEntry[];
  findEntry(model: { provider: string; id: string }): ModelEntry | undefined;
  readonly keys: { set(provider: string, key: string): Promise<void>; has(provider: string): boolean };
  readonly credentials: { isLogin(provider: string): boolean; logins: { logout(provider: string): Promise<void> } };
}

export interface ModelTestApi {
  readonly testing?: {
    readonly currentSession: SessionManager | undefined;
    readonly agentSession: AgentSession | undefined;
    readonly models: ModelsProbe;
    readonly chat: ChatController;
    readonly logUri: vscode.Uri;
  };
}

export async function modelApi(): Promise<NonNullable<ModelTestApi["testing"]>> {
  const ext = vscode.extensions.all.find((e) => (e.packageJSON as { name: string }).name === "arbor");
  assert.ok(ext, "Arbor is installed");
  const api = (await ext.activate()) as ModelTestApi;
  assert.ok(api.testing, "the runner sets ARBOR_TEST_HOOKS=1");
  await api.testing.models.ready;
  return api.testing;
}

/** Pi's models.json in the agent folder the runner gives the extension host (PI_CODING_AGENT_DIR). */
export function piModelsFile(): string {
  const dir = process.env.PI_CODING_AGENT_DIR;
  assert.ok(dir, "the runner sets PI_CODING_AGENT_DIR");
  return join(dir, "models.json");
}

/** Sets (or, with undefined, removes) one provider in Pi's models.json, keeping the others. */
export function setPiProvider(name: string, config: Record<string, unknown> | undefined): void {
  const file = piModelsFile();
  const current = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { providers: Record<string, unknown> }) : { providers: {} };
  if (config) current.providers[name] = config;
  else delete current.providers[name];
  writeFileSync(file, JSON.stringify(current, null, 2));
}

/** An OpenAI-compatible provider at a scripted server, as a Pi user writes one. */
export function localProviderConfig(baseUrl: string, modelIds: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { baseUrl, api: "openai-completions", apiKey: "local", models: modelIds.map((id) => ({ id })), ...extra };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(50);
  }
  assert.fail(`timed out waiting for ${what}`);
}

/** Every line of a session file, parsed. */
export function fileLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every file under a folder (recursively) whose name passes `keep`. */
export function filesUnder(dir: string, keep: (name: string) => boolean = () => true): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) return filesUnder(path, keep);
    return stat.isFile() && keep(name) ? [path] : [];
  });
}

/**
 * The scripted server as the model of new sessions, set up as a Pi user sets up a local server: a
 * provider in the agent folder's models.json, then chosen with Select Model (the current session
 * switches too). Undo with `setPiProvider(provider, undefined)`.
 */
export async function useScriptedModel(provider: string, baseUrl: string, modelId = "scripted-model"): Promise<void> {
  setPiProvider(provider, localProviderConfig(baseUrl, [modelId]));
  const { models } = await modelApi();
  await until(() => models.findEntry({ provider, id: modelId }) !== undefined, `the models.json provider ${provider}`);
  assert.equal(await vscode.commands.executeCommand("arbor.selectModel", { provider, id: modelId }), true, `${provider}/${modelId} selected`);
}
