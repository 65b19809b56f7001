/**
 * The listing comparison's equal-work side. The reference's `SessionManager.list` also joins the
 * text of every user and assistant message of every session into one string per session (for its
 * search); Arbor's listing does not. So that the ratio compares equal work, the bench also times
 * the reference's method (read each file whole, parse every line) computing only the fields Arbor
 * lists: id, name, message count, first message and modified time. This is bench code written to
 * the documented behaviour, labelled as such in the report; the reference's own `list` is timed too.
 */
import { promises as fs } from "node:fs";
import { join } from "node:path";
import type { NormalizedSessionInfo } from "./bench-protocol";

type Entry = { type?: unknown; timestamp?: unknown; name?: unknown; message?: { role?: unknown; content?: unknown; timestamp?: unknown } };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b: { type?: unknown }) => b && b.type === "text").map((b: { text?: unknown }) => b.text).join(" ");
}

async function infoOf(path: string): Promise<NormalizedSessionInfo | undefined> {
  const text = await fs.readFile(path, "utf8");
  const entries: Entry[] = [];
  for (const line of text.trim().split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line) as Entry);
    } catch {
      // skipped, as the reference skips it
    }
  }
  const header = entries[0] as { type?: unknown; id?: unknown; timestamp?: unknown } | undefined;
  if (!header || header.type !== "session") return undefined;
  let name: string | undefined;
  let messageCount = 0;
  let firstMessage = "";
  let last: number | undefined;
  for (const e of entries) {
    if (e.type === "session_info") name = (typeof e.name === "string" ? e.name.trim() : "") || undefined;
    if (e.type !== "message") continue;
    messageCount++;
    const m = e.message;
    if (!m || typeof m.role !== "string" || !("content" in m) || (m.role !== "user" && m.role !== "assistant")) continue;
    if (typeof m.timestamp === "number") last = Math.max(last ?? 0, m.timestamp);
    else if (typeof e.timestamp === "string" && !Number.isNaN(new Date(e.timestamp).getTime())) last = Math.max(last ?? 0, new Date(e.timestamp).getTime());
    if (!firstMessage && m.role === "user") firstMessage = textOf(m.content);
  }
  const headerTime = typeof header.timestamp === "string" ? new Date(header.timestamp).getTime() : NaN;
  const modified = typeof last === "number" && last > 0 ? last : !Number.isNaN(headerTime) ? headerTime : (await fs.stat(path)).mtimeMs;
  return { file: path.slice(path.lastIndexOf("/") + 1), id: String(header.id ?? ""), name, messageCount, firstMessage: firstMessage || "(no messages)", modified };
}

/** The sessions of `dir`, newest first, the reference's way, with Arbor's fields only. */
export async function listSameFieldsTheReferenceWay(dir: string): Promise<NormalizedSessionInfo[]> {
  const names = (await fs.readdir(dir)).filter((n) => n.endsWith(".jsonl"));
  const infos = await Promise.all(names.map((n) => infoOf(join(dir, n)).catch(() => undefined)));
  return infos.filter((i): i is NormalizedSessionInfo => i !== undefined).sort((a, b) => b.modified - a.modified);
}
