import type { SessionReader } from "../session/session-reader";
import type { ImageContent } from "../session/types";
import { formatCount, formatTokens } from "../tree/entry-view";
import { buildTranscript, toolResultText, type AssistantItem, type AssistantPart, type ToolResultView, type TranscriptItem } from "../transcript";
import { escapeMessageBody } from "./markdown-body";
import { exportTitle, fence } from "./page-model";

/**
 * Session text that we place in our own lines (headings, names, labels, paths) reads as text: line
 * breaks become spaces, and each character that could start emphasis, code, a link, a table cell,
 * an HTML tag or entity, or close a heading is backslash-escaped. Message bodies stay Markdown, with
 * their raw HTML escaped and their headings shown as text (markdown-body.ts).
 */
export function escapeInline(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/[\\`*_[\]<>&|~#]/g, "\\$&");
}

/** Text as a block quote (each line behind "> "), for summaries and thinking. */
function quote(text: string): string {
  return escapeMessageBody(text, { quoted: true })
    .replace(/\n+$/, "")
    .split("\n")
    .map((line) => (line ? `> ${line}` : ">"))
    .join("\n");
}

/** "2025-01-31 14:05 UTC": the same in every time zone, so exports of one file are equal. */
function when(ms: number): string {
  if (!(ms > 0)) return "";
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The decoded size of base64 data, in words. */
function sizeOf(base64: string): string {
  const bytes = Math.max(0, Math.floor((base64.length * 3) / 4) - (base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0));
  return bytes < 1024 ? `${bytes} bytes` : `${formatCount(Math.round(bytes / 1024))} KB`;
}

/** Images stay out of the Markdown (a data URL of a screenshot is unreadable text); a note says where one was. */
function imageNotes(images: readonly ImageContent[]): string[] {
  return images.map((img) => `*\\[image: ${escapeInline(img.mimeType)}, ${sizeOf(img.data)}\\]*`);
}

/** How transcript items are written. */
export interface TranscriptMarkdownOptions {
  /** Put each item's time in its heading (a branch comparison leaves it out: times always differ). */
  readonly times: boolean;
}

function heading(title: string, item: TranscriptItem, labels: ReadonlyMap<string, string>, options: TranscriptMarkdownOptions, extra: string[] = []): string {
  const parts = [`## ${title}`, ...extra];
  const time = options.times ? when(item.timestamp) : "";
  if (time) parts.push(time);
  const label = labels.get(item.entryId);
  if (label) parts.push(`label: ${escapeInline(label)}`);
  return parts.join(" · ");
}

function toolResultBlock(result: ToolResultView): string[] {
  const out = [result.isError ? "**Result (error):**" : "**Result:**"];
  const text = toolResultText(result);
  out.push(text ? fence(text, "text") : "*(no output)*");
  out.push(...imageNotes(result.content.filter((b): b is ImageContent => b.type === "image")));
  const diff = (result.details as { diff?: unknown } | undefined)?.diff;
  if (typeof diff === "string" && diff) out.push(fence(diff, "diff"));
  return out;
}

function partBlock(part: AssistantPart): string[] {
  switch (part.type) {
    case "text":
      return part.text.trim() ? [escapeMessageBody(part.text.replace(/\n+$/, ""))] : [];
    case "thinking":
      return part.redacted ? ["*(thinking redacted by the provider)*"] : part.text.trim() ? ["**Thinking:**", quote(part.text)] : [];
    case "toolCall": {
      const out = [`**Tool call: ${escapeInline(part.name)}**`, fence(JSON.stringify(part.arguments, null, 2) ?? "{}", "json")];
      if (part.result) out.push(...toolResultBlock(part.result));
      else out.push("*(no result on this path)*");
      return out;
    }
  }
}

function assistantBlock(item: AssistantItem, labels: ReadonlyMap<string, string>, options: TranscriptMarkdownOptions): string[] {
  const model = item.model ? [escapeInline(item.provider ? `${item.provider}/${item.model}` : item.model)] : [];
  const out = [heading("Assistant", item, labels, options, model)];
  for (const part of item.parts) out.push(...partBlock(part));
  if (item.stopReason === "error") out.push(`**Error:** ${escapeInline(item.errorMessage ?? "the reply failed")}`);
  else if (item.stopReason === "aborted") out.push(`**Stopped:** ${escapeInline(item.errorMessage ?? "the reply was aborted")}`);
  else if (item.stopReason === "length") out.push("*(the reply hit the output limit)*");
  return out;
}

/** The Markdown blocks of one transcript item. */
function itemBlocks(item: TranscriptItem, labels: ReadonlyMap<string, string>, options: TranscriptMarkdownOptions = { times: true }): string[] {
  switch (item.kind) {
    case "user":
      return [heading("User", item, labels, options), ...(item.text ? [escapeMessageBody(item.text.replace(/\n+$/, ""))] : []), ...imageNotes(item.images)];
    case "assistant":
      return assistantBlock(item, labels, options);
    case "toolResult":
      return [heading(`Tool result: ${escapeInline(item.toolName)}`, item, labels, options), ...toolResultBlock(item.result)];
    case "bash": {
      const out = [heading(item.excludeFromContext ? "Shell (not sent to the model)" : "Shell", item, labels, options), fence(`$ ${item.command}`, "sh")];
      if (item.output) out.push(fence(item.output, "text"));
      if (item.cancelled) out.push("*Cancelled.*");
      else if (item.exitCode !== undefined && item.exitCode !== 0) out.push(`*Exit code ${item.exitCode}.*`);
      if (item.truncated) out.push(item.fullOutputPath ? `*Output truncated; the full output is in ${escapeInline(item.fullOutputPath)}.*` : "*Output truncated.*");
      return out;
    }
    case "custom":
      return [heading(`Message from ${escapeInline(item.customType)}`, item, labels, options), ...(item.text ? [escapeMessageBody(item.text.replace(/\n+$/, ""))] : []), ...imageNotes(item.images)];
    case "compaction":
      return [heading(`Compaction (${formatTokens(item.tokensBefore)} tokens summarized)`, item, labels, options), quote(item.summary)];
    case "branchSummary":
      return [heading("Branch summary", item, labels, options), quote(item.summary)];
  }
}

/** The Markdown of transcript items, one block per item (the export's form; a branch comparison's sides). */
export function transcriptMarkdown(items: readonly TranscriptItem[], labels: ReadonlyMap<string, string>, options: TranscriptMarkdownOptions): string[] {
  return items.map((item) => itemBlocks(item, labels, options).join("\n\n"));
}

/** Markdown of the transcript of one path: the chat's items, readable as plain text or rendered. */
export function renderExportMarkdown(reader: SessionReader, leafId: string | null, meta: { generator: string; now?: Date }): string {
  const entries = leafId === null ? [] : reader.getBranch(leafId);
  const labels = reader.getLabels();
  const items = buildTranscript(entries);
  const header = reader.getHeader();
  const title = exportTitle(reader.getSessionName(), entries.length ? entries : reader.getEntries().slice(0, 50), header.id);
  const facts = [
    `- Session: ${escapeInline(header.id)}`,
    `- Working folder: ${escapeInline(header.cwd)}`,
    `- Started: ${escapeInline(header.timestamp)}`,
    `- Path: ${entries.length} entr${entries.length === 1 ? "y" : "ies"} to ${leafId === null ? "(none)" : escapeInline(leafId)}`,
    `- Exported by ${escapeInline(meta.generator)} at ${(meta.now ?? new Date()).toISOString()}`,
  ];
  const blocks = [`# ${escapeInline(title)}`, facts.join("\n")];
  for (const item of items) blocks.push(itemBlocks(item, labels).join("\n\n"));
  return `${blocks.join("\n\n")}\n`;
}
