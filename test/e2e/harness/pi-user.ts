/**
 * A model set up as a Pi user sets up a local server: a provider in the agent folder's models.json
 * (Pi's format), here pointing at the scripted OpenAI-compatible server on 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SCRIPTED_PROVIDER = "scripted";
export const SCRIPTED_MODEL = "scripted-model";

/** Writes `agentDir/models.json` with one provider whose only model answers from `baseUrl`. */
export function writePiModelsJson(agentDir: string, baseUrl: string): void {
  mkdirSync(agentDir, { recursive: true });
  const provider = { baseUrl, api: "openai-completions", apiKey: "local", models: [{ id: SCRIPTED_MODEL }] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { [SCRIPTED_PROVIDER]: provider } }));
}
