/**
 * Fresh builds of what an export needs, for tests (never a stale dist/): the page bundle and, for
 * the CLI tests, a package laid out as it ships (package.json, dist/cli.js, dist/export.js,
 * media/export.css), so `arbor export` finds its page exactly as an installed one does.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExportAssets } from "../../src/core/export";
import { repoRoot } from "./webview-harness";

/** Bundles webview/export/main.ts as the build does (minified iife, no source map). */
export async function buildExportPage(outfile: string): Promise<string> {
  const esbuild = await import("esbuild");
  await esbuild.build({
    absWorkingDir: repoRoot(),
    entryPoints: ["webview/export/main.ts"],
    outfile,
    bundle: true,
    minify: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    logLevel: "silent",
  });
  return outfile;
}

/** The page's script and style, freshly built into `dir`. */
export async function exportAssets(dir: string): Promise<ExportAssets> {
  const script = readFileSync(await buildExportPage(join(dir, "export.js")), "utf8");
  return { script, style: readFileSync(join(repoRoot(), "media", "export.css"), "utf8") };
}

/** Lays out a runnable package in `dir` and returns the path of its `arbor` entry (dist/cli.js). */
export async function buildCliPackage(dir: string): Promise<string> {
  const esbuild = await import("esbuild");
  const root = repoRoot();
  mkdirSync(join(dir, "dist"), { recursive: true });
  mkdirSync(join(dir, "media"), { recursive: true });
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: pkg.name, version: pkg.version }));
  copyFileSync(join(root, "media", "export.css"), join(dir, "media", "export.css"));
  await Promise.all([
    buildExportPage(join(dir, "dist", "export.js")),
    esbuild.build({
      absWorkingDir: root,
      entryPoints: ["src/cli/arbor.ts"],
      outfile: join(dir, "dist", "cli.js"),
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      logLevel: "silent",
    }),
  ]);
  return join(dir, "dist", "cli.js");
}
