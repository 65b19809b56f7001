/**
 * Code highlighted by `highlight.js`, in slices: a code block is cut into runs of lines of at most
 * SLICE_CHARS, each highlighted on its own as time allows (highlight.js is superlinear on long tokens
 * and costs about a millisecond per kilobyte on ordinary code, so a long block in one call would hold
 * the page for seconds). Until its turn a slice shows as plain text; a line longer than LINE_CHARS
 * stays plain. A construct that spans two slices (a long comment) is coloured per slice.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { runInSlices } from "./slices";

const LANGUAGES = { bash, c, cpp, csharp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
const ALIASES: Record<string, string> = { sh: "bash", zsh: "bash", console: "shell", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", ts: "typescript", tsx: "typescript", py: "python", rs: "rust", html: "xml", svg: "xml", yml: "yaml", md: "markdown", "c++": "cpp", cs: "csharp", patch: "diff" };

/** Characters of code highlighted in one call, at most. */
export const SLICE_CHARS = 2048;
/** A line longer than this is not highlighted (a long token costs highlight.js quadratic time). */
export const LINE_CHARS = 400;

/** The highlight.js language for a fence's info string, if we carry one. */
export function languageOf(info: string | undefined): string | undefined {
  const name = (info ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const resolved = ALIASES[name] ?? name;
  return resolved && hljs.getLanguage(resolved) ? resolved : undefined;
}

/** Pieces of code to highlight one by one: runs of whole lines, and long lines alone (`plain`). */
export function codeSlices(code: string): { text: string; plain: boolean }[] {
  const out: { text: string; plain: boolean }[] = [];
  let start = 0;
  let pos = 0;
  while (pos < code.length) {
    const nl = code.indexOf("\n", pos);
    const end = nl < 0 ? code.length : nl + 1;
    if (end - pos > LINE_CHARS) {
      if (pos > start) out.push({ text: code.slice(start, pos), plain: false });
      out.push({ text: code.slice(pos, end), plain: true });
      start = end;
    } else if (end - start > SLICE_CHARS) {
      out.push({ text: code.slice(start, pos), plain: false });
      start = pos;
    }
    pos = end;
  }
  if (start < code.length) out.push({ text: code.slice(start), plain: false });
  return out;
}

/** Highlight.js's HTML for one slice (its output escapes the code and adds only spans). */
function highlighted(code: string, language: string): string | undefined {
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return undefined;
  }
}

/**
 * Fills a `<code>` element with a piece of code, highlighted slice by slice: the first slices now
 * while `deadline` (a `performance.now()` time) allows, the rest appended in later tasks.
 * `sanitize` turns highlight.js's HTML into nodes.
 */
export function fillCode(target: HTMLElement, code: string, language: string | undefined, deadline: number, sanitize: (html: string) => DocumentFragment): void {
  if (!language) {
    target.textContent = code;
    return;
  }
  const slices = codeSlices(code);
  if (slices.length === 1) {
    // One slice: highlighted into the element itself, now if time allows.
    target.textContent = code;
    const step = (): boolean => {
      const html = slices[0]!.plain ? undefined : highlighted(code, language);
      if (html !== undefined) target.replaceChildren(sanitize(html));
      return true;
    };
    if (performance.now() < deadline) step();
    else runInSlices(target, step, target);
    return;
  }
  // More: one block each (see .code-slice in the stylesheets), appended in order, highlighted as
  // they are appended, so that a long block is laid out piece by piece and each highlight lays out
  // its own slice, not every line of the block.
  target.replaceChildren();
  let next = 0;
  const step = (): boolean => {
    const slice = slices[next++]!;
    const span = document.createElement("span");
    span.className = "code-slice";
    const html = slice.plain ? undefined : highlighted(slice.text, language);
    if (html !== undefined) span.append(sanitize(html));
    else span.textContent = slice.text;
    target.append(span);
    return next >= slices.length;
  };
  while (next < slices.length && performance.now() < deadline) step();
  if (next < slices.length) runInSlices(target, step, target);
}
