/**
 * Pure helpers over an export's entries, shared by the exporters (Node) and the exported page
 * (browser): no Node, no DOM.
 */
import type { SessionEntry } from "../session/types";

/** Entries by id. A later entry with the same id replaces an earlier one, as the session reader does. */
export function indexEntries(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const byId = new Map<string, SessionEntry>();
  for (const e of entries) byId.set(e.id, e);
  return byId;
}

/**
 * The entries from the root to `leafId`, root first. Stops at a parent that is not in the file
 * and at a parent cycle, so any file yields a finite path. An unknown leaf gives an empty path.
 */
export function entryPath(byId: ReadonlyMap<string, SessionEntry>, leafId: string | null): SessionEntry[] {
  const path: SessionEntry[] = [];
  const seen = new Set<string>();
  let current = leafId === null ? undefined : byId.get(leafId);
  while (current && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}

/** What a session is called in an export: its name, else its first user message, else its id. */
export function exportTitle(name: string | null | undefined, entries: readonly SessionEntry[], sessionId: string): string {
  if (name && name.trim()) return oneLine(name);
  for (const e of entries) {
    if (e.type !== "message" || e.message?.role !== "user") continue;
    const content = e.message.content;
    const text = typeof content === "string" ? content : Array.isArray(content) ? content.map((b) => (b?.type === "text" && typeof b.text === "string" ? b.text : "")).join(" ") : "";
    if (text.trim()) return oneLine(text);
  }
  return `Session ${sessionId}`;
}

function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A fenced Markdown code block for any text: the fence is longer than any backtick run inside it. */
export function fence(text: string, info = ""): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const f = "`".repeat(Math.max(3, longest + 1));
  return `${f}${info}\n${text.replace(/\n$/, "")}\n${f}`;
}
