/**
 * The shared markdown renderer (chat and export) in headless Chromium: hostile markdown from a
 * session renders inert, links keep only safe targets, code is highlighted. Skipped only when
 * /usr/bin/chromium is missing.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_PATH, chromiumAvailable, repoRoot } from "../support/webview-harness";
import { chromiumFlags } from "../e2e/harness/browser";

async function bundle(): Promise<string> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    absWorkingDir: repoRoot(),
    entryPoints: [path.join("test", "pages", "markdown-page.ts")],
    bundle: true,
    write: false,
    platform: "browser",
    format: "iife",
    target: "es2022",
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

const HOSTILE = [
  "<script>window.__pwned = 'script'</script>",
  '<img src=x onerror="window.__pwned = \'img\'">',
  "[click](javascript:window.__pwned='link')",
  '<a href="javascript:window.__pwned=1">raw link</a>',
  "![x](https://example.invalid/track.png)",
  '<svg onload="window.__pwned=\'svg\'"></svg>',
  '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>',
  "```html\n<script>window.__pwned='fence'</script>\n```",
  '[x](  JaVaScRiPt:alert(1))',
  '<details open ontoggle="window.__pwned=\'details\'">x</details>',
].join("\n\n");

describe("markdown renderer in Chromium", function () {
  this.timeout(60_000);
  let browser: Browser;
  let page: Page;

  before(async function () {
    if (!chromiumAvailable()) this.skip();
    const code = await bundle();
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...chromiumFlags] });
    page = await browser.newPage();
    await page.setContent("<!doctype html><html><head><style>.code-slice { display: block; }</style></head><body><div id=out></div></body></html>");
    await page.addScriptTag({ content: code });
  });
  after(async () => browser?.close());

  /** Renders into #out and returns its HTML once the work left to later tasks (highlighting) is done. */
  const render = async (text: string): Promise<string> =>
    (await page.evaluate(`(async () => { const out = document.getElementById("out"); window.__md.renderMarkdown(out, ${JSON.stringify(text)}); await window.__md.slicesSettled(); return out.innerHTML; })()`)) as string;
  const dangerous = async (): Promise<number> =>
    (await page.evaluate(`document.querySelectorAll("#out script, #out iframe, #out svg, #out img, #out object, #out embed, #out [onerror], #out [onload], #out [ontoggle], #out a[href^='javascript' i]").length`)) as number;

  it("renders hostile markdown inert: no script, handler, frame or javascript: link survives, and nothing runs", async () => {
    await render(HOSTILE);
    await page.waitForTimeout(200);
    assert.equal(await page.evaluate("window.__pwned"), undefined);
    assert.equal(await dangerous(), 0);
    const hrefs = (await page.evaluate(`[...document.querySelectorAll("#out a")].map((a) => a.getAttribute("href"))`)) as (string | null)[];
    assert.ok(hrefs.every((h) => h === null || /^https?:|^mailto:/.test(h)), `links: ${JSON.stringify(hrefs)}`);
    // The raw HTML is still there to read, as text.
    const text = (await page.evaluate(`document.getElementById("out").textContent`)) as string;
    assert.match(text, /<script>window.__pwned = 'script'<\/script>/);
    assert.match(text, /\[image: x\]/);
  });

  it("keeps safe links, marks them noopener, and highlights fenced code", async () => {
    const html = await render("See [docs](https://example.com/a?b=1) and <https://x.org>.\n\n```ts\nconst a: number = 1;\n```\n\n- [x] done");
    assert.match(html, /<a href="https:\/\/example.com\/a\?b=1" rel="noopener noreferrer">docs<\/a>/);
    assert.match(html, /<a href="https:\/\/x.org" rel="noopener noreferrer">/);
    assert.match(html, /<code class="hljs language-typescript"><span class="hljs-keyword">const<\/span>/);
    assert.match(html, /<input (?=[^>]*type="checkbox")(?=[^>]*disabled)/);
  });

  it("shows each line break of a typed prompt, and joins a model's soft-wrapped lines as markdown does", async () => {
    const typed = (await page.evaluate(`(() => { const out = document.getElementById("out"); window.__md.renderMarkdown(out, "line one\\nline two", { lineBreaks: true }); return out.innerHTML; })()`)) as string;
    assert.match(typed, /line one<br>\s*line two/);
    assert.doesNotMatch(await render("line one\nline two"), /<br>/);
  });

  it("shows image blocks only as data of an image type", async () => {
    const result = await page.evaluate(`[
      window.__md.imageElement({ data: "iVBORw0KGgo=", mimeType: "image/png" })?.src ?? null,
      window.__md.imageElement({ data: "PHN2Zz4=", mimeType: "image/svg+xml" })?.src ?? null,
      window.__md.imageElement({ data: '"><script>', mimeType: "image/png" })?.src ?? null,
    ]`);
    assert.deepEqual(result, ["data:image/png;base64,iVBORw0KGgo=", null, null]);
  });

  describe("hostile text", () => {
    /** Renders into #out, waits for the work left to later tasks, and returns facts about the result. */
    const renderSettled = async (text: string): Promise<{ text: string; plain: number; code: number; spans: number; sections: number }> =>
      (await page.evaluate(`(async () => {
        const out = document.getElementById("out");
        window.__md.renderMarkdown(out, ${JSON.stringify(text)});
        await window.__md.slicesSettled();
        return { text: out.textContent, plain: out.querySelectorAll(".md-plain").length, code: out.querySelectorAll("pre > code").length, spans: out.querySelectorAll("code span[class^='hljs-']").length, sections: out.childNodes.length };
      })()`)) as { text: string; plain: number; code: number; spans: number; sections: number };

    it("draws 2 KB of nested quotes as text instead of overflowing the parser's stack, and the next text renders", async () => {
      const quoted = `${">".repeat(2048)} deep`;
      const r = await renderSettled(`before\n\n${quoted}\n\nafter **bold**`);
      assert.ok(r.plain >= 1);
      assert.match(r.text, /before[\s\S]*>>>> deep[\s\S]*after bold/);
      assert.match(await render("next **one**"), /<strong>one<\/strong>/);
    });

    it("draws a list nested 1,000 deep as text, and keeps a tame nested list as markdown", async () => {
      const deep = Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i * 2)}- level ${i}`).join("\n");
      const r = await renderSettled(deep);
      assert.ok(r.plain >= 1);
      assert.match(r.text, /level 999/);
      assert.match(await render("- a\n  - b\n    - c"), /<ul>[\s\S]*<ul>[\s\S]*<li>c<\/li>/);
    });

    it("shows a 32 KB line of `_a` whole, as text, instead of handing it to the parser", async () => {
      const line = "_a".repeat(16_384);
      const r = await renderSettled(`intro\n\n${line}`);
      assert.equal(r.plain, 16, "in pieces of at most 2 KB");
      assert.equal(r.text.replace(/\s/g, ""), `intro${line}`);
    });

    it("cuts a long message into sections that keep every character, with markdown in each", async () => {
      const paragraphs = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} with **bold** and [a link](https://example.com/${i}).`);
      const r = await renderSettled(paragraphs.join("\n\n"));
      assert.ok(r.sections > 1, `${r.sections} sections`);
      assert.equal(r.plain, 0);
      assert.equal((await page.evaluate("document.querySelectorAll('#out strong').length")) as number, 400);
      assert.equal((await page.evaluate("document.querySelectorAll('#out a[href^=\"https://example.com/\"]').length")) as number, 400);
    });

    it("highlights a 200 KB code fence in slices and keeps its text exact, long lines plain", async () => {
      const body = Array.from({ length: 6000 }, (_, i) => `const value${i} = compute(${i}, "s"); // note`).join("\n");
      const longLine = `const x = "${"a".repeat(5000)}";`;
      const code = `${body}\n${longLine}`;
      const r = await renderSettled(`\`\`\`ts\n${code}\n\`\`\``);
      assert.equal(r.code, 1);
      assert.equal(r.text, code);
      assert.ok(r.spans > 6000 * 2, `${r.spans} highlighted tokens`);
      const lastPlain = (await page.evaluate(`[...document.querySelectorAll("#out code > span")].at(-1).children.length`)) as number;
      assert.equal(lastPlain, 0, "the 5,000-character line is left plain");
    });

    it("stops the work left for an element once that element is rendered again", async () => {
      const big = Array.from({ length: 2000 }, (_, i) => `Paragraph ${i}.`).join("\n\n");
      const html = (await page.evaluate(`(async () => {
        const out = document.getElementById("out");
        window.__md.renderMarkdown(out, ${JSON.stringify(big)});
        window.__md.renderMarkdown(out, "only **this**");
        await window.__md.slicesSettled();
        return out.innerHTML;
      })()`)) as string;
      assert.equal(html, "<p>only <strong>this</strong></p>\n");
    });
  });
});

