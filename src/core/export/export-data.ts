import { basename } from "node:path";
import { SessionError } from "../session/errors";
import type { SessionReader } from "../session/session-reader";
import { EXPORT_DATA_VERSION, type ExportPageData } from "./page-data";

export interface ExportDataOptions {
  /** The leaf to open the page on; default the session's leaf. Must be an entry of the session. */
  leafId?: string | null;
  /** "Arbor 0.1.0". */
  generator: string;
  /** The export time (tests pass a fixed one). */
  now?: Date;
}

/** The leaf an export starts from: the one asked for (checked), else the session's own. */
export function exportLeaf(reader: SessionReader, leafId: string | null | undefined): string | null {
  if (leafId === undefined) return reader.getLeafId();
  if (leafId !== null && !reader.hasEntry(leafId)) {
    throw new SessionError("unknown-entry", `no entry with id ${leafId} in ${reader.getSessionFile() ?? "this session"}`);
  }
  return leafId;
}

/** Everything an HTML export carries, read from a session without changing it. */
export function collectExportData(reader: SessionReader, options: ExportDataOptions): ExportPageData {
  const header = reader.getHeader();
  const file = reader.getSessionFile();
  return {
    version: EXPORT_DATA_VERSION,
    generator: options.generator,
    exportedAt: (options.now ?? new Date()).toISOString(),
    session: {
      id: header.id,
      name: reader.getSessionName() ?? null,
      cwd: header.cwd,
      startedAt: header.timestamp,
      fileName: file ? basename(file) : null,
    },
    leafId: exportLeaf(reader, options.leafId),
    entries: reader.getEntries(),
    labels: [...reader.getLabels()].map(([targetId, label]) => ({ targetId, label })),
    badLines: reader.getProblems().length,
  };
}
