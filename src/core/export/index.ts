/**
 * Exporting a session: a self-contained HTML page (tree and transcript, strict CSP) or Markdown
 * of one path. Shared by the `arbor export` command and the "Export Session..." command; neither
 * ever writes the session itself.
 */
import type { SessionReader } from "../session/session-reader";
import { collectExportData, exportLeaf } from "./export-data";
import { renderExportHtml, type ExportAssets } from "./export-html";
import { renderExportMarkdown } from "./export-markdown";

export { type ExportAssets } from "./export-html";
export { loadExportAssets, generatorOf, packageRootOf } from "./export-assets";

export const EXPORT_FORMATS = ["html", "md"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** "html", "md" (also "markdown"), case-insensitive; undefined for anything else. */
export function parseExportFormat(value: string): ExportFormat | undefined {
  const v = value.toLowerCase();
  if (v === "html" || v === "htm") return "html";
  if (v === "md" || v === "markdown") return "md";
  return undefined;
}

/** The format a file name asks for by its extension (.html/.htm, .md/.markdown), if any. */
export function exportFormatOfPath(path: string): ExportFormat | undefined {
  const dot = path.lastIndexOf(".");
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return dot > slash + 1 ? parseExportFormat(path.slice(dot + 1)) : undefined;
}

/** The export's file name for a session file: its base name with the format's extension. */
export function exportFileName(sessionFile: string | undefined, sessionId: string, format: ExportFormat): string {
  const base = sessionFile ? sessionFile.replace(/^.*[\\/]/, "").replace(/\.jsonl$/i, "") : `session-${sessionId}`;
  return `${base}.${format}`;
}

export interface ExportOptions {
  format: ExportFormat;
  /** Default: the session's leaf. */
  leafId?: string | null;
  /** "Arbor 0.1.0". */
  generator: string;
  /** The built page (HTML only). */
  assets?: ExportAssets;
  now?: Date;
}

/** The export's text. Reads the session; never changes it. */
export function renderSessionExport(reader: SessionReader, options: ExportOptions): string {
  if (options.format === "html") {
    if (!options.assets) throw new Error("renderSessionExport: an HTML export needs the built page assets");
    return renderExportHtml(collectExportData(reader, options), options.assets);
  }
  const leafId = exportLeaf(reader, options.leafId);
  return renderExportMarkdown(reader, leafId, { generator: options.generator, now: options.now });
}
