/**
 * Markdown from a session, made safe for a page: parsed by `marked`, code highlighted by
 * `highlight.js`, and the result passed through `DOMPurify` with an allow-list before it reaches the
 * DOM. Raw HTML in the text is shown as text, links keep only http(s) and mailto targets, and
 * markdown images are shown as their alt text (a page shows only images carried by the message
 * itself, as data). Shared by the chat and the exported HTML page.
 */
import DOMPurify from "dompurify";
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
import { Marked, type Tokens } from "marked";

const LANGUAGES = { bash, c, cpp, csharp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
const ALIASES: Record<string, string> = { sh: "bash", zsh: "bash", console: "shell", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", ts: "typescript", tsx: "typescript", py: "python", rs: "rust", html: "xml", svg: "xml", yml: "yaml", md: "markdown", "c++": "cpp", cs: "csharp", patch: "diff" };

const SAFE_LINK = /^(?:https?:|mailto:)/i;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The highlight.js language for a fence's info string, if we carry one. */
export function languageOf(info: string | undefined): string | undefined {
  const name = (info ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const resolved = ALIASES[name] ?? name;
  return resolved && hljs.getLanguage(resolved) ? resolved : undefined;
}

/** Highlighted HTML for a piece of code (escaped text when the language is unknown). */
export function highlightCode(code: string, language: string | undefined): string {
  if (!language) return escapeHtml(code);
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return escapeHtml(code);
  }
}

const parser = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in a message is text, never markup.
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    code({ text, lang }: Tokens.Code) {
      const language = languageOf(lang);
      const cls = language ? ` class="hljs language-${language}"` : ` class="hljs"`;
      const label = lang ? ` data-lang="${escapeHtml(lang.trim().split(/\s+/)[0] ?? "")}"` : "";
      return `<pre${label}><code${cls}>${highlightCode(text, language)}</code></pre>\n`;
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, { href, title, tokens }: Tokens.Link) {
      const inner = this.parser.parseInline(tokens);
      if (!SAFE_LINK.test(href)) return inner;
      const t = title ? ` title="${escapeHtml(title)}"` : "";
      return `<a href="${escapeHtml(href)}"${t}>${inner}</a>`;
    },
    // Only images a message carries as data are shown; a markdown image would fetch from anywhere.
    image: ({ text }: Tokens.Image) => escapeHtml(text ? `[image: ${text}]` : "[image]"),
  },
});

const ALLOWED_TAGS = [
  "a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "input",
  "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
];
const ALLOWED_ATTR = ["href", "title", "class", "data-lang", "align", "type", "checked", "disabled", "start"];

let hooked = false;
function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    DOMPurify.addHook("afterSanitizeAttributes", (node) => {
      if (node.tagName === "A") {
        const href = node.getAttribute("href") ?? "";
        if (!SAFE_LINK.test(href)) node.removeAttribute("href");
        node.setAttribute("rel", "noopener noreferrer");
      }
      // GFM task lists render checkboxes: keep them inert.
      if (node.tagName === "INPUT") {
        if (node.getAttribute("type") !== "checkbox") node.remove();
        else node.setAttribute("disabled", "");
      }
      if (node.hasAttribute("class")) {
        const safe = (node.getAttribute("class") ?? "").split(/\s+/).filter((c) => /^(hljs[\w-]*|language-[\w+-]+)$/.test(c));
        if (safe.length) node.setAttribute("class", safe.join(" "));
        else node.removeAttribute("class");
      }
    });
  }
  return DOMPurify;
}

/**
 * How a text is read as markdown. `lineBreaks`: every line break shows as one (what a person typed
 * in a prompt, where Shift+Enter means a new line); otherwise markdown's own rule (a single line
 * break joins the lines), for what models write.
 */
export interface MarkdownOptions {
  readonly lineBreaks?: boolean;
}

/** Sanitised HTML for a markdown text (a string safe to assign to innerHTML). */
export function markdownToSafeHtml(text: string, options: MarkdownOptions = {}): string {
  const html = parser.parse(text, { breaks: options.lineBreaks === true }) as string;
  return purifier().sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false });
}

/** Renders markdown into an element, replacing what it held. */
export function renderMarkdown(target: HTMLElement, text: string, options?: MarkdownOptions): void {
  target.innerHTML = markdownToSafeHtml(text, options);
}

/** The image types a page shows from a message's image blocks. */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** An `<img>` for an image block of a message, or undefined when its type or data is not an image we show. */
export function imageElement(image: { data: string; mimeType: string }, alt = "image from the message"): HTMLImageElement | undefined {
  if (!IMAGE_TYPES.has(image.mimeType) || !/^[A-Za-z0-9+/]+=*$/.test(image.data)) return undefined;
  const img = document.createElement("img");
  img.alt = alt;
  img.src = `data:${image.mimeType};base64,${image.data}`;
  return img;
}
