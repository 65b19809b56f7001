#!/usr/bin/env node
// The README's tables of commands and settings, made from package.json's contributions so that they
// cannot drift from what the extension declares. Each table sits between two marker comments:
//   <!-- generated:commands --> ... <!-- /generated:commands -->
//   <!-- generated:settings --> ... <!-- /generated:settings -->
//
//   node scripts/readme-tables.mjs           rewrite the tables in README.md
//   node scripts/readme-tables.mjs --check   exit 1 (naming the table) if README.md is not up to date
//   --root DIR                               another folder holding package.json and README.md (tests)
//
// Titles and descriptions written as "%key%" (localised manifests) are read from package.nls.json.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const rootArg = process.argv.indexOf("--root");
const root = rootArg > 0 ? process.argv[rootArg + 1] : join(dirname(fileURLToPath(import.meta.url)), "..");

/** The English text of a manifest string: "%key%" is looked up in package.nls.json. */
function localise(text, nls) {
  if (typeof text !== "string") return "";
  const key = /^%(.+)%$/.exec(text);
  if (!key) return text;
  if (!(key[1] in nls)) throw new Error(`package.nls.json has no "${key[1]}"`);
  return nls[key[1]];
}

/** Table cells stay on one line and a `|` in the text does not end the cell. */
function cell(text) {
  return String(text).replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|").trim();
}

function formatDefault(value) {
  if (value === undefined) return "";
  if (value === "") return '`""`';
  return "`" + JSON.stringify(value) + "`";
}

/** Commands the palette shows (not those a menu hides with `"when": "false"`), in manifest order. */
export function commandsTable(manifest, nls) {
  const hidden = new Set(
    (manifest.contributes.menus?.commandPalette ?? []).filter((m) => m.when === "false").map((m) => m.command),
  );
  const rows = manifest.contributes.commands
    .filter((c) => !hidden.has(c.command))
    .map((c) => `| ${cell(`${localise(c.category, nls) || "Arbor"}: ${localise(c.title, nls)}`)} | \`${c.command}\` |`);
  return ["| command | id |", "| --- | --- |", ...rows].join("\n");
}

/** Every setting with its default, its allowed values and its description, sorted by name. */
export function settingsTable(manifest, nls) {
  const groups = [manifest.contributes.configuration].flat();
  const entries = groups.flatMap((g) => Object.entries(g.properties ?? {}));
  entries.sort(([a], [b]) => a.localeCompare(b));
  const rows = entries.map(([name, spec]) => {
    let text = localise(spec.markdownDescription ?? spec.description, nls);
    if (Array.isArray(spec.enum)) text += ` One of ${spec.enum.map((v) => "`" + JSON.stringify(v) + "`").join(", ")}.`;
    if (spec.scope === "machine" || spec.scope === "application") text += ` Scope: ${spec.scope}.`;
    return `| \`${name}\` | ${formatDefault(spec.default)} | ${cell(text)} |`;
  });
  return ["| setting | default | what it does |", "| --- | --- | --- |", ...rows].join("\n");
}

/** README text with each generated table replaced by its current version. */
export function renderReadme(readme, manifest, nls) {
  const tables = { commands: commandsTable(manifest, nls), settings: settingsTable(manifest, nls) };
  let out = readme;
  for (const [name, table] of Object.entries(tables)) {
    const re = new RegExp(`(<!-- generated:${name} -->)[\\s\\S]*?(<!-- /generated:${name} -->)`);
    if (!re.test(out)) throw new Error(`README.md has no <!-- generated:${name} --> block`);
    out = out.replace(re, (_m, open, close) => `${open}\n${table}\n${close}`);
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const nlsPath = join(root, "package.nls.json");
  const nls = existsSync(nlsPath) ? JSON.parse(readFileSync(nlsPath, "utf8")) : {};
  const readmePath = join(root, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const next = renderReadme(readme, manifest, nls);
  if (process.argv.includes("--check")) {
    if (next !== readme) {
      console.error("README.md's command or settings table is out of date: run `node scripts/readme-tables.mjs`.");
      process.exit(1);
    }
  } else if (next !== readme) {
    writeFileSync(readmePath, next);
    console.log("README.md tables updated.");
  }
}
