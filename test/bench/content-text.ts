/**
 * Plausible coding-session text: prompts, reasoning, source files, grep hits, test and build logs.
 * Built from random identifiers, numbers and hashes so that the files are not trivially
 * compressible and no two tool outputs are the same, which keeps parse costs realistic.
 */
import { Rng } from "./rng";

const SYLLABLES = [
  "arb", "or", "sess", "ion", "tree", "node", "leaf", "path", "pars", "er", "idx", "map", "buf", "line",
  "ent", "ry", "load", "save", "tok", "en", "comp", "act", "lab", "el", "fork", "head", "er", "view",
  "rend", "row", "col", "span", "lock", "queue", "flush", "tail", "watch", "cache", "key", "val", "diff",
  "hunk", "blob", "git", "ref", "msg", "tool", "call", "res", "ult", "model", "prov", "id", "stat", "sum",
];
const VERBS = ["get", "set", "build", "parse", "load", "resolve", "append", "create", "update", "find",
  "read", "write", "render", "apply", "collect", "compute", "ensure", "handle", "open", "close"];
const DIRS = ["src/core/session", "src/core/tree", "src/extension", "src/protocol", "webview/tree", "webview/shared",
  "test/unit", "test/fixtures", "scripts", "src/cli", "src/core/compaction"];
const EXTENSIONS = [".ts", ".ts", ".ts", ".tsx", ".json", ".md", ".mjs"];
const TYPES = ["string", "number", "boolean", "string[]", "Map<string, number>", "EntrySummary",
  "SessionEntry | undefined", "Promise<void>", "readonly string[]", "Disposable"];
const TASKS = [
  "fix the failing test in {file}", "add a unit test for {fn} covering the empty case",
  "refactor {fn} so it no longer walks the whole file", "rename {fn} to {fn2} everywhere",
  "the tree flickers when I expand {fn}, can you find out why", "make {fn} handle a torn last line",
  "add JSDoc to the exported API in {file}", "why does {fn} return undefined for orphans?",
  "implement {fn} in {file} following the spec", "the build fails with TS2322 in {file}, please fix it",
  "speed up {fn}: it is called on every keystroke", "split {file} into smaller files with one job each",
  "add a setting for {fn} and wire it through the protocol", "review the diff and tell me what is risky",
];
const THOUGHTS = [
  "The caller only needs the ids here, so materializing the full entries is wasted work.",
  "I should check whether {fn} is also used by the webview before changing its signature.",
  "The test expects {n} children but the fixture has an orphan, which becomes a root.",
  "If the last line is torn, appending right after it would glue two JSON objects together.",
  "Reading {file} first will tell me how the index is keyed.",
  "The error says the type is widened; a const assertion on the literal should fix it.",
  "There may be a second call site in {file} that relies on the old ordering.",
  "Sorting by timestamp is stable here because ids break ties.",
  "The user wants minimal changes, so I will not touch the public API of {fn}.",
  "Running the whole suite takes a while; I will run only the affected test file first.",
];
const TEST_FAILURES = [
  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
  "TypeError: Cannot read properties of undefined (reading '{fn}')",
  "Error: ENOENT: no such file or directory, open '{file}'",
  "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
];
const TS_ERRORS = [
  "TS2322: Type 'string | undefined' is not assignable to type 'string'.",
  "TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.",
  "TS7006: Parameter '{v}' implicitly has an 'any' type.",
  "TS2339: Property '{v}' does not exist on type '{T}'.",
  "TS6133: '{v}' is declared but its value is never read.",
];

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function identifier(rng: Rng): string {
  const parts = rng.int(1, 3);
  let name = rng.pick(SYLLABLES);
  for (let i = 1; i < parts; i++) {
    name += capitalize(rng.pick(SYLLABLES));
  }
  return name;
}

export function functionName(rng: Rng): string {
  return rng.pick(VERBS) + capitalize(identifier(rng));
}

export function typeName(rng: Rng): string {
  return capitalize(identifier(rng)) + rng.pick(["", "", "Info", "Options", "State", "Entry", "Node"]);
}

export function filePath(rng: Rng): string {
  const stem = [identifier(rng), identifier(rng)].join("-").toLowerCase();
  return `${rng.pick(DIRS)}/${stem}${rng.pick(EXTENSIONS)}`;
}

function fill(template: string, rng: Rng): string {
  return template
    .replace(/\{file\}/g, () => filePath(rng))
    .replace(/\{fn2?\}/g, () => functionName(rng))
    .replace(/\{n\}/g, () => String(rng.int(2, 40)))
    .replace(/\{v\}/g, () => identifier(rng))
    .replace(/\{T\}/g, () => typeName(rng));
}

/** Fills text up to about `targetChars` by repeating `produce`. */
function upTo(targetChars: number, produce: () => string, separator: string): string {
  const parts: string[] = [];
  let length = 0;
  while (length < targetChars) {
    const part = produce();
    parts.push(part);
    length += part.length + separator.length;
  }
  return parts.join(separator);
}

export function userPrompt(rng: Rng): string {
  const first = fill(rng.pick(TASKS), rng);
  if (rng.chance(0.55)) {
    return first;
  }
  return upTo(rng.skewedInt(120, 900), () => fill(rng.pick([...TASKS, ...THOUGHTS]), rng), " ");
}

export function reasoning(rng: Rng, minChars: number, maxChars: number): string {
  return upTo(rng.skewedInt(minChars, maxChars, 1.6), () => fill(rng.pick(THOUGHTS), rng), " ");
}

function codeLine(rng: Rng, indent: string): string {
  const v = identifier(rng);
  switch (rng.int(0, 7)) {
    case 0: return `${indent}const ${v} = ${functionName(rng)}(${identifier(rng)}, ${rng.int(0, 4096)});`;
    case 1: return `${indent}if (${v}.${identifier(rng)} === undefined) return ${rng.pick(["null", "[]", "false", "undefined"])};`;
    case 2: return `${indent}// ${fill(rng.pick(THOUGHTS), rng)}`;
    case 3: return `${indent}for (const ${v} of this.${identifier(rng)}.values()) {`;
    case 4: return `${indent}throw new Error(\`${functionName(rng)}: ${identifier(rng)} \${${v}} not found\`);`;
    case 5: return `${indent}${v}.${rng.pick(VERBS)}(${JSON.stringify(identifier(rng) + "-" + rng.hex(6))});`;
    case 6: return `${indent}let ${v}: ${rng.pick(TYPES)} = ${rng.pick(["0", "''", "null", "new Map()", "[]"])};`;
    default: return `${indent}return ${v}.${functionName(rng)}() + ${rng.int(1, 999)};`;
  }
}

/** A few consecutive lines of TypeScript-looking code (what an edit replaces). */
export function codeSnippet(rng: Rng, lines: number): string {
  return Array.from({ length: lines }, () => codeLine(rng, "  ")).join("\n");
}

/** The text of a TypeScript-looking source file of about `targetChars`. */
export function sourceFile(rng: Rng, targetChars: number): string {
  const lines: string[] = [];
  for (let i = rng.int(1, 5); i > 0; i--) {
    lines.push(`import { ${typeName(rng)}, ${functionName(rng)} } from "./${identifier(rng).toLowerCase()}";`);
  }
  let length = 0;
  while (length < targetChars) {
    const block: string[] = [""];
    block.push(`/** ${fill(rng.pick(THOUGHTS), rng)} */`);
    block.push(`export function ${functionName(rng)}(${identifier(rng)}: ${rng.pick(TYPES)}): ${rng.pick(TYPES)} {`);
    for (let i = rng.int(2, 9); i > 0; i--) {
      block.push(codeLine(rng, "  "));
    }
    block.push("}");
    lines.push(...block);
    length += block.reduce((sum, line) => sum + line.length + 1, 0);
  }
  return lines.join("\n");
}

export function grepOutput(rng: Rng, targetChars: number): string {
  const files = Array.from({ length: rng.int(2, 8) }, () => filePath(rng));
  return upTo(targetChars, () => `${rng.pick(files)}:${rng.int(1, 900)}:${codeLine(rng, "  ")}`, "\n");
}

export function testLog(rng: Rng, targetChars: number, failing: boolean): string {
  const lines: string[] = [`> arbor@0.1.0 test:unit`, `> mocha --config .mocharc.json`, ""];
  let passing = 0;
  let length = 0;
  while (length < targetChars) {
    const suite = `  ${typeName(rng)}`;
    lines.push(suite);
    length += suite.length;
    for (let i = rng.int(2, 8); i > 0; i--) {
      const line = `    ✔ ${fill(rng.pick(TASKS), rng).slice(0, 70)}${rng.chance(0.3) ? ` (${rng.int(1, 900)}ms)` : ""}`;
      lines.push(line);
      length += line.length;
      passing++;
    }
  }
  lines.push("", `  ${passing} passing (${rng.int(1, 30)}s)`);
  if (failing) {
    const failures = rng.int(1, 3);
    lines.push(`  ${failures} failing`, "");
    for (let i = 1; i <= failures; i++) {
      lines.push(`  ${i}) ${typeName(rng)}`, `       ${functionName(rng)}:`, `     ${fill(rng.pick(TEST_FAILURES), rng)}`);
      lines.push(`      + expected - actual`, ``, `      -${rng.int(0, 99)}`, `      +${rng.int(0, 99)}`, "");
      for (let j = rng.int(3, 7); j > 0; j--) {
        lines.push(`      at ${functionName(rng)} (${filePath(rng).replace(/\.\w+$/, ".js")}:${rng.int(1, 500)}:${rng.int(1, 80)})`);
      }
    }
  }
  return lines.join("\n");
}

export function compilerLog(rng: Rng, errors: number): string {
  const lines = Array.from({ length: errors }, () =>
    `${filePath(rng)}(${rng.int(1, 400)},${rng.int(1, 60)}): error ${fill(rng.pick(TS_ERRORS), rng)}`);
  lines.push("", `Found ${errors} error${errors === 1 ? "" : "s"} in ${rng.int(1, errors)} file${errors === 1 ? "" : "s"}.`);
  return lines.join("\n");
}

export function gitLog(rng: Rng, commits: number): string {
  return Array.from({ length: commits }, () =>
    `${rng.hex(7)} ${capitalize(fill(rng.pick(TASKS), rng)).slice(0, 72)}`).join("\n");
}

export function unifiedDiff(rng: Rng, path: string, hunks: number): string {
  const lines = [`--- a/${path}`, `+++ b/${path}`];
  for (let h = 0; h < hunks; h++) {
    const start = rng.int(1, 400);
    lines.push(`@@ -${start},6 +${start},${rng.int(5, 9)} @@`);
    for (let i = rng.int(4, 10); i > 0; i--) {
      lines.push(rng.pick([" ", " ", "-", "+"]) + codeLine(rng, "  "));
    }
  }
  return lines.join("\n");
}

/** A structured summary of the kind an agent writes when compacting or leaving a branch. */
export function structuredSummary(rng: Rng, targetChars: number, files: readonly string[]): string {
  const section = (title: string) =>
    `## ${title}\n${upTo(rng.int(150, 600), () => `- ${fill(rng.pick([...TASKS, ...THOUGHTS]), rng)}`, "\n")}`;
  const parts = [section("Goal"), section("Constraints"), section("Progress"), section("Key decisions")];
  parts.push(`## Files\n${files.map((f) => `- ${f}`).join("\n")}`);
  let text = parts.join("\n\n");
  while (text.length < targetChars) {
    text += "\n\n" + section(rng.pick(["Next steps", "Critical context", "Open questions"]));
  }
  return text;
}
