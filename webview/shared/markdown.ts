/**
 * Markdown from a session, made safe for a page: parsed by `marked`, code highlighted by
 * `highlight.js`, and the result passed through `DOMPurify` with an allow-list before it reaches the
 * DOM. Raw HTML in the text is shown as text, links keep only http(s) and mailto targets, and
 * markdown images are shown as their alt text (a page shows only images carried by the message
 * itself, as data). Shared by the chat and the exported HTML page.
 */
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";
import { fillCode, languageOf } from "./code-highlight";
import { markdownSections, sectionsOf, type MarkdownSection } from "./markdown-sections";
import { cancelSlices, pauseSlices, runInSlices, TASK_BUDGET_MS } from "./slices";

export { languageOf } from "./code-highlight";

const SAFE_LINK = /^(?:https?:|mailto:)/i;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const parser = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in a message is text, never markup.
    html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
    // Plain here; highlighted once sanitised, in slices (see fillCode).
    code({ text, lang }: Tokens.Code) {
      const language = languageOf(lang);
      const cls = language ? ` class="hljs language-${language}"` : ` class="hljs"`;
      const label = lang ? ` data-lang="${escapeHtml(lang.trim().split(/\s+/)[0] ?? "")}"` : "";
      return `<pre${label}><code${cls}>${escapeHtml(text)}</code></pre>\n`;
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

/**
 * What one task appends, at most, in characters of text plus ELEMENT_WEIGHT per element: laying out
 * text costs the frame after the task (about a millisecond per 5 KB of plain text here, and about as
 * much per 80 elements of dense markup, where many short blocks cost by their count, not their
 * size), so appending is paced by that weight as well as by time.
 */
const CHARS_PER_TASK = 24_576;
const ELEMENT_WEIGHT = 64;

/** Lines a section's text takes at about 80 characters a line (an estimate of its height). */
function estimatedLines(text: string): number {
  let lines = 0;
  for (const line of text.split("\n")) lines += Math.max(1, Math.ceil(line.length / 80));
  return lines;
}

/** The layout weight of nodes about to be appended (see CHARS_PER_TASK). */
function weightOf(text: string, nodes: Node): number {
  const elements = nodes instanceof Element || nodes instanceof DocumentFragment ? nodes.querySelectorAll("*").length + 1 : 0;
  return text.length + ELEMENT_WEIGHT * elements;
}

const PURIFY = { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false } as const;

function sanitizeToFragment(html: string): DocumentFragment {
  return purifier().sanitize(html, { ...PURIFY, RETURN_DOM_FRAGMENT: true });
}

/** A piece shown as the text it is, when markdown cannot be trusted to parse it. */
function plainBlock(text: string): HTMLElement {
  const p = document.createElement("p");
  p.className = "md-plain";
  p.textContent = text;
  return p;
}

/** The nodes of one section; a section the parser or the sanitiser fails on is shown as text. */
function sectionNodes(section: MarkdownSection, options: MarkdownOptions, deadline: number): Node {
  if (section.kind === "plain") return plainBlock(section.text);
  if (section.kind === "code") {
    const language = languageOf(section.info);
    const pre = document.createElement("pre");
    const label = section.info.split(/\s+/)[0];
    if (label) pre.dataset.lang = label;
    const code = document.createElement("code");
    code.className = language ? `hljs language-${language}` : "hljs";
    pre.append(code);
    fillCode(code, section.text, language, deadline, sanitizeToFragment);
    return pre;
  }
  let fragment: DocumentFragment;
  try {
    fragment = sanitizeToFragment(parser.parse(section.text, { breaks: options.lineBreaks === true }) as string);
  } catch {
    // Deep nesting the sections missed overflows the parser's stack: the text stays readable.
    return plainBlock(section.text);
  }
  for (const code of fragment.querySelectorAll<HTMLElement>("pre > code")) {
    const language = /\blanguage-([\w+-]+)/.exec(code.className)?.[1];
    if (language) fillCode(code, code.textContent ?? "", language, deadline, sanitizeToFragment);
  }
  return fragment;
}

/**
 * Renders markdown into an element, replacing what it held. The text is cut into sections (see
 * markdown-sections.ts); those that fit the task's time budget are drawn now, the rest in later
 * tasks, appended in order, while the element stays on the page. Rendering the same element again
 * drops what was still to come.
 */
export function renderMarkdown(target: HTMLElement, text: string, options: MarkdownOptions = {}): void {
  cancelSlices(target);
  target.replaceChildren();
  const sections = sectionsOf(text);
  const deadline = performance.now() + TASK_BUDGET_MS;
  // At least one section now, so that a short message is drawn whole in the task that asked.
  let next = sections.next();
  let chars = 0;
  // A text of several sections holds each in a block of its own (see .md-section in the
  // stylesheets), so appending one lays out that one and not all those before it.
  const wrap = (nodes: Node, source: string): Node => {
    const section = document.createElement("div");
    section.className = "md-section";
    // Out of view a section is not laid out (content-visibility in the stylesheets): until it has been
    // drawn once it takes this height, estimated from its lines, so that the transcript's height and the
    // view kept at the bottom stay close to the truth while a long text is appended.
    section.style.containIntrinsicSize = `auto ${estimatedLines(source) * 1.4}em`;
    section.append(nodes);
    return section;
  };
  const firstText = next.done ? "" : next.value.text;
  const first = next.done ? undefined : sectionNodes(next.value, options, deadline);
  if (first) chars += weightOf(next.value!.text, first);
  next = sections.next();
  if (first) target.append(next.done ? first : wrap(first, next.done ? "" : firstText));
  while (!next.done) {
    if (performance.now() >= deadline || chars >= CHARS_PER_TASK) break;
    const nodes = sectionNodes(next.value, options, deadline);
    chars += weightOf(next.value.text, nodes);
    target.append(wrap(nodes, next.value.text));
    next = sections.next();
  }
  if (next.done) return;
  let pending: MarkdownSection | undefined = next.value;
  chars = 0;
  runInSlices(
    target,
    () => {
      const section = pending ?? sections.next().value;
      pending = undefined;
      if (!section) return true;
      const nodes = sectionNodes(section, options, performance.now() + TASK_BUDGET_MS / 2);
      chars += weightOf(section.text, nodes);
      target.append(wrap(nodes, section.text));
      if (chars >= CHARS_PER_TASK) {
        chars = 0;
        pauseSlices();
      }
      return false;
    },
    target,
  );
}

/** Sanitised HTML for a markdown text, drawn whole at once (a string safe to assign to innerHTML). */
export function markdownToSafeHtml(text: string, options: MarkdownOptions = {}): string {
  const div = document.createElement("div");
  for (const section of markdownSections(text)) div.append(sectionNodes(section, options, Infinity));
  return div.innerHTML;
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
