import type { EntrySummary } from "./types";

/**
 * The tree filters. The first five are Pi's tree selector's, with its names and exactly its
 * selection (a differential test runs the reference's own selector against them). "everything" is
 * Arbor's own: Pi's "all" plus the assistant turns without text that Pi hides in every mode.
 */
export const FILTER_MODES = ["default", "no-tools", "user-only", "labeled-only", "all", "everything"] as const;
export type FilterMode = (typeof FILTER_MODES)[number];

/** Human names for the filter picker. */
export const FILTER_MODE_NAMES: Readonly<Record<FilterMode, string>> = {
  default: "Default",
  "no-tools": "No tools",
  "user-only": "User messages",
  "labeled-only": "Labelled only",
  all: "All entries",
  everything: "Everything (also tool-call turns)",
};

export function isFilterMode(value: unknown): value is FilterMode {
  return typeof value === "string" && (FILTER_MODES as readonly string[]).includes(value);
}

/** Bookkeeping entries that never reach the model: hidden by "default" and "no-tools". */
const SETTINGS_TYPES: ReadonlySet<string> = new Set(["label", "custom", "model_change", "thinking_level_change", "session_info"]);

/**
 * Whether an entry of this type is bookkeeping that never reaches the model (a label, a custom
 * entry, a model or thinking change, a session name): a leaf made of these sits at the same place
 * in the conversation as the entry they hang under.
 */
export function isBookkeepingType(type: string): boolean {
  return SETTINGS_TYPES.has(type);
}

/** Whether a filter's rules look at labels (a label change then changes what is shown). */
export function filterUsesLabels(mode: FilterMode): boolean {
  return mode === "labeled-only";
}

/**
 * Whether a filter shows an entry, Pi's rules: an assistant turn without text (only tool calls or
 * thinking) is hidden in every mode but "everything", unless it is the current leaf (so that the
 * position stays visible); then "default" hides bookkeeping entries, "no-tools" also tool results,
 * "user-only" shows user messages only, "labeled-only" labelled entries only. Unknown entry types
 * count as content, so entries from a newer Pi are never silently invisible.
 */
export function passesFilter(entry: EntrySummary, mode: FilterMode, hasLabel: boolean, isLeaf = false): boolean {
  return passesFilterFacts(entry.type, entry.role, entry.textless === true, mode, hasLabel, isLeaf);
}

/** `passesFilter` from the few facts it reads (what the tree knows of every entry without its body). */
export function passesFilterFacts(type: string, role: string | undefined, textless: boolean, mode: FilterMode, hasLabel: boolean, isLeaf: boolean): boolean {
  if (textless && !isLeaf && mode !== "everything") return false;
  switch (mode) {
    case "all":
    case "everything":
      return true;
    case "labeled-only":
      return hasLabel;
    case "user-only":
      return type === "message" && role === "user";
    case "no-tools":
      return !SETTINGS_TYPES.has(type) && !(type === "message" && role === "toolResult");
    case "default":
      return !SETTINGS_TYPES.has(type);
  }
}
