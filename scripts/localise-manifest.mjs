#!/usr/bin/env node
// Moves package.json's user-facing strings into package.nls.json, leaving "%key%" in their place, so that
// a translation is one more file (package.nls.<locale>.json) and no code changes. Idempotent: strings
// already written as "%key%" stay; a new command, setting, view or walkthrough step written with plain
// text in package.json gets its key on the next run.
//
//   node scripts/localise-manifest.mjs           rewrite package.json and package.nls.json
//   node scripts/localise-manifest.mjs --check   exit 1 if package.json still holds a plain user-facing string
//   --root DIR                                   another folder holding package.json (tests)
//
// Keys: <command id>.title, <command id>.category, <setting>.description (and .markdownDescription,
// .enumDescriptions.<n>, .markdownEnumDescriptions.<n>), view.<id>.name, view.<id>.contextualTitle,
// viewsContainer.<id>.title, viewsWelcome.<view>.<n>, walkthrough.<id>.title/.description,
// walkthrough.<id>.<step>.title/.description/.altText, extension.displayName/.description,
// untrustedWorkspaces.description, configuration.title.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const rootArg = process.argv.indexOf("--root");
const root = rootArg > 0 ? process.argv[rootArg + 1] : join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The user-facing strings of `manifest` not yet written as "%key%": each with its JSON path (keys and
 * array indexes), its key in package.nls.json and its text.
 */
export function plainStrings(manifest) {
  const found = [];
  const take = (path, key) => {
    let holder = manifest;
    for (const step of path.slice(0, -1)) holder = holder?.[step];
    const text = holder?.[path[path.length - 1]];
    if (typeof text === "string" && !/^%.+%$/.test(text)) found.push({ path, key, text });
  };
  const takeList = (path, key) => {
    let list = manifest;
    for (const step of path) list = list?.[step];
    if (Array.isArray(list)) list.forEach((_, i) => take([...path, i], `${key}.${i}`));
  };
  take(["displayName"], "extension.displayName");
  take(["description"], "extension.description");
  take(["capabilities", "untrustedWorkspaces", "description"], "untrustedWorkspaces.description");
  const c = manifest.contributes ?? {};
  const at = ["contributes"];
  for (const [place, containers] of Object.entries(c.viewsContainers ?? {})) {
    containers.forEach((v, i) => take([...at, "viewsContainers", place, i, "title"], `viewsContainer.${v.id}.title`));
  }
  for (const [place, views] of Object.entries(c.views ?? {})) {
    views.forEach((v, i) => {
      take([...at, "views", place, i, "name"], `view.${v.id}.name`);
      take([...at, "views", place, i, "contextualTitle"], `view.${v.id}.contextualTitle`);
    });
  }
  const welcomeCount = {};
  (c.viewsWelcome ?? []).forEach((w, i) => {
    const n = (welcomeCount[w.view] = (welcomeCount[w.view] ?? 0) + 1);
    take([...at, "viewsWelcome", i, "contents"], `viewsWelcome.${w.view}.${n}`);
  });
  (c.commands ?? []).forEach((cmd, i) => {
    take([...at, "commands", i, "title"], `${cmd.command}.title`);
    take([...at, "commands", i, "shortTitle"], `${cmd.command}.shortTitle`);
    // One category for all of Arbor's commands keeps one key.
    take([...at, "commands", i, "category"], cmd.category === "Arbor" ? "category.arbor" : `${cmd.command}.category`);
  });
  const groups = Array.isArray(c.configuration) ? c.configuration.map((g, i) => [g, [...at, "configuration", i]]) : c.configuration ? [[c.configuration, [...at, "configuration"]]] : [];
  for (const [group, path] of groups) {
    take([...path, "title"], "configuration.title");
    for (const name of Object.keys(group.properties ?? {})) {
      const spec = [...path, "properties", name];
      for (const field of ["description", "markdownDescription", "deprecationMessage", "markdownDeprecationMessage"]) take([...spec, field], `${name}.${field}`);
      takeList([...spec, "enumDescriptions"], `${name}.enumDescriptions`);
      takeList([...spec, "markdownEnumDescriptions"], `${name}.markdownEnumDescriptions`);
    }
  }
  (c.walkthroughs ?? []).forEach((w, i) => {
    const path = [...at, "walkthroughs", i];
    take([...path, "title"], `walkthrough.${w.id}.title`);
    take([...path, "description"], `walkthrough.${w.id}.description`);
    (w.steps ?? []).forEach((step, j) => {
      take([...path, "steps", j, "title"], `walkthrough.${w.id}.${step.id}.title`);
      take([...path, "steps", j, "description"], `walkthrough.${w.id}.${step.id}.description`);
      take([...path, "steps", j, "media", "altText"], `walkthrough.${w.id}.${step.id}.altText`);
    });
  });
  return found;
}

/** Where each string value of a JSON text starts and ends, by its path (paths joined with NUL). */
function stringSpans(text) {
  const spans = new Map();
  let i = 0;
  const ws = () => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const str = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return [start, i];
  };
  const value = (path) => {
    ws();
    if (text[i] === "{") {
      i++;
      ws();
      while (text[i] !== "}") {
        const [ks, ke] = str();
        const key = JSON.parse(text.slice(ks, ke));
        ws();
        i++; // :
        value([...path, key]);
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (text[i] === "[") {
      i++;
      ws();
      let n = 0;
      while (text[i] !== "]") {
        value([...path, n++]);
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (text[i] === '"') {
      spans.set(path.join("\0"), str());
    } else {
      while (i < text.length && !/[\s,\]}]/.test(text[i])) i++;
    }
  };
  value([]);
  return spans;
}

/**
 * package.json's text with every plain user-facing string replaced by "%key%" (the rest of the file,
 * its layout included, unchanged), and package.nls.json's entries with those strings added.
 */
export function localiseText(manifestText, nls) {
  const found = plainStrings(JSON.parse(manifestText));
  const spans = stringSpans(manifestText);
  const next = { ...nls };
  const edits = [];
  for (const { path, key, text } of found) {
    if (key in next && next[key] !== text) throw new Error(`package.nls.json's "${key}" says something else: ${JSON.stringify(next[key])}`);
    next[key] = text;
    const span = spans.get(path.join("\0"));
    if (!span) throw new Error(`no string at ${path.join(".")}`);
    edits.push([...span, `"%${key}%"`]);
  }
  let out = manifestText;
  for (const [start, end, replacement] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + replacement + out.slice(end);
  return { text: out, nls: next, moved: found.map((f) => f.key) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const manifestPath = join(root, "package.json");
  const nlsPath = join(root, "package.nls.json");
  const nls = existsSync(nlsPath) ? JSON.parse(readFileSync(nlsPath, "utf8")) : {};
  const { text, nls: next, moved } = localiseText(readFileSync(manifestPath, "utf8"), nls);
  if (process.argv.includes("--check")) {
    if (moved.length > 0) {
      console.error(`package.json has user-facing text outside package.nls.json (${moved.join(", ")}): run \`node scripts/localise-manifest.mjs\`.`);
      process.exit(1);
    }
  } else if (moved.length > 0) {
    writeFileSync(manifestPath, text);
    writeFileSync(nlsPath, JSON.stringify(next, null, 2) + "\n");
    console.log(`moved ${moved.length} strings into package.nls.json`);
  }
}
