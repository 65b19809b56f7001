import type { EntrySummary } from "../core/tree/types";
import { oneLine } from "./terminal-text";

/** What one line of `arbor tree` says about an entry; every field from the file is escaped (see terminal-text.ts). */
export function describeEntry(s: EntrySummary): string {
  return oneLine(describeRaw(s));
}

function describeRaw(s: EntrySummary): string {
  if (s.type === "message") {
    const tool = s.toolName ? ` ${s.toolName}` : "";
    return `${s.role ?? "message"}${s.role === "toolResult" ? tool : ""}: ${s.preview}`;
  }
  if (s.type === "compaction") return `[compaction ${s.tokensBefore ?? "?"} tokens] ${s.preview}`;
  if (s.type === "branch_summary") return `[branch summary] ${s.preview}`;
  return `[${s.type}] ${s.preview}`;
}
