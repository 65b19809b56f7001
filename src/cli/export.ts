import { promises as fs } from "node:fs";
import { resolve } from "node:path";
import {
  exportFileName,
  exportFormatOfPath,
  generatorOf,
  loadExportAssets,
  packageRootOf,
  parseExportFormat,
  renderSessionExport,
  type ExportFormat,
} from "../core/export";
import { writeFileAtomic } from "../core/session/file-io";
import { SessionError } from "../core/session/errors";
import { SessionManager } from "../core/session/session-manager";
import { UsageError } from "./args";
import { oneLine } from "./terminal-text";
import type { Timings } from "./timings";

export interface ExportTarget {
  format: ExportFormat;
  /** undefined: standard output. */
  path: string | undefined;
}

/**
 * Where an export goes and in which format. `--format` wins; else the extension of `--out`; else
 * HTML. Without `--out`, Markdown goes to standard output and HTML to `<session name>.html` in the
 * current folder (as Pi's `--export` does); `--out -` is standard output for either.
 */
export function exportTarget(sessionFile: string, format: string | undefined, out: string | undefined, cwd: string): ExportTarget {
  let chosen: ExportFormat | undefined;
  if (format !== undefined) {
    chosen = parseExportFormat(format);
    if (!chosen) throw new UsageError(`--format must be html or md, not "${format}"`);
  }
  chosen ??= (out !== undefined && out !== "-" ? exportFormatOfPath(out) : undefined) ?? "html";
  if (out === "-") return { format: chosen, path: undefined };
  if (out !== undefined) return { format: chosen, path: resolve(cwd, out) };
  return { format: chosen, path: chosen === "md" ? undefined : resolve(cwd, exportFileName(sessionFile, "", chosen)) };
}

async function sameFile(a: string, b: string): Promise<boolean> {
  if (resolve(a) === resolve(b)) return true;
  try {
    const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)]);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false;
  }
}

/** Refuses any output that could destroy a session: the session itself, or any .jsonl file. */
async function checkOutputPath(sessionFile: string, out: string): Promise<void> {
  if (await sameFile(sessionFile, out)) throw new SessionError("io", `refusing to write the export over the session file ${out}`);
  if (/\.jsonl$/i.test(out)) throw new SessionError("io", `refusing to write an export to ${out}: .jsonl files are sessions`);
}

/**
 * Writes the export. A regular file (or a new one) is replaced atomically, so a full disk never
 * leaves half an export over a good one; a FIFO or a device (`/dev/stdout`) is written directly.
 */
async function writeExport(path: string, text: string): Promise<void> {
  const stat = await fs.stat(path).catch(() => undefined);
  try {
    if (stat && !stat.isFile()) {
      if (stat.isDirectory()) throw new SessionError("io", `${path} is a folder: name a file with --out`);
      await fs.writeFile(path, text);
    } else await writeFileAtomic(path, text);
  } catch (err) {
    if (err instanceof SessionError) throw err;
    const e = err as NodeJS.ErrnoException;
    throw new SessionError("io", `cannot write ${path}: ${e.code ?? e.message}`);
  }
}

/** `arbor export FILE [--leaf ID] [--format html|md] [--out PATH]`. Reads the session read-only. */
export async function runExport(
  file: string,
  options: { leaf?: string; format?: string; out?: string },
  write: { stdout(text: string): void },
  timings: Timings,
  here = __dirname,
): Promise<number> {
  const target = exportTarget(file, options.format, options.out, process.cwd());
  if (target.path) await checkOutputPath(file, target.path);
  const sm = await SessionManager.open(file, { readOnly: true });
  timings.mark("open");
  const root = packageRootOf(here);
  const [generator, assets] = await Promise.all([generatorOf(root), target.format === "html" ? loadExportAssets(root) : Promise.resolve(undefined)]);
  timings.mark("assets");
  const text = renderSessionExport(sm, { format: target.format, leafId: options.leaf, generator, assets });
  timings.mark("render");
  if (target.path === undefined) write.stdout(text);
  else {
    await writeExport(target.path, text);
    write.stdout(`${oneLine(target.path)}\n`);
  }
  timings.mark("write");
  return 0;
}
