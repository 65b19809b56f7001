import { existsSync, promises as fs } from "node:fs";
import { dirname, join } from "node:path";
import { SessionError } from "../session/errors";
import type { ExportAssets } from "./export-html";

/** Where the built page lives inside the package (the extension folder or the CLI's package). */
export const EXPORT_SCRIPT_PATH = "dist/export.js";
export const EXPORT_STYLE_PATH = "media/export.css";

/** The nearest folder at or above `from` that holds a package.json: the package the code runs from. */
export function packageRootOf(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The package's version, for the page's generator line ("Arbor 0.1.0"). */
export async function generatorOf(root: string): Promise<string> {
  try {
    const pkg = JSON.parse(await fs.readFile(join(root, "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? `Arbor ${pkg.version}` : "Arbor";
  } catch {
    return "Arbor";
  }
}

/** Reads the page's script and style from a package root; a clear error when they were never built. */
export async function loadExportAssets(root: string): Promise<ExportAssets> {
  const read = async (rel: string): Promise<string> => {
    try {
      return await fs.readFile(join(root, rel), "utf8");
    } catch (err) {
      throw new SessionError("not-found", `the export page is missing (${join(root, rel)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); build it with "npm run build"`);
    }
  };
  const [script, style] = await Promise.all([read(EXPORT_SCRIPT_PATH), read(EXPORT_STYLE_PATH)]);
  return { script, style };
}
