/**
 * What the tree host reads from a session: the light view of every entry, the labels and the
 * leaf for the tree, and an entry's long form for the details pane. Shared by the extension,
 * the webview harness and the benchmarks (no vscode).
 */
import { entryText } from "../core/session/entry-text";
import type { SessionReader } from "../core/session/session-reader";
import type { SessionData } from "../core/tree/tree-model";
import { clampText, detailsOf, type SafeIds } from "../protocol/clamp";
import { LIMITS, type EntryDetails } from "../protocol/messages";

/** What the host answers a details request with. */
export type DetailsAnswer = { ok: true; details: EntryDetails } | { ok: false; error: string };

/**
 * The tree's view of a session: a fresh source over its entries (the tree keeps and grows it),
 * which reads an entry's body only for a drawn row or a search. `unsaved`: entries whose write failed.
 */
export function sessionDataOf(sm: SessionReader, unsaved: ReadonlySet<string> = new Set()): SessionData {
  return {
    sessionId: sm.getSessionId(),
    name: sm.getSessionName() ?? null,
    entries: sm.getTreeSource(unsaved),
    labels: [...sm.getLabels()].map(([targetId, label]) => ({ targetId, label })),
    leafId: sm.getLeafId(),
  };
}

/**
 * The details pane's answer for an entry: its long form, or the reason it cannot be shown (a
 * malformed compaction, an entry that cannot be read); undefined when there is no such entry.
 */
export function entryDetailsOf(sm: SessionReader, entryId: string, ids: SafeIds): DetailsAnswer | undefined {
  try {
    const entry = sm.getEntry(entryId);
    if (!entry) return undefined;
    return detailsOf(entry as unknown as Record<string, unknown>, () => entryText(entry), ids);
  } catch (err) {
    return { ok: false, error: clampText(`Could not read this entry: ${(err as Error).message}`, LIMITS.messageLength) };
  }
}
