import type { EntrySummary } from "./types";

/**
 * Splits a query into lower-case tokens, as Pi's tree search does: lower-case the whole query, split
 * at white space; every token must match (in any order).
 */
export function parseSearchQuery(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter((t) => t.length > 0);
}

/**
 * Pi's search text for an entry as far as the summary's own fields give it (see
 * `searchTextOverride`, which stores the text in the summary whenever they do not).
 */
export function derivedSearchText(entry: EntrySummary): string {
  switch (entry.type) {
    case "message":
      return `${entry.role ?? ""} ${entry.preview}`;
    case "custom_message":
      return `${entry.customType ?? ""} ${entry.preview}`;
    case "compaction":
      return "compaction";
    case "branch_summary":
      return `branch summary ${entry.preview}`;
    case "session_info":
      return "title";
    case "model_change":
      return `model ${entry.modelId ?? ""}`;
    case "thinking_level_change":
      return `thinking ${entry.thinkingLevel ?? ""}`;
    case "custom":
      return `custom ${entry.customType ?? ""}`;
    case "label":
      return `label ${entry.label ?? ""}`;
    default:
      return "";
  }
}

/**
 * The lower-case text a search looks at, label excluded (labels change without the entry changing,
 * so they are matched separately): exactly the words Pi's tree selector searches.
 */
export function searchableText(entry: EntrySummary): string {
  return (entry.searchText ?? derivedSearchText(entry)).toLowerCase();
}

/**
 * Whether every token occurs in the entry text or in its label. Tokens hold no whitespace, so
 * matching the two parts separately equals matching their space-joined concatenation.
 */
export function matchesSearch(text: string, label: string | undefined, tokens: readonly string[]): boolean {
  const lowerLabel = label ? label.toLowerCase() : "";
  for (const token of tokens) {
    if (!text.includes(token) && !lowerLabel.includes(token)) return false;
  }
  return true;
}

/** A half-open [start, end) range of characters. */
export type TextRange = readonly [number, number];

/** Where the tokens occur in a display text (case-insensitive), merged and in order, for highlighting. */
export function findMatchRanges(text: string, tokens: readonly string[]): TextRange[] {
  if (tokens.length === 0 || text.length === 0) return [];
  const lower = text.toLowerCase();
  // Lower-casing can change the length of some characters; ranges then would not line up.
  if (lower.length !== text.length) return [];
  const ranges: [number, number][] = [];
  for (const token of tokens) {
    let at = lower.indexOf(token);
    while (at >= 0) {
      ranges.push([at, at + token.length]);
      at = lower.indexOf(token, at + token.length);
    }
  }
  ranges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const r of ranges) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([r[0], r[1]]);
  }
  return merged;
}
