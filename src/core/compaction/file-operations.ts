/**
 * The files a stretch of conversation read and changed, gathered from the agent's tool calls
 * and from earlier summaries, so a summary can list them and the next one can carry them on.
 * Pure.
 */
import type { AgentMessage } from "../session/types";

/** Paths touched, by kind of operation. */
export interface FileOperations {
  read: Set<string>;
  written: Set<string>;
  edited: Set<string>;
}

/** The read / modified lists a compaction or branch summary records in its `details`. */
export interface FileLists {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Pi's built-in file tools, by the name the model calls them with. */
const FILE_TOOL_KINDS: Readonly<Record<string, keyof FileOperations>> = {
  read: "read",
  write: "written",
  edit: "edited",
};

/** An empty set of file operations. */
export function createFileOperations(): FileOperations {
  return { read: new Set(), written: new Set(), edited: new Set() };
}

/**
 * Add the paths of an assistant message's `read`, `write` and `edit` tool calls (their `path`
 * argument) to `ops`. Other roles, other tools and calls without a string path are ignored.
 */
export function extractFileOperations(message: AgentMessage, ops: FileOperations): void {
  if (message.role !== "assistant" || !Array.isArray(message.content)) return;
  for (const block of message.content as unknown[]) {
    if (typeof block !== "object" || block === null) continue;
    const call = block as { type?: unknown; name?: unknown; arguments?: unknown };
    if (call.type !== "toolCall" || !("arguments" in call) || !("name" in call)) continue;
    const args = call.arguments as { path?: unknown } | null | undefined;
    const path = args && typeof args.path === "string" ? args.path : undefined;
    if (!path) continue;
    const kind = typeof call.name === "string" && Object.hasOwn(FILE_TOOL_KINDS, call.name) ? FILE_TOOL_KINDS[call.name] : undefined;
    if (kind) ops[kind].add(path);
  }
}

/**
 * Carry over the file lists an earlier summary recorded in its `details`: its read files stay
 * read, its modified files count as edited. Details of another shape are ignored.
 */
export function addRecordedFileLists(details: unknown, ops: FileOperations): void {
  if (typeof details !== "object" || details === null) return;
  const { readFiles, modifiedFiles } = details as { readFiles?: unknown; modifiedFiles?: unknown };
  if (Array.isArray(readFiles)) for (const file of readFiles) ops.read.add(file);
  if (Array.isArray(modifiedFiles)) for (const file of modifiedFiles) ops.edited.add(file);
}

/** Sorted lists: files only read, and files written or edited (a file both read and changed is "modified"). */
export function computeFileLists(ops: FileOperations): FileLists {
  const modified = new Set([...ops.edited, ...ops.written]);
  const readFiles = [...ops.read].filter((file) => !modified.has(file)).sort();
  return { readFiles, modifiedFiles: [...modified].sort() };
}

/**
 * The file lists as tagged blocks to append to a summary (`<read-files>`, `<modified-files>`,
 * one path per line, led by a blank line); "" when both are empty. The tags match Pi's so that
 * summaries read the same whichever tool wrote them.
 */
export function formatFileOperations(readFiles: readonly string[], modifiedFiles: readonly string[]): string {
  const sections: string[] = [];
  if (readFiles.length > 0) sections.push(`<read-files>\n${readFiles.join("\n")}\n</read-files>`);
  if (modifiedFiles.length > 0) sections.push(`<modified-files>\n${modifiedFiles.join("\n")}\n</modified-files>`);
  return sections.length === 0 ? "" : `\n\n${sections.join("\n\n")}`;
}
