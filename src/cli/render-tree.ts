import type { EntrySummary } from "../core/tree/types";

/**
 * What one line of `arbor tree` says about an entry, before escaping: every field from the file
 * is escaped (oneLine, see terminal-text.ts) when the line is printed, also when it comes from the
 * tree-text cache.
 */
export function describeRaw(s: EntrySummary): string {
  if (s.type === "message") {
    const tool = s.toolName ? ` ${s.toolName}` : "";
    return `${s.role ?? "message"}${s.role === "toolResult" ? tool : ""}: ${s.preview}`;
  }
  if (s.type === "compaction") return `[compaction ${s.tokensBefore ?? "?"} tokens] ${s.preview}`;
  if (s.type === "branch_summary") return `[branch summary] ${s.preview}`;
  return `[${s.type}] ${s.preview}`;
}
