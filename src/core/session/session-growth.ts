import { promises as fs } from "node:fs";
import type { EntrySummary } from "../tree/types";
import type { EntryStore } from "./entry-store";
import type { LineProblem } from "./errors";
import { parseChunk } from "./line-parser";

/** The bytes a session file gained since `offset`, or undefined when it did not grow. */
export async function readFrom(file: string, offset: number, size: number): Promise<Buffer | undefined> {
  if (size <= offset) return undefined;
  const handle = await fs.open(file, "r");
  try {
    const buf = Buffer.alloc(size - offset);
    const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** What new bytes of a session file added to its index. */
export interface Growth {
  consumedBytes: number;
  consumedLines: number;
  added: EntrySummary[];
  labels: { targetId: string; label: string | undefined }[];
  problems: LineProblem[];
  /** Where the leaf goes: it follows another process that continues from `leafId` (or always, for a viewer). */
  leafId: string | null;
  sawAssistant: boolean;
}

/**
 * Indexes the complete lines of `buf` (a line still being written waits for its newline), which
 * starts at byte `fileOffset` of the file. Lines this process wrote itself are already indexed:
 * they only get their line numbers and places in the file.
 */
export function ingestGrowth(store: EntryStore, buf: Buffer, fileOffset: number, firstLine: number, leafId: string | null, followAlways: boolean): Growth {
  const chunk = parseChunk(buf, firstLine, false);
  const growth: Growth = { consumedBytes: chunk.consumedBytes, consumedLines: chunk.consumedLines, added: [], labels: [], problems: [...chunk.problems], leafId, sawAssistant: false };
  for (const line of chunk.lines) {
    if (line.value.type === "session") continue;
    const span = { offset: fileOffset + line.start, length: line.end - line.start };
    const known = typeof line.value.id === "string" ? store.indexOf(line.value.id) : -1;
    if (known >= 0) {
      if (store.lineAt(known) === 0) store.setLocation(known, line.line, span);
      continue;
    }
    const result = store.add(line.value, line.line, span);
    if (typeof result !== "number") {
      growth.problems.push(result);
      continue;
    }
    const i = result;
    const summary = store.rememberSummary(i, line.value);
    growth.added.push(summary);
    const parentId = store.parentIdAt(i);
    if (store.roleAt(i) === "assistant") growth.sawAssistant = true;
    if (summary.type === "label") growth.labels.push({ targetId: summary.targetId ?? "", label: summary.label });
    if (followAlways || parentId === growth.leafId) growth.leafId = store.isCheckoutMarker(i) ? parentId : store.idAt(i);
  }
  return growth;
}
