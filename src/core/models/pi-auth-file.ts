/**
 * Pi's `auth.json` (in the agent folder: `{ "<provider>": { "type": "api_key", "key": "..." } |
 * { "type": "oauth", ... } }`) and Pi's global `settings.json` (the default provider, model and
 * thinking level), read without changing them.
 *
 * Arbor does not read auth.json on its own: the user imports it once, after a confirmation that names
 * the file, and the keys then live in VS Code's SecretStorage. API keys and OAuth logins
 * (subscriptions, with the credentials pi-ai's helpers wrote) are imported; keys that are shell
 * commands and logins that are not pi-ai's shape are listed as skipped, with the reason.
 */

import { readFile } from "node:fs/promises";
import { isThinkingLevel } from "../agent/model-selection";
import type { ThinkingLevel } from "../session/types";
import { isCommandValue } from "./config-value";
import { retrySettingsFrom, type RetrySettings } from "../agent/retry-policy";
import { isOAuthCredentials, type OAuthCredentials } from "./oauth-logins";

/** One provider's entry, as the import will treat it. Secrets are only in `key` or `login`, never in `reason`. */
export type AuthFileEntry =
  | { provider: string; importable: true; key: string; login?: undefined }
  /** A subscription login (Pi's `/login`): pi-ai's OAuth credentials. */
  | { provider: string; importable: true; login: OAuthCredentials; key?: undefined }
  | { provider: string; importable: false; reason: string };

/** Reads auth.json; rejects with a clear error when the file is missing or not an object of entries. */
export async function readPiAuthFile(path: string, env: NodeJS.ProcessEnv = process.env): Promise<AuthFileEntry[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === "ENOENT" ? `There is no ${path}.` : `Could not read ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error(`${path} does not hold an object of providers.`);
  return Object.entries(parsed as Record<string, unknown>).map(([provider, value]) => planEntry(provider, value, env));
}

function planEntry(provider: string, value: unknown, env: NodeJS.ProcessEnv): AuthFileEntry {
  const entry = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (entry.type === "oauth") {
    const { type: _type, ...credentials } = entry;
    return isOAuthCredentials(credentials) ? { provider, importable: true, login: credentials } : { provider, importable: false, reason: "an OAuth login without the credentials pi-ai writes" };
  }
  if (entry.type !== "api_key" || typeof entry.key !== "string" || entry.key.trim() === "") {
    return { provider, importable: false, reason: "not an API key entry" };
  }
  const key = entry.key.trim();
  if (isCommandValue(key)) return { provider, importable: false, reason: "a shell command (Arbor stores keys, not commands)" };
  // As Pi reads it: a value naming a set environment variable means that variable's value.
  return { provider, importable: true, key: env[key] || key };
}

/** What Pi's global settings.json says about defaults (absent fields are undefined). */
export interface PiDefaults {
  provider?: string;
  model?: string;
  thinkingLevel?: ThinkingLevel;
  /** `enabledModels`: the patterns of the models that model cycling steps through. */
  enabledModels?: string[];
  /** `retry.*` (Pi's defaults for what the file leaves out). */
  retry?: RetrySettings;
  /** `thinkingBudgets`: thinking tokens per level, for the APIs that take a budget. */
  thinkingBudgets?: ThinkingBudgets;
}

/** Pi's `thinkingBudgets` setting (the shape pi-ai's stream options take). */
export interface ThinkingBudgets {
  minimal?: number;
  low?: number;
  medium?: number;
  high?: number;
}

/** The levels of a `thinkingBudgets` object that hold a positive whole number; undefined when none does. */
export function thinkingBudgetsFrom(value: unknown): ThinkingBudgets | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const budgets: ThinkingBudgets = {};
  for (const level of ["minimal", "low", "medium", "high"] as const) {
    const n = (value as Record<string, unknown>)[level];
    if (typeof n === "number" && Number.isInteger(n) && n > 0) budgets[level] = n;
  }
  return Object.keys(budgets).length > 0 ? budgets : undefined;
}

/** Reads the defaults from Pi's global settings.json; a missing or broken file gives no defaults. */
export async function readPiDefaults(settingsPath: string): Promise<PiDefaults> {
  try {
    const parsed = JSON.parse(await readFile(settingsPath, "utf8")) as Record<string, unknown>;
    return {
      provider: typeof parsed.defaultProvider === "string" ? parsed.defaultProvider : undefined,
      model: typeof parsed.defaultModel === "string" ? parsed.defaultModel : undefined,
      thinkingLevel: isThinkingLevel(parsed.defaultThinkingLevel) ? parsed.defaultThinkingLevel : undefined,
      enabledModels: Array.isArray(parsed.enabledModels) ? parsed.enabledModels.filter((p): p is string => typeof p === "string" && p.trim() !== "") : undefined,
      retry: retrySettingsFrom(parsed),
      thinkingBudgets: thinkingBudgetsFrom(parsed.thinkingBudgets),
    };
  } catch {
    return {};
  }
}
