/**
 * Context resolution: the messages, thinking level and model that one leaf of the session tree
 * stands for (Pi's `buildSessionContext`, same results). Pure: no Node, no VS Code.
 *
 * One implementation serves both shapes of input: an array of parsed entries, and a lazy index
 * over a huge file where only the skeleton (id, parent, type, role) is cheap and parsing an
 * entry is not. The walk uses only the cheap calls and parses just the entries whose content
 * ends up in the result.
 */
import type { AgentMessage, ModelRef, SessionContext, SessionEntry } from "../session/types";
import { createCompactionSummaryMessage, messageFromEntry } from "./messages";

/** Read access to a session's entries, cheap for the skeleton and lazy for the content. */
export interface ContextSource {
  /** parent id of an entry; undefined if the id is unknown */
  parentOf(id: string): string | null | undefined;
  /** entry type, cheap */
  typeOf(id: string): string | undefined;
  /** message role for `message` entries, cheap */
  roleOf(id: string): string | undefined;
  /** the full entry (may parse JSON: expensive, call only when needed) */
  entry(id: string): SessionEntry | undefined;
  /** id of the last entry in file order, or undefined when there are none */
  lastId(): string | undefined;
  /** Optional: the same result as {@link pathTo}, from an index that can answer faster (e.g. by reusing the last path). */
  pathTo?(leafId: string): string[];
}

/** Entry types whose content can become a context message. */
const MESSAGE_BEARING_TYPES: ReadonlySet<string> = new Set(["message", "custom_message", "branch_summary"]);

const EMPTY_CONTEXT_THINKING_LEVEL = "off";

/**
 * A ContextSource over entries already in memory.
 * @param entries the file's entries in file order (header excluded)
 * @param byId an index of the same entries; built here when absent (a later duplicate id wins, as in Pi)
 */
export function contextSourceFromEntries(
  entries: readonly SessionEntry[],
  byId?: ReadonlyMap<string, SessionEntry>,
): ContextSource {
  const index = byId ?? indexById(entries);
  return {
    parentOf: (id) => index.get(id)?.parentId,
    typeOf: (id) => index.get(id)?.type,
    roleOf: (id) => {
      const entry = index.get(id);
      return entry?.type === "message" ? roleOfMessage(entry.message) : undefined;
    },
    entry: (id) => index.get(id),
    lastId: () => entries[entries.length - 1]?.id,
  };
}

/**
 * Resolve the context of a leaf from entries in memory, with Pi's exact semantics:
 * leaf `null` → no messages, thinking `off`, model `null`; leaf undefined, empty or unknown → the
 * last entry in file order. See {@link resolveContext}.
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: ReadonlyMap<string, SessionEntry>,
): SessionContext {
  return resolveContext(contextSourceFromEntries(entries, byId), leafId);
}

/**
 * The leaf that context resolution starts from: `leafId` itself when the source knows it,
 * otherwise (undefined, empty or unknown) the last entry in file order; undefined for an
 * explicit `null` or an empty session.
 */
export function resolveLeafId(source: ContextSource, leafId: string | null | undefined): string | undefined {
  if (leafId === null) return undefined;
  if (leafId && isKnown(source, leafId)) return leafId;
  return source.lastId();
}

/**
 * Ids from the root down to `leafId`, following parent links. The walk stops at a root, at a
 * parent the source does not know (an orphan's path starts at the orphan), and at an id seen
 * before (a malformed file can link entries in a cycle). Unknown `leafId` → [].
 */
export function pathTo(source: ContextSource, leafId: string): string[] {
  const ids: string[] = [];
  if (!isKnown(source, leafId)) return ids;
  const seen = new Set<string>();
  let id: string | undefined = leafId;
  while (id !== undefined && !seen.has(id)) {
    seen.add(id);
    ids.push(id);
    const parent: string | null | undefined = source.parentOf(id);
    id = parent && isKnown(source, parent) ? parent : undefined;
  }
  return ids.reverse();
}

/**
 * The context of a leaf, computed lazily over a {@link ContextSource}:
 * - thinking level: the last `thinking_level_change` on the path (default `off`);
 * - model: the last `model_change` or assistant message on the path (default null);
 * - messages: only the last compaction on the path counts. Without one, each path entry in order
 *   yields its message (`message`, `custom_message`, non-empty `branch_summary`). With one: its
 *   summary first, then the path entries before it from `firstKeptEntryId` on (none when that
 *   id is not on the path before it), then every entry after it.
 *
 * @throws Error when the source lists an id on the path but cannot produce its entry.
 */
export function resolveContext(source: ContextSource, leafId: string | null | undefined): SessionContext {
  const leaf = resolveLeafId(source, leafId);
  if (leaf === undefined) return { messages: [], thinkingLevel: EMPTY_CONTEXT_THINKING_LEVEL, model: null };

  const path = source.pathTo ? source.pathTo(leaf) : pathTo(source, leaf);
  // The model may come from an assistant message that is also in the messages: parse it once.
  const loaded = new Map<string, SessionEntry>();
  const load = (id: string): SessionEntry => {
    let entry = loaded.get(id);
    if (entry) return entry;
    entry = source.entry(id);
    if (!entry) throw new Error(`Context source knows entry ${id} but cannot read it`);
    loaded.set(id, entry);
    return entry;
  };

  // Walking from the leaf upward, the first match of each kind is the last one on the path.
  let thinkingId: string | undefined;
  let modelId: string | undefined;
  let compactionIndex = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    const id = path[i];
    const type = source.typeOf(id);
    if (type === "thinking_level_change") thinkingId ??= id;
    else if (type === "model_change" || (type === "message" && source.roleOf(id) === "assistant")) modelId ??= id;
    else if (type === "compaction" && compactionIndex < 0) compactionIndex = i;
    if (thinkingId !== undefined && modelId !== undefined && compactionIndex >= 0) break;
  }

  const messages: AgentMessage[] = [];
  const emit = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      if (!MESSAGE_BEARING_TYPES.has(source.typeOf(path[i]) ?? "")) continue;
      const message = contextMessageOf(load(path[i]));
      if (message) messages.push(message);
    }
  };

  if (compactionIndex < 0) {
    emit(0, path.length);
  } else {
    const compaction = load(path[compactionIndex]);
    if (compaction.type !== "compaction") {
      throw new Error(`Context source lists entry ${compaction.id} as a compaction but reads it as ${compaction.type}`);
    }
    messages.push(createCompactionSummaryMessage(compaction.summary, compaction.tokensBefore, compaction.timestamp));
    const firstKept = path.indexOf(compaction.firstKeptEntryId);
    if (firstKept >= 0 && firstKept < compactionIndex) emit(firstKept, compactionIndex);
    emit(compactionIndex + 1, path.length);
  }

  return {
    messages,
    thinkingLevel: thinkingId === undefined ? EMPTY_CONTEXT_THINKING_LEVEL : thinkingLevelOf(load(thinkingId)),
    model: modelId === undefined ? null : modelOf(load(modelId)),
  };
}

/** A path entry's message in a resolved context: compactions and empty branch summaries yield none. */
function contextMessageOf(entry: SessionEntry): AgentMessage | undefined {
  if (entry.type === "compaction") return undefined;
  if (entry.type === "branch_summary" && !entry.summary) return undefined;
  return messageFromEntry(entry);
}

function thinkingLevelOf(entry: SessionEntry): string {
  // Taken verbatim, as Pi does, even when a malformed entry lacks the field.
  return entry.type === "thinking_level_change" ? entry.thinkingLevel : EMPTY_CONTEXT_THINKING_LEVEL;
}

function modelOf(entry: SessionEntry): ModelRef | null {
  if (entry.type === "model_change") return { provider: entry.provider, modelId: entry.modelId };
  if (entry.type === "message" && entry.message.role === "assistant") {
    return { provider: entry.message.provider, modelId: entry.message.model };
  }
  return null;
}

/**
 * Whether the source knows an id. The interface has no membership test, so an entry counts as
 * known when it has a type or a parent link; an entry with neither is too broken to matter.
 */
function isKnown(source: ContextSource, id: string): boolean {
  return source.typeOf(id) !== undefined || source.parentOf(id) !== undefined;
}

function roleOfMessage(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const role = (message as { role?: unknown }).role;
  return typeof role === "string" ? role : undefined;
}

function indexById(entries: readonly SessionEntry[]): Map<string, SessionEntry> {
  const index = new Map<string, SessionEntry>();
  for (const entry of entries) index.set(entry.id, entry);
  return index;
}
