/**
 * The transcript of one root-to-leaf path, as people read it: the chat draws it and the export writes
 * it. Pure: entries in, display items out; no `vscode`, no DOM, no Node.
 *
 * A tool call and its result are two entries in the file (the assistant message, then a toolResult
 * message); the transcript pairs them, so a tool run reads as one foldable part of the reply that
 * asked for it. A result whose call is not on the path stands alone.
 */
import type {
  AssistantMessage,
  ImageContent,
  SessionEntry,
  StopReason,
  TextContent,
  Usage,
} from "../session/types";

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

/** What one entry did to a transcript: items added at the end, and earlier items that changed. */
export interface TranscriptChange {
  added: TranscriptItem[];
  /** Index in the transcript of each item that changed in place (a tool call that got its result). */
  updated: number[];
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

/** The parts of an assistant message (tool results are attached later). */
export function assistantParts(message: Pick<AssistantMessage, "content">): AssistantPart[] {
  const parts: AssistantPart[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "thinking") parts.push({ type: "thinking", text: block.thinking, redacted: block.redacted === true });
    else if (block.type === "toolCall") parts.push({ type: "toolCall", id: block.id, name: block.name, arguments: block.arguments ?? {} });
  }
  return parts;
}

/**
 * Builds a transcript entry by entry, so that appends cost only the new entries: the chat keeps one
 * per shown path and feeds it each entry appended at the leaf.
 */
export class TranscriptBuilder {
  readonly items: TranscriptItem[] = [];
  /** toolCallId -> index of the assistant item holding the call (calls still waiting for a result). */
  private readonly pendingCalls = new Map<string, number>();

  /** Adds the item(s) of one entry appended at the end of the path. */
  append(entry: SessionEntry): TranscriptChange {
    const change: TranscriptChange = { added: [], updated: [] };
    const add = (item: TranscriptItem): void => {
      this.items.push(item);
      change.added.push(item);
    };
    const base = { entryId: entry.id, timestamp: timeOf(entry) };
    switch (entry.type) {
      case "message": {
        const m = entry.message;
        if (m.role === "user") add({ ...base, kind: "user", ...textAndImages(m.content), timestamp: m.timestamp ?? base.timestamp });
        else if (m.role === "assistant") {
          const item: AssistantItem = {
            ...base,
            kind: "assistant",
            parts: assistantParts(m),
            provider: m.provider,
            model: m.model,
            stopReason: m.stopReason,
            timestamp: m.timestamp ?? base.timestamp,
          };
          if (m.errorMessage !== undefined) item.errorMessage = m.errorMessage;
          if (m.usage) item.usage = m.usage;
          const index = this.items.length;
          for (const part of item.parts) if (part.type === "toolCall") this.pendingCalls.set(part.id, index);
          add(item);
        } else if (m.role === "toolResult") {
          const result: ToolResultView = { entryId: entry.id, content: m.content, isError: m.isError };
          if (m.details !== undefined) result.details = m.details;
          const index = this.pendingCalls.get(m.toolCallId);
          const owner = index === undefined ? undefined : this.items[index];
          const part = owner?.kind === "assistant" ? owner.parts.find((p) => p.type === "toolCall" && p.id === m.toolCallId && !p.result) : undefined;
          if (index !== undefined && part?.type === "toolCall") {
            part.result = result;
            this.pendingCalls.delete(m.toolCallId);
            change.updated.push(index);
          } else {
            add({ ...base, kind: "toolResult", toolCallId: m.toolCallId, toolName: m.toolName, result, timestamp: m.timestamp ?? base.timestamp });
          }
        } else if (m.role === "bashExecution") {
          const item: BashItem = {
            ...base,
            kind: "bash",
            command: m.command,
            output: m.output,
            exitCode: m.exitCode,
            cancelled: m.cancelled,
            truncated: m.truncated,
            excludeFromContext: m.excludeFromContext === true,
            timestamp: m.timestamp ?? base.timestamp,
          };
          if (m.fullOutputPath) item.fullOutputPath = m.fullOutputPath;
          add(item);
        } else if (m.role === "custom" && m.display) {
          add({ ...base, kind: "custom", customType: m.customType, ...textAndImages(m.content), timestamp: m.timestamp ?? base.timestamp });
        }
        break;
      }
      case "custom_message":
        if (entry.display) add({ ...base, kind: "custom", customType: entry.customType, ...textAndImages(entry.content) });
        break;
      case "compaction":
        add({ ...base, kind: "compaction", summary: entry.summary, tokensBefore: entry.tokensBefore, firstKeptEntryId: entry.firstKeptEntryId });
        break;
      case "branch_summary":
        add({ ...base, kind: "branchSummary", summary: entry.summary, fromId: entry.fromId });
        break;
      default:
        // Labels, names, model and thinking changes, extension state: bookkeeping, not conversation.
        break;
    }
    return change;
  }
}

/** The transcript of a path (root first). */
export function buildTranscript(path: readonly SessionEntry[]): TranscriptItem[] {
  const builder = new TranscriptBuilder();
  for (const entry of path) builder.append(entry);
  return builder.items;
}

/** The plain text of a tool result's text blocks. */
export function toolResultText(result: ToolResultView): string {
  return result.content
    .filter((b): b is TextContent => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}
