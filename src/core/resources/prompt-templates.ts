/**
 * Prompt templates: a .md file whose body becomes the prompt when the user types `/name args`.
 * The arguments are split as a shell splits words (quotes group, no escapes) and replace `$1`…,
 * `$@` / `$ARGUMENTS` (all of them) and `${@:N}` / `${@:N:L}` (from the Nth, L of them), as in Pi.
 */
import { basename } from "node:path";
import { parseFrontmatter } from "./frontmatter";
import type { LocatedResource } from "./locations";
import type { ResourceFs } from "./resource-fs";
import type { PromptTemplate, ResourceDiagnostic } from "./types";

/** A template's description when its front matter gives none: its first line, cut at 60 characters. */
function firstLineDescription(body: string): string {
  const line = body.split("\n").find((l) => l.trim() !== "");
  if (!line) return "";
  return line.length > 60 ? `${line.slice(0, 60)}...` : line;
}

export function readPromptTemplate(fs: ResourceFs, located: LocatedResource, diagnostics: ResourceDiagnostic[]): PromptTemplate | undefined {
  const { path } = located;
  let content: string;
  try {
    content = fs.readText(path);
  } catch (error) {
    diagnostics.push({ kind: "prompt", level: "warning", message: `Could not read it: ${error instanceof Error ? error.message : String(error)}`, path });
    return undefined;
  }
  const parsed = parseFrontmatter(content);
  if (parsed.error) {
    diagnostics.push({ kind: "prompt", level: "warning", message: `Its front matter is not valid YAML, so the template is not loaded: ${parsed.error}`, path });
    return undefined;
  }
  const fm = parsed.frontmatter;
  const description = typeof fm.description === "string" && fm.description ? fm.description : firstLineDescription(parsed.body);
  const hint = fm["argument-hint"];
  return {
    name: basename(path).replace(/\.md$/, ""),
    description,
    ...(typeof hint === "string" && hint ? { argumentHint: hint } : {}),
    content: parsed.body,
    path,
    source: located.source,
  };
}

/** The templates of the located files: the first of a name wins, the others are reported. */
export function loadPromptTemplates(fs: ResourceFs, located: readonly LocatedResource[], diagnostics: ResourceDiagnostic[]): PromptTemplate[] {
  const byName = new Map<string, PromptTemplate>();
  for (const item of located) {
    const template = readPromptTemplate(fs, item, diagnostics);
    if (!template) continue;
    const winner = byName.get(template.name);
    if (winner) diagnostics.push({ kind: "prompt", level: "warning", message: `Another prompt template is also named "/${template.name}"; this one is not used.`, path: template.path, winnerPath: winner.path });
    else byName.set(template.name, template);
  }
  return [...byName.values()];
}

/** Words of an argument string; single or double quotes group words (and are removed). */
export function splitArguments(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  for (const c of text) {
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === " " || c === "\t") {
      if (word) words.push(word);
      word = "";
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}

/** The template's text with its placeholders replaced (the arguments' own `$` text is left as it is). */
export function fillTemplate(content: string, args: readonly string[]): string {
  const all = args.join(" ");
  // One pass, so that an argument holding "$1" or "$@" is not replaced again.
  return content.replace(/\$(\d+)|\$\{@:(\d+)(?::(\d+))?\}|\$ARGUMENTS|\$@/g, (_match, index?: string, start?: string, length?: string) => {
    if (index !== undefined) return args[Number(index) - 1] ?? "";
    if (start !== undefined) {
      const from = Math.max(0, Number(start) - 1);
      return (length !== undefined ? args.slice(from, from + Number(length)) : args.slice(from)).join(" ");
    }
    return all;
  });
}

/** `/name args` as the prompt it stands for; undefined when no template has that name. */
export function expandPromptTemplate(text: string, templates: readonly PromptTemplate[]): string | undefined {
  if (!text.startsWith("/")) return undefined;
  const space = text.indexOf(" ");
  const name = space === -1 ? text.slice(1) : text.slice(1, space);
  const template = templates.find((t) => t.name === name);
  if (!template) return undefined;
  return fillTemplate(template.content, splitArguments(space === -1 ? "" : text.slice(space + 1)));
}
