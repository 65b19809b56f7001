/**
 * Brings a transcript item within the chat protocol's limits, one field at a time, so that the
 * chat's guards stay strict without one odd entry (a string timestamp, an id of 300 characters or
 * with control characters, tool-call arguments that are not an object, a usage without numbers,
 * nesting deep enough to overflow `JSON.stringify` or the structured clone) making the webview drop
 * the whole state message and go blank. The host runs every item through `clampTranscriptItem`
 * before it crosses the boundary.
 *
 * The result is a copy; an item that cannot be brought within the limits becomes a note that says
 * so, in its place.
 */
import type { ImageContent, TextContent, Usage } from "../core/session/types";
import type { AssistantPart, ToolResultView, TranscriptItem } from "../core/transcript/transcript";
import { isTranscriptItem } from "./chat-guards";
import { CHAT_LIMITS } from "./chat-messages";
import { clampText } from "./clamp";

/** Nesting kept in tool arguments and details; deeper values are replaced by a note. */
export const MAX_NESTING = 32;
const TOO_DEEP = "[nested too deeply to show]";
const CONTROL = /[\u0000-\u001f\u007f]/;
const STOP_REASONS = new Set(["stop", "length", "toolUse", "error", "aborted"]);

/** A copy of a JSON-like value nested at most MAX_NESTING deep (what JSON.stringify and a clone can take). */
export function clampNesting(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
  if (depth >= MAX_NESTING) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => clampNesting(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = clampNesting(v, depth + 1);
  return out;
}

function text(x: unknown, max: number): string {
  return typeof x === "string" ? clampText(x, max) : "";
}

function count(x: unknown): number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0 ? x : 0;
}

/** Epoch milliseconds from a number or a date string; 0 (shown without a time) otherwise. */
function time(x: unknown): number {
  if (typeof x === "string") {
    const ms = Date.parse(x);
    return Number.isFinite(ms) && ms >= 0 ? ms : 0;
  }
  return count(x);
}

/** A stable stand-in for an id the guards would refuse (a hash of it, so two odd ids stay apart). */
export function safeEntryId(id: unknown): string {
  if (typeof id === "string" && id.length > 0 && id.length <= CHAT_LIMITS.idLength && !CONTROL.test(id)) return id;
  const s = typeof id === "string" ? id : String(id);
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return `unshown-id-${(h >>> 0).toString(16).padStart(8, "0")}`;
}

function images(list: unknown): ImageContent[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((b): b is ImageContent => typeof b === "object" && b !== null && (b as ImageContent).type === "image" && typeof (b as ImageContent).data === "string" && typeof (b as ImageContent).mimeType === "string")
    .slice(0, CHAT_LIMITS.blocksPerItem)
    .map((b) => ({ type: "image", data: b.data, mimeType: clampText(b.mimeType, CHAT_LIMITS.nameLength) }));
}

function blocks(list: unknown): (TextContent | ImageContent)[] {
  if (!Array.isArray(list)) return [];
  const out: (TextContent | ImageContent)[] = [];
  for (const b of list.slice(0, CHAT_LIMITS.blocksPerItem)) {
    if (typeof b !== "object" || b === null) continue;
    const block = b as { type?: unknown; text?: unknown };
    if (block.type === "text") out.push({ type: "text", text: text(block.text, CHAT_LIMITS.textLength) });
    else out.push(...images([b]));
  }
  return out;
}

function result(x: unknown): ToolResultView {
  const r = (typeof x === "object" && x !== null ? x : {}) as Partial<ToolResultView>;
  const view: ToolResultView = { entryId: safeEntryId(r.entryId), content: blocks(r.content), isError: r.isError === true };
  if (r.details !== undefined) view.details = clampNesting(r.details);
  return view;
}

function part(x: AssistantPart): AssistantPart {
  switch (x.type) {
    case "text":
      return { type: "text", text: text(x.text, CHAT_LIMITS.textLength) };
    case "thinking":
      return { type: "thinking", text: text(x.text, CHAT_LIMITS.textLength), redacted: x.redacted === true };
    default: {
      const args = clampNesting(x.arguments);
      const call: AssistantPart = {
        type: "toolCall",
        id: text(x.id, CHAT_LIMITS.nameLength),
        name: text(x.name, CHAT_LIMITS.nameLength),
        // Arguments that are not an object (an array, a string) are shown under one key.
        arguments: typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : { arguments: args ?? null },
      };
      if (x.result !== undefined) call.result = result(x.result);
      return call;
    }
  }
}

/** A reply's usage with every count a number (a recorded cost that is not one counts 0: no cost shown). */
function clampUsage(usage: Record<string, unknown>): Usage {
  const cost = (typeof usage.cost === "object" && usage.cost !== null ? usage.cost : {}) as Record<string, unknown>;
  return {
    input: count(usage.input),
    output: count(usage.output),
    cacheRead: count(usage.cacheRead),
    cacheWrite: count(usage.cacheWrite),
    totalTokens: count(usage.totalTokens),
    cost: { input: count(cost.input), output: count(cost.output), cacheRead: count(cost.cacheRead), cacheWrite: count(cost.cacheWrite), total: count(cost.total) },
  };
}

/** Every field of the item brought within the limits (the item is not changed). */
function clampFields(item: TranscriptItem): TranscriptItem {
  const base = { entryId: safeEntryId(item.entryId), timestamp: time(item.timestamp) };
  switch (item.kind) {
    case "user":
      return { ...base, kind: "user", text: text(item.text, CHAT_LIMITS.textLength), images: images(item.images) };
    case "assistant": {
      const usage = item.usage as unknown as Record<string, unknown> | undefined;
      return {
        ...base,
        kind: "assistant",
        parts: (Array.isArray(item.parts) ? item.parts : []).filter((p) => typeof p === "object" && p !== null && ["text", "thinking", "toolCall"].includes(p.type)).slice(0, CHAT_LIMITS.blocksPerItem).map(part),
        provider: text(item.provider, CHAT_LIMITS.nameLength),
        model: text(item.model, CHAT_LIMITS.nameLength),
        stopReason: STOP_REASONS.has(item.stopReason) ? item.stopReason : "stop",
        ...(typeof item.errorMessage === "string" ? { errorMessage: clampText(item.errorMessage, CHAT_LIMITS.textLength) } : {}),
        // A usage without numbers is left out (the heading shows no token count) rather than refused.
        ...(typeof usage === "object" && usage !== null && typeof usage.totalTokens === "number"
          ? { usage: clampUsage(usage) }
          : {}),
      };
    }
    case "toolResult":
      return { ...base, kind: "toolResult", toolCallId: text(item.toolCallId, CHAT_LIMITS.nameLength), toolName: text(item.toolName, CHAT_LIMITS.nameLength), result: result(item.result) };
    case "bash":
      return {
        ...base,
        kind: "bash",
        command: text(item.command, CHAT_LIMITS.textLength),
        output: text(item.output, CHAT_LIMITS.textLength),
        exitCode: typeof item.exitCode === "number" ? item.exitCode : undefined,
        cancelled: item.cancelled === true,
        truncated: item.truncated === true,
        ...(typeof item.fullOutputPath === "string" ? { fullOutputPath: clampText(item.fullOutputPath, CHAT_LIMITS.messageLength) } : {}),
        excludeFromContext: item.excludeFromContext === true,
      };
    case "custom":
      return { ...base, kind: "custom", customType: text(item.customType, CHAT_LIMITS.nameLength), text: text(item.text, CHAT_LIMITS.textLength), images: images(item.images) };
    case "compaction":
      return { ...base, kind: "compaction", summary: text(item.summary, CHAT_LIMITS.textLength), tokensBefore: count(item.tokensBefore), firstKeptEntryId: text(item.firstKeptEntryId, CHAT_LIMITS.nameLength) };
    case "branchSummary":
      return { ...base, kind: "branchSummary", summary: text(item.summary, CHAT_LIMITS.textLength), fromId: text(item.fromId, CHAT_LIMITS.nameLength) };
  }
}

/** A note in place of an item that could not be brought within the limits. */
function unshown(item: { entryId?: unknown; timestamp?: unknown }): TranscriptItem {
  return { kind: "custom", entryId: safeEntryId(item.entryId), timestamp: time(item.timestamp), customType: "arbor", text: "This entry could not be shown: its fields are out of the range the chat can draw.", images: [] };
}

/** The item within the chat protocol's limits (a copy). */
export function clampTranscriptItem(item: TranscriptItem): TranscriptItem {
  // The fields are clamped whatever the guard says of the item: nesting the guard does not look
  // into (tool arguments, result details) would still overflow the clone or JSON.stringify.
  let clamped: TranscriptItem;
  try {
    clamped = clampFields(item);
  } catch {
    return unshown(item);
  }
  return isTranscriptItem(clamped) ? clamped : unshown(item);
}
