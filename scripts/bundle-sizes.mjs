#!/usr/bin/env node
// Prints the size of the extension bundle and of what each lazily loaded pi-ai entry pulls in
// (the entry chunk plus every chunk it imports statically), from a build in dist/.
// Usage: node scripts/build.mjs --production && node scripts/bundle-sizes.mjs
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const lazy = join(dist, "pi-ai");
if (!existsSync(join(dist, "extension.js")) || !existsSync(lazy)) {
  console.error("bundle-sizes: build first (node scripts/build.mjs --production)");
  process.exit(1);
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** The chunk files an ESM chunk imports statically (`import ... from "./x.mjs"`, `export ... from`). */
function staticImports(file) {
  const text = readFileSync(join(lazy, file), "utf8");
  // Minified or not: `import{a}from"./x.mjs"`, `import "./x.mjs"`, `export * from "./x.mjs"`; dynamic import() is not followed.
  return [...text.matchAll(/(?:^|[;}\s])(?:import|export)(?!\s*\()(?:[^"'();]*?from)?\s*["']\.\/([^"']+\.mjs)["']/g)].map((m) => m[1]);
}

function closure(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of staticImports(file)) visit(next);
  };
  visit(entry);
  return [...seen];
}

const size = (files) => files.reduce((sum, file) => sum + statSync(join(lazy, file)).size, 0);
const allChunks = readdirSync(lazy).filter((file) => file.endsWith(".mjs"));

console.log(`dist/extension.js                      ${kb(statSync(join(dist, "extension.js")).size)}`);
console.log(`dist/pi-ai/*.mjs, all (${allChunks.length} files)          ${kb(size(allChunks))}`);
const catalog = closure("pi-ai.mjs");
console.log(`loaded for the model catalog           ${kb(size(catalog))}`);
for (const [api, entry, sdk] of [
  ["openai-completions", "openai-completions.mjs", "openai-sdk.mjs"],
  ["openai-responses", "openai-responses.mjs", "openai-sdk.mjs"],
  ["anthropic-messages", "anthropic.mjs", "anthropic-sdk.mjs"],
  ["google-generative-ai", "google.mjs", undefined],
  ["mistral-conversations", "mistral.mjs", undefined],
]) {
  const files = new Set([...catalog, ...closure(entry), ...(sdk ? closure(sdk) : [])]);
  console.log(`+ first ${api.padEnd(22)}     ${kb(size([...files].filter((f) => !catalog.includes(f))))} more`);
}
