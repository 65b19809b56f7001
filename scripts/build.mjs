// One esbuild script, three bundles: the extension (node, cjs, `vscode` external),
// the webview (browser, iife) and the `arbor` command line (node, cjs, with a shebang).
import * as esbuild from "esbuild";
import { cpSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const watch = process.argv.includes("--watch");
const production = process.argv.includes("--production");

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: "info",
  absWorkingDir: root,
};

const builds = [
  { ...common, entryPoints: ["src/extension/extension.ts"], outfile: "dist/extension.js", platform: "node", format: "cjs", target: "node20", external: ["vscode"] },
  { ...common, entryPoints: ["src/cli/arbor.ts"], outfile: "dist/cli.js", platform: "node", format: "cjs", target: "node20", banner: { js: "#!/usr/bin/env node" } },
  { ...common, entryPoints: ["webview/tree/main.ts"], outfile: "dist/tree.js", platform: "browser", format: "iife", target: "es2022" },
].filter((b) => existsSync(join(root, b.entryPoints[0])));

function copyAssets() {
  const codicons = join(root, "node_modules/@vscode/codicons/dist");
  mkdirSync(join(root, "dist/codicons"), { recursive: true });
  for (const f of ["codicon.css", "codicon.ttf"]) cpSync(join(codicons, f), join(root, "dist/codicons", f));
}

copyAssets();
if (watch) {
  for (const b of builds) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
