// One esbuild script: the extension (node, cjs, `vscode` external), the webviews and the exported
// page (browser, iife) and the `arbor` command line (node, cjs, with a shebang).
// Plus pi-ai (Pi's provider layer) and its vendor SDKs, typebox and jiti as lazily loaded ESM chunks in dist/pi-ai/.
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

// pi-ai is ESM-only and large (a 0.5 MB model catalog, a vendor SDK per API). src/core/models/pi-ai-modules.ts
// loads each piece with import() when first needed; here each of those specifiers becomes an entry of one
// code-split ESM build (shared code lands in shared chunks), and the node bundles import the chunk at run time.
const LAZY_MODULES = {
  "@mariozechner/pi-ai": "pi-ai",
  "@mariozechner/pi-ai/openai-completions": "openai-completions",
  "@mariozechner/pi-ai/openai-responses": "openai-responses",
  "@mariozechner/pi-ai/azure-openai-responses": "azure-openai-responses",
  "@mariozechner/pi-ai/openai-codex-responses": "openai-codex-responses",
  "@mariozechner/pi-ai/anthropic": "anthropic",
  "@mariozechner/pi-ai/google": "google",
  "@mariozechner/pi-ai/google-vertex": "google-vertex",
  "@mariozechner/pi-ai/mistral": "mistral",
  // Subscription logins (src/core/models/oauth-logins.ts): pi-ai's OAuth helpers, loaded when a login is used.
  "@mariozechner/pi-ai/oauth": "oauth",
  openai: "openai-sdk",
  "@anthropic-ai/sdk": "anthropic-sdk",
  // What Pi extension files import (src/core/pi-extensions/shared-modules.ts): typebox shares its chunk
  // with pi-ai, so a tool's schema and pi-ai's argument check use one copy; jiti loads the files.
  typebox: "typebox",
  "typebox/compile": "typebox-compile",
  "typebox/value": "typebox-value",
  "jiti/static": "jiti",
};
const LAZY_DIR = "pi-ai";

/** Turns `import("<lazy module>")` into an import of its chunk next to the bundle; refuses static imports of them. */
const lazyModules = {
  name: "lazy-modules",
  setup(build) {
    build.onResolve({ filter: /^(@mariozechner\/pi-ai(\/[^/]+)?|openai|@anthropic-ai\/sdk|typebox(\/compile|\/value)?|jiti\/static)$/ }, (args) => {
      const chunk = LAZY_MODULES[args.path];
      if (!chunk) return { errors: [{ text: `${args.path} is not in LAZY_MODULES (scripts/build.mjs)` }] };
      if (args.kind !== "dynamic-import") {
        return { errors: [{ text: `${args.path} must be loaded with import() so it stays out of the bundle (see src/core/models/pi-ai-modules.ts)` }] };
      }
      return { path: `./${LAZY_DIR}/${chunk}.mjs`, external: true };
    });
  },
};

const lazyChunks = {
  ...common,
  entryPoints: Object.entries(LAZY_MODULES).map(([specifier, out]) => ({ in: specifier, out })),
  outdir: `dist/${LAZY_DIR}`,
  outExtension: { ".js": ".mjs" },
  platform: "node",
  format: "esm",
  splitting: true,
  target: "node20",
  // Optional parts of the vendor SDKs that pi-ai never reaches (AWS for Bedrock, OpenTelemetry for Mistral's tracing).
  external: ["@aws-sdk/*", "@smithy/*", "proxy-agent", "@opentelemetry/*"],
  // ESM chunks have no `require`; a few CommonJS dependencies inside the SDKs still call it.
  banner: { js: 'import { createRequire as __arborCreateRequire } from "node:module"; const require = __arborCreateRequire(import.meta.url);' },
};

// The chunks change only with the installed packages: skip rebuilding them (about 15 s) while those stay the same.
const lazyStampFile = join(root, "dist", LAZY_DIR, ".build-stamp");
const lazyStamp = createHash("sha256")
  .update(readFileSync(join(root, "package-lock.json")))
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(String(production))
  .digest("hex");
const lazyChunksCurrent = !watch && existsSync(lazyStampFile) && readFileSync(lazyStampFile, "utf8") === lazyStamp;
if (!lazyChunksCurrent) rmSync(join(root, "dist", LAZY_DIR), { recursive: true, force: true });

const builds = [
  // The banner and footer time the bundle's own evaluation (src/extension/activation-timing.ts reports it).
  { ...common, entryPoints: ["src/extension/extension.ts"], outfile: "dist/extension.js", platform: "node", format: "cjs", target: "node20", external: ["vscode"], plugins: [lazyModules],
    banner: { js: "var __arborModuleStart = performance.now(), __arborModuleCpuStart = process.cpuUsage();" },
    footer: { js: "var __arborModuleEnd = performance.now(), __arborModuleCpu = process.cpuUsage(__arborModuleCpuStart);" } },
  { ...common, entryPoints: ["src/cli/arbor.ts"], outfile: "dist/cli.js", platform: "node", format: "cjs", target: "node20", banner: { js: "#!/usr/bin/env node" }, plugins: [lazyModules] },
  ...(lazyChunksCurrent ? [] : [lazyChunks]),
  { ...common, entryPoints: ["webview/tree/main.ts"], outfile: "dist/tree.js", platform: "browser", format: "iife", target: "es2022" },
  { ...common, entryPoints: ["webview/chat/main.ts"], outfile: "dist/chat.js", platform: "browser", format: "iife", target: "es2022" },
  // Inlined into every HTML export (allowed there by its hash): always minified, no source map.
  { ...common, entryPoints: ["webview/export/main.ts"], outfile: "dist/export.js", platform: "browser", format: "iife", target: "es2022", minify: true, sourcemap: false },
].filter((b) => typeof b.entryPoints[0] !== "string" || existsSync(join(root, b.entryPoints[0])));

function copyAssets() {
  const codicons = join(root, "node_modules/@vscode/codicons/dist");
  mkdirSync(join(root, "dist/codicons"), { recursive: true });
  for (const f of ["codicon.css", "codicon.ttf"]) cpSync(join(codicons, f), join(root, "dist/codicons", f));
  // Photon (the read tool's image resizing) loads its WebAssembly from the folder of the bundle that holds it.
  cpSync(join(root, "node_modules/@silvia-odwyer/photon-node/photon_rs_bg.wasm"), join(root, "dist/photon_rs_bg.wasm"));
}

copyAssets();
if (watch) {
  for (const b of builds) {
    const ctx = await esbuild.context(b);
    await ctx.watch();
  }
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (!lazyChunksCurrent) writeFileSync(lazyStampFile, lazyStamp);
}
