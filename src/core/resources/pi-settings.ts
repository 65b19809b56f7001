/**
 * Pi's settings.json files: the user's (`<agentDir>/settings.json`) and the project's
 * (`<cwd>/.pi/settings.json`), read and merged as Pi merges them: a project value replaces the
 * user's, except that two objects under one key are combined one level deep (the project's keys
 * win). Old shapes Pi still accepts are brought to the current one first.
 */
import type { ResourceFs } from "./resource-fs";
import type { ResourceDiagnostic } from "./types";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A package entry of the `packages` setting: a source, or a source with resource filters. */
export type PackageEntry = string | { source: string; extensions?: string[]; skills?: string[]; prompts?: string[]; themes?: string[] };

/** Both files and their merge. */
export interface PiSettingsFiles {
  user: JsonObject;
  project: JsonObject;
  merged: JsonObject;
}

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads one settings file: {} when it is missing; {} and a diagnostic when it is not a JSON object. */
export function readSettingsFile(fs: ResourceFs, path: string, diagnostics: ResourceDiagnostic[]): JsonObject {
  if (fs.kind(path) !== "file") return {};
  try {
    const text = fs.readText(path);
    if (text.trim() === "") return {};
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) throw new Error("it is not a JSON object");
    return migrateSettings(parsed);
  } catch (error) {
    diagnostics.push({ kind: "settings", level: "error", message: `Pi's settings file is ignored until it is fixed: ${error instanceof Error ? error.message : String(error)}`, path });
    return {};
  }
}

/** Renamed and reshaped keys of older Pi versions, as Pi reads them. */
export function migrateSettings(input: JsonObject): JsonObject {
  const settings: JsonObject = { ...input };
  if ("queueMode" in settings && !("steeringMode" in settings)) {
    settings.steeringMode = settings.queueMode!;
    delete settings.queueMode;
  }
  if (!("transport" in settings) && typeof settings.websockets === "boolean") {
    settings.transport = settings.websockets ? "websocket" : "sse";
    delete settings.websockets;
  }
  const skills = settings.skills;
  if (isObject(skills)) {
    if (skills.enableSkillCommands !== undefined && settings.enableSkillCommands === undefined) settings.enableSkillCommands = skills.enableSkillCommands;
    if (Array.isArray(skills.customDirectories) && skills.customDirectories.length > 0) settings.skills = skills.customDirectories;
    else delete settings.skills;
  }
  const retry = settings.retry;
  if (isObject(retry)) {
    const next: JsonObject = { ...retry };
    const provider = isObject(next.provider) ? next.provider : undefined;
    if (typeof next.maxDelayMs === "number" && (provider?.maxRetryDelayMs === undefined || provider.maxRetryDelayMs === null)) {
      next.provider = { ...(provider ?? {}), maxRetryDelayMs: next.maxDelayMs };
    }
    delete next.maxDelayMs;
    settings.retry = next;
  }
  return settings;
}

/** The project's settings over the user's. */
export function mergeSettings(user: JsonObject, project: JsonObject): JsonObject {
  const merged: JsonObject = { ...user };
  for (const [key, value] of Object.entries(project)) {
    if (value === undefined) continue;
    const base = merged[key];
    merged[key] = isObject(value) && isObject(base) ? { ...base, ...value } : value;
  }
  return merged;
}

/** The strings of a list setting (anything else in it is skipped). */
export function stringList(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** The `packages` setting's entries that name a source. */
export function packageEntries(value: JsonValue | undefined): PackageEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry): PackageEntry[] => {
    if (typeof entry === "string") return [entry];
    if (isObject(entry) && typeof entry.source === "string") {
      const filter: Exclude<PackageEntry, string> = { source: entry.source };
      for (const key of ["extensions", "skills", "prompts", "themes"] as const) if (Array.isArray(entry[key])) filter[key] = stringList(entry[key]);
      return [filter];
    }
    return [];
  });
}

/** The values of Pi's settings that Arbor acts on, typed, from the merged object (undefined: not set). */
export interface PiSettingsView {
  defaultProvider?: string;
  defaultModel?: string;
  defaultThinkingLevel?: string;
  compaction: { enabled?: boolean; reserveTokens?: number; keepRecentTokens?: number };
  /** `branchSummary.*`: the tokens kept free when a branch is summarized, and whether the checkout asks. */
  branchSummary: { reserveTokens?: number; skipPrompt?: boolean };
  shellPath?: string;
  shellCommandPrefix?: string;
  hideThinkingBlock?: boolean;
  enableSkillCommands: boolean;
  /** How queued steering / follow-up messages are delivered (as written: the agent reads "all" or one at a time). */
  steeringMode?: string;
  followUpMode?: string;
}

export function viewSettings(merged: JsonObject): PiSettingsView {
  const str = (v: JsonValue | undefined): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
  const num = (v: JsonValue | undefined): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const bool = (v: JsonValue | undefined): boolean | undefined => (typeof v === "boolean" ? v : undefined);
  const compaction = isObject(merged.compaction) ? merged.compaction : {};
  const branchSummary = isObject(merged.branchSummary) ? merged.branchSummary : {};
  return {
    defaultProvider: str(merged.defaultProvider),
    defaultModel: str(merged.defaultModel),
    defaultThinkingLevel: str(merged.defaultThinkingLevel),
    compaction: { enabled: bool(compaction.enabled), reserveTokens: num(compaction.reserveTokens), keepRecentTokens: num(compaction.keepRecentTokens) },
    branchSummary: { reserveTokens: num(branchSummary.reserveTokens), skipPrompt: bool(branchSummary.skipPrompt) },
    shellPath: str(merged.shellPath),
    shellCommandPrefix: str(merged.shellCommandPrefix),
    hideThinkingBlock: bool(merged.hideThinkingBlock),
    enableSkillCommands: bool(merged.enableSkillCommands) ?? true,
    steeringMode: str(merged.steeringMode),
    followUpMode: str(merged.followUpMode),
  };
}
