/**
 * The transcript of one root-to-leaf path, as people read it: the chat draws it and the export writes
 * it. Pure: entries in, display items out; no `vscode`, no DOM, no Node.
 *
 * A tool call and its result are two entries in the file (the assistant message, then a toolResult
 * message); the transcript pairs them, so a tool run reads as one foldable part of the reply that
 * asked for it, and the result's own entry shows nothing. A result whose call is not on the path
 * stands alone.
 *
 * Items are addressed by their entry's position on the path, and each is computed from a few
 * neighbouring entries only, so a front end can ask for the items near the viewport of a
 * 10,000-message path without anything else being read.
 */
import type { AssistantMessage, ImageContent, SessionEntry, StopReason, TextContent, Usage } from "../session/types";

/** The outcome of one tool call. */
export interface ToolResultView {
  entryId: string;
  content: (TextContent | ImageContent)[];
  isError: boolean;
  details?: unknown;
}

/** One block of an assistant reply, in the reply's order. */
export type AssistantPart =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; redacted: boolean }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown>; result?: ToolResultView };

interface ItemBase {
  /** The entry the item stands for. */
  entryId: string;
  /** Epoch milliseconds. */
  timestamp: number;
}

export interface UserItem extends ItemBase {
  kind: "user";
  text: string;
  images: ImageContent[];
}

export interface AssistantItem extends ItemBase {
  kind: "assistant";
  parts: AssistantPart[];
  provider: string;
  model: string;
  stopReason: StopReason;
  /** Set when the reply failed or was stopped (as recorded in the file). */
  errorMessage?: string;
  usage?: Usage;
}

/** A tool result whose call is not on the path (a hand-edited or truncated file). */
export interface OrphanToolResultItem extends ItemBase {
  kind: "toolResult";
  toolCallId: string;
  toolName: string;
  result: ToolResultView;
}

export interface BashItem extends ItemBase {
  kind: "bash";
  command: string;
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  /** `!!cmd`: kept out of the model's context. */
  excludeFromContext: boolean;
}

/** A message an extension put into the conversation with `display: true`. */
export interface CustomItem extends ItemBase {
  kind: "custom";
  customType: string;
  text: string;
  images: ImageContent[];
}

export interface CompactionItem extends ItemBase {
  kind: "compaction";
  summary: string;
  tokensBefore: number;
  firstKeptEntryId: string;
}

export interface BranchSummaryItem extends ItemBase {
  kind: "branchSummary";
  summary: string;
  fromId: string;
}

export type TranscriptItem =
  | UserItem
  | AssistantItem
  | OrphanToolResultItem
  | BashItem
  | CustomItem
  | CompactionItem
  | BranchSummaryItem;

/** A path as the transcript reads it: its length and its entries by position (root first). */
export interface PathSource {
  readonly length: number;
  entryAt(index: number): SessionEntry | undefined;
}

function textAndImages(content: string | (TextContent | ImageContent)[]): { text: string; images: ImageContent[] } {
  if (typeof content === "string") return { text: content, images: [] };
  let text = "";
  const images: ImageContent[] = [];
  for (const block of content) {
    if (block.type === "text") text += (text ? "\n" : "") + block.text;
    else if (block.type === "image") images.push(block);
  }
  return { text, images };
}

function timeOf(entry: SessionEntry): number {
  const ms = Date.parse(entry.timestamp);
  return Number.isFinite(ms) ? ms : 0;
}

/** The parts of an assistant message (tool results are attached separately). */
export function assistantParts(message: Pick<AssistantMessage, "content">): AssistantPart[] {
  const parts: AssistantPart[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "thinking") parts.push({ type: "thinking", text: block.thinking, redacted: block.redacted === true });
    else if (block.type === "toolCall") parts.push({ type: "toolCall", id: block.id, name: block.name, arguments: block.arguments ?? {} });
  }
  return parts;
}

function toolResultOf(entry: SessionEntry): (ToolResultView & { toolCallId: string; toolName: string }) | undefined {
  if (entry.type !== "message" || entry.message.role !== "toolResult") return undefined;
  const m = entry.message;
  const view: ToolResultView & { toolCallId: string; toolName: string } = { entryId: entry.id, content: m.content, isError: m.isError, toolCallId: m.toolCallId, toolName: m.toolName };
  if (m.details !== undefined) view.details = m.details;
  return view;
}

/** Entries that sit between a reply and its results without breaking the turn (bookkeeping). */
function isBookkeeping(entry: SessionEntry): boolean {
  return entry.type !== "message" && entry.type !== "custom_message" && entry.type !== "compaction" && entry.type !== "branch_summary";
}

/** The tool call ids of an assistant entry, or undefined for any other entry. */
function callIdsOf(entry: SessionEntry): string[] | undefined {
  if (entry.type !== "message" || entry.message.role !== "assistant") return undefined;
  const ids: string[] = [];
  for (const block of entry.message.content) if (block.type === "toolCall") ids.push(block.id);
  return ids;
}

/** The item an entry stands for on its own (tool results not yet paired), or null when it shows nothing. */
export function itemOfEntry(entry: SessionEntry): TranscriptItem | null {
  const base = { entryId: entry.id, timestamp: timeOf(entry) };
  switch (entry.type) {
    case "message": {
      const m = entry.message;
      const at = { ...base, timestamp: m.timestamp ?? base.timestamp };
      if (m.role === "user") return { ...at, kind: "user", ...textAndImages(m.content) };
      if (m.role === "assistant") {
        const item: AssistantItem = { ...at, kind: "assistant", parts: assistantParts(m), provider: m.provider, model: m.model, stopReason: m.stopReason };
        if (m.errorMessage !== undefined) item.errorMessage = m.errorMessage;
        if (m.usage) item.usage = m.usage;
        return item;
      }
      if (m.role === "toolResult") {
        const { toolCallId, toolName, ...result } = toolResultOf(entry)!;
        return { ...at, kind: "toolResult", toolCallId, toolName, result };
      }
      if (m.role === "bashExecution") {
        const item: BashItem = { ...at, kind: "bash", command: m.command, output: m.output, exitCode: m.exitCode, cancelled: m.cancelled, truncated: m.truncated, excludeFromContext: m.excludeFromContext === true };
        if (m.fullOutputPath) item.fullOutputPath = m.fullOutputPath;
        return item;
      }
      if (m.role === "custom" && m.display) return { ...at, kind: "custom", customType: m.customType, ...textAndImages(m.content) };
      return null;
    }
    case "custom_message":
      return entry.display ? { ...base, kind: "custom", customType: entry.customType, ...textAndImages(entry.content) } : null;
    case "compaction":
      return { ...base, kind: "compaction", summary: entry.summary, tokensBefore: entry.tokensBefore, firstKeptEntryId: entry.firstKeptEntryId };
    case "branch_summary":
      return { ...base, kind: "branchSummary", summary: entry.summary, fromId: entry.fromId };
    default:
      // Labels, names, model and thinking changes, extension state: bookkeeping, not conversation.
      return null;
  }
}

/** The transcript of a path, item by item: each item is computed from its entry and its neighbours. */
export class PathTranscript {
  constructor(private readonly path: PathSource) {}

  /**
   * Where the call answered by the tool result at `index` is shown: the position of the assistant
   * entry before it that made the call, or undefined when the call is not on the path.
   */
  ownerOfResult(index: number): number | undefined {
    const result = this.path.entryAt(index);
    const toolCallId = result && toolResultOf(result)?.toolCallId;
    if (toolCallId === undefined) return undefined;
    for (let k = index - 1; k >= 0; k--) {
      const entry = this.path.entryAt(k);
      if (!entry) return undefined;
      const earlier = toolResultOf(entry);
      // An earlier result for the same call is the one the reply shows: this one stands alone.
      if (earlier?.toolCallId === toolCallId) return undefined;
      if (earlier || isBookkeeping(entry)) continue;
      return callIdsOf(entry)?.includes(toolCallId) ? k : undefined;
    }
    return undefined;
  }

  /** The item shown for the entry at `index`, or null when that entry shows nothing. */
  itemAt(index: number): TranscriptItem | null {
    const entry = this.path.entryAt(index);
    if (!entry) return null;
    try {
      const item = itemOfEntry(entry);
      if (item?.kind === "toolResult") return this.ownerOfResult(index) === undefined ? item : null;
      if (item?.kind === "assistant") this.attachResults(item, index);
      return item;
    } catch {
      // A field of a shape the format does not have (a null message, content of another type):
      // the entry is shown as a note, and the items around it as usual.
      return unreadableItem(entry);
    }
  }

  /** Pairs an assistant item's calls with the results that follow it on the path. */
  private attachResults(item: AssistantItem, index: number): void {
    const open = new Map<string, Extract<AssistantPart, { type: "toolCall" }>>();
    for (const part of item.parts) if (part.type === "toolCall" && !open.has(part.id)) open.set(part.id, part);
    for (let j = index + 1; open.size > 0 && j < this.path.length; j++) {
      const entry = this.path.entryAt(j);
      if (!entry) break;
      const result = toolResultOf(entry);
      if (result) {
        const part = open.get(result.toolCallId);
        if (part) {
          const { toolCallId: _id, toolName: _name, ...view } = result;
          part.result = view;
          open.delete(result.toolCallId);
        }
        continue;
      }
      if (!isBookkeeping(entry)) break;
    }
  }
}

/** The note shown for an entry whose fields the transcript cannot read. */
function unreadableItem(entry: SessionEntry): TranscriptItem {
  const id = (entry as { id?: unknown }).id;
  return { kind: "custom", entryId: typeof id === "string" ? id : String(id), timestamp: 0, customType: "arbor", text: "This entry could not be shown: its fields are not in the session format.", images: [] };
}

/** A path given as an array of entries. */
export function arrayPath(entries: readonly SessionEntry[]): PathSource {
  return { length: entries.length, entryAt: (i) => entries[i] };
}

/** The transcript of a whole path (root first), without the entries that show nothing. */
export function buildTranscript(path: readonly SessionEntry[]): TranscriptItem[] {
  const transcript = new PathTranscript(arrayPath(path));
  const items: TranscriptItem[] = [];
  for (let i = 0; i < path.length; i++) {
    const item = transcript.itemAt(i);
    if (item) items.push(item);
  }
  return items;
}

/** The plain text of a tool result's text blocks. */
export function toolResultText(result: ToolResultView): string {
  return result.content
    .filter((b): b is TextContent => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}
