import type { EntrySummary } from "./types";

/** The tree filters, named as in the reference's tree selector. */
export const FILTER_MODES = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type FilterMode = (typeof FILTER_MODES)[number];

/** Human names for the filter picker. */
export const FILTER_MODE_NAMES: Readonly<Record<FilterMode, string>> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User messages",
  "labeled-only": "Labelled only",
  all: "All entries",
};

export function isFilterMode(value: unknown): value is FilterMode {
  return typeof value === "string" && (FILTER_MODES as readonly string[]).includes(value);
}

/** Bookkeeping entries that never reach the model: hidden by every filter but "all" (and "labeled-only" when labelled). */
const SETTINGS_TYPES: ReadonlySet<string> = new Set(["label", "custom", "model_change", "thinking_level_change", "session_info"]);

export function isSettingsEntry(entry: EntrySummary): boolean {
  return SETTINGS_TYPES.has(entry.type);
}

/** A toolResult message, or an assistant turn that only called tools. */
export function isToolEntry(entry: EntrySummary): boolean {
  if (entry.type !== "message") return false;
  return entry.role === "toolResult" || (entry.role === "assistant" && entry.toolOnly === true);
}

/**
 * Whether a filter shows an entry. Unknown entry types count as content (shown by default), so that
 * entries from a newer Pi are never silently invisible.
 */
export function passesFilter(entry: EntrySummary, mode: FilterMode, hasLabel: boolean): boolean {
  switch (mode) {
    case "all":
      return true;
    case "labeled-only":
      return hasLabel;
    case "user-only":
      return entry.type === "message" && entry.role === "user";
    case "no-tools":
      return !isSettingsEntry(entry) && !isToolEntry(entry);
    case "default":
      return !isSettingsEntry(entry);
  }
}
