/**
 * Two entries of one session compared as branches: each side is the path from the entries' common
 * ancestor (excluded) down to that entry, written as Markdown for a diff editor, with a summary on
 * top of what the side did to the workspace (files read, written and edited by its tool calls, and
 * the commands it ran). Pure: a session reader in, text out; no `vscode`.
 */
import { escapeInline, transcriptMarkdown } from "../export/export-markdown";
import type { SessionReader } from "../session/session-reader";
import type { SessionEntry } from "../session/types";
import { buildTranscript, type TranscriptItem } from "../transcript";

/** What a branch comparison reads of a session. */
export type BranchSource = Pick<SessionReader, "getPathIds" | "getEntry" | "getSummary" | "getLabels">;

/** One side: an entry and the entries after the common ancestor down to it (root side first). */
export interface BranchSide {
  readonly entryId: string;
  readonly path: readonly SessionEntry[];
}

export interface BranchComparison {
  /** The deepest entry on both paths; null when the two entries share no root. */
  readonly ancestorId: string | null;
  readonly left: BranchSide;
  readonly right: BranchSide;
}

/** A file a tool call touched, or a command that ran, and whether that call failed. */
export interface Effect {
  readonly what: string;
  readonly failed: boolean;
}

/** What a branch did to the workspace, in the order it happened (files listed once each). */
export interface WorkspaceEffects {
  readonly read: readonly Effect[];
  readonly wrote: readonly Effect[];
  readonly edited: readonly Effect[];
  readonly commands: readonly Effect[];
}

/** Longest command shown in a summary line; the transcript below has it whole. */
const COMMAND_CHARS = 300;

/** An entry id as the tree names it: a checkout marker stands for the entry it points at. */
function resolveEntry(source: BranchSource, id: string): string {
  const summary = source.getSummary(id);
  if (!summary) throw new Error(`No entry with id ${id} in this session`);
  return summary.checkoutMarker && summary.parentId !== null ? summary.parentId : id;
}

/** Splits the two entries' root paths at their deepest common entry. */
export function compareBranches(source: BranchSource, leftId: string, rightId: string): BranchComparison {
  const left = resolveEntry(source, leftId);
  const right = resolveEntry(source, rightId);
  const leftPath = source.getPathIds(left);
  const rightPath = source.getPathIds(right);
  let common = 0;
  while (common < leftPath.length && common < rightPath.length && leftPath[common] === rightPath[common]) common++;
  const side = (entryId: string, ids: string[]): BranchSide => ({
    entryId,
    path: ids.slice(common).map((id) => source.getEntry(id)).filter((e): e is SessionEntry => e !== undefined),
  });
  return { ancestorId: common > 0 ? leftPath[common - 1] : null, left: side(left, leftPath), right: side(right, rightPath) };
}

function pathArgument(args: Record<string, unknown>): string | undefined {
  const path = args.path ?? args.file_path;
  return typeof path === "string" && path !== "" ? path : undefined;
}

/** The files and commands a branch's transcript shows being used: tool calls of read, write, edit and bash, and shell runs. */
export function workspaceEffects(items: readonly TranscriptItem[]): WorkspaceEffects {
  const read = new Map<string, Effect>();
  const wrote = new Map<string, Effect>();
  const edited = new Map<string, Effect>();
  const commands: Effect[] = [];
  // A file touched several times is listed once; it counts as failed only if every call failed.
  const note = (into: Map<string, Effect>, what: string, failed: boolean) => {
    const before = into.get(what);
    into.set(what, { what, failed: before ? before.failed && failed : failed });
  };
  for (const item of items) {
    if (item.kind === "bash") {
      commands.push({ what: item.command, failed: item.cancelled || (item.exitCode !== undefined && item.exitCode !== 0) });
      continue;
    }
    if (item.kind !== "assistant") continue;
    for (const part of item.parts) {
      if (part.type !== "toolCall") continue;
      const failed = part.result?.isError === true;
      const path = pathArgument(part.arguments);
      if (part.name === "read" && path) note(read, path, failed);
      else if (part.name === "write" && path) note(wrote, path, failed);
      else if (part.name === "edit" && path) note(edited, path, failed);
      else if (part.name === "bash" && typeof part.arguments.command === "string") commands.push({ what: part.arguments.command, failed });
    }
  }
  return { read: [...read.values()], wrote: [...wrote.values()], edited: [...edited.values()], commands };
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A short name for an entry: its kind and the start of its text. */
export function entryCaption(source: BranchSource, id: string, max = 40): string {
  const s = source.getSummary(id);
  if (!s) return id;
  const kind = s.type === "message" ? (s.role ?? "message") : s.type;
  const text = oneLine(s.preview, max);
  return text ? `${kind}: ${text}` : kind;
}

function effectLines(title: string, effects: readonly Effect[]): string[] {
  if (effects.length === 0) return [];
  return [`### ${title}`, effects.map((e) => `- ${escapeInline(oneLine(e.what, COMMAND_CHARS))}${e.failed ? " *(failed)*" : ""}`).join("\n")];
}

/** The Markdown document of one side of a comparison. */
export function branchMarkdown(source: BranchSource, comparison: BranchComparison, side: "left" | "right"): string {
  const own = comparison[side];
  const items = buildTranscript(own.path);
  const effects = workspaceEffects(items);
  const ancestor = comparison.ancestorId;
  const blocks: string[] = [
    `# Branch to ${escapeInline(entryCaption(source, own.entryId, 80))}`,
    [
      `- Entry: ${escapeInline(own.entryId)}`,
      ancestor === null ? "- No common ancestor: the two entries are on separate roots." : `- From the common ancestor ${escapeInline(ancestor)} (${escapeInline(entryCaption(source, ancestor, 60))}), not shown`,
      `- ${own.path.length} entr${own.path.length === 1 ? "y" : "ies"} on this side`,
    ].join("\n"),
    "## What this branch did to the workspace",
  ];
  const lines = [
    ...effectLines("Read", effects.read),
    ...effectLines("Wrote", effects.wrote),
    ...effectLines("Edited", effects.edited),
    ...effectLines("Ran", effects.commands),
  ];
  blocks.push(...(lines.length ? lines : ["*Nothing: no file was read, written or edited and no command ran on this side.*"]));
  if (own.path.length === 0) blocks.push("*This entry is the common ancestor: the other side continues from it.*");
  else blocks.push(...transcriptMarkdown(items, source.getLabels(), { times: false }));
  return `${blocks.join("\n\n")}\n`;
}
