import type { EntrySummary } from "./types";

/** Longest query honoured; the rest is ignored rather than making every keystroke slower. */
const MAX_QUERY_LENGTH = 200;

/** Splits a query into lower-case tokens; every token must match (in any order). */
export function parseSearchQuery(query: string): string[] {
  return query.slice(0, MAX_QUERY_LENGTH).toLowerCase().split(/\s+/).filter((t) => t.length > 0);
}

/**
 * The lower-case text a search looks at, label excluded (labels change without the entry changing,
 * so they are matched separately): the kind of entry, its preview and its names.
 */
export function searchableText(entry: EntrySummary): string {
  const parts: string[] = [entry.type];
  if (entry.role) parts.push(entry.role);
  parts.push(entry.preview);
  for (const extra of [entry.customType, entry.toolName, entry.provider, entry.modelId, entry.thinkingLevel, entry.label]) {
    if (extra) parts.push(extra);
  }
  if (entry.type === "compaction") parts.push("compaction");
  if (entry.type === "branch_summary") parts.push("branch summary");
  return parts.join(" ").toLowerCase();
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
