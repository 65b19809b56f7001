/**
 * What a failed end-to-end test leaves behind for a post-mortem where nobody can look at the
 * screen (CI): a screenshot, and a text file with the state of Arbor's webviews and panes, the tail
 * of Arbor's log and the extension host's log, and the page's console errors. `npm test` prints the
 * first of these files in its summary (scripts/test-all.mjs).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { testResultsDir } from "./paths";

/** Where the failure reports go (test-all.mjs reads them from here). */
export const diagnosticsDir = join(testResultsDir, "diagnostics");

/** Keeps the page's last console errors and warnings, and its uncaught exceptions. */
export function recordConsole(page: Page, keep = 40): () => string[] {
  const lines: string[] = [];
  const push = (line: string) => {
    lines.push(line.slice(0, 400));
    if (lines.length > keep) lines.shift();
  };
  // The workbench's own warnings about its iframes' sandbox flags say nothing about a failure.
  const noise = /allow-scripts and allow-same-origin|web worker extension host is started in a same-origin iframe/;
  page.on("console", (message) => {
    if ((message.type() === "error" || message.type() === "warning") && !noise.test(message.text())) {
      const url = message.location().url;
      push(`[${message.type()}] ${message.text()}${url ? ` (${url.slice(-120)})` : ""}`);
    }
  });
  page.on("pageerror", (error) => push(`[pageerror] ${error.message}`));
  page.on("requestfailed", (request) => push(`[requestfailed] ${request.url().slice(-160)}: ${request.failure()?.errorText ?? "?"}`));
  // Requests still open when the report is made (a webview resource that never arrived, say).
  const open = new Map<object, { url: string; since: number }>();
  page.on("request", (request) => open.set(request, { url: request.url(), since: Date.now() }));
  page.on("requestfinished", (request) => open.delete(request));
  page.on("requestfailed", (request) => open.delete(request));
  return () => [
    ...lines,
    ...[...open.values()].filter((r) => Date.now() - r.since > 5000).slice(0, 15).map((r) => `[pending ${Math.round((Date.now() - r.since) / 1000)} s] ${r.url.slice(-160)}`),
  ];
}

/** The last `count` lines of every file called `name` under `dir` (newest log folder last). */
function tailOf(dir: string, name: string, count: number): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 6 || !existsSync(d)) return;
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      const st = statSync(path);
      if (st.isDirectory()) walk(path, depth + 1);
      else if (entry === name) found.push(path);
    }
  };
  walk(dir, 0);
  return found.sort().flatMap((path) => [`--- ${path.slice(dir.length + 1)}`, ...readFileSync(path, "utf8").trimEnd().split("\n").slice(-count)]);
}

/** The panes of the side bar and every webview frame, as the page has them now. */
async function layoutOf(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    interface El {
      getAttribute(n: string): string | null;
      className: string;
      getBoundingClientRect(): { x: number; y: number; width: number; height: number };
      contentDocument?: { getElementById(id: string): El | null; body?: { innerText: string } | null } | null;
    }
    const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<El> } }).document;
    const box = (r: { x: number; y: number; width: number; height: number }) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
    const out: string[] = [];
    for (const header of Array.from(doc.querySelectorAll(".part.sidebar .pane-header"))) {
      out.push(`pane ${header.getAttribute("aria-label") ?? "?"} expanded=${header.getAttribute("aria-expanded")} at ${box(header.getBoundingClientRect())}`);
    }
    for (const frame of Array.from(doc.querySelectorAll("iframe.webview"))) {
      const src = frame.getAttribute("src") ?? "";
      const ext = /extensionId=([^&]+)/.exec(src)?.[1] ?? "?";
      out.push(`webview ${decodeURIComponent(ext)} title=${frame.getAttribute("data-webview-title") ?? "(untagged)"} class="${frame.className}" at ${box(frame.getBoundingClientRect())}`);
      let text: string;
      try {
        const outer = frame.contentDocument as unknown as { querySelectorAll(s: string): ArrayLike<{ id: string; contentDocument: { readyState: string; title: string } | null }> } | null;
        const inner = outer ? Array.from(outer.querySelectorAll("iframe")).map((f) => `#${f.id || "?"}(${f.contentDocument ? `${f.contentDocument.readyState} "${f.contentDocument.title}"` : "no document"})`) : [];
        out.push(`  frames inside: ${inner.join(" ") || "none"}`);
        text = frame.contentDocument?.getElementById("active-frame")?.contentDocument?.body?.innerText ?? "(no document)";
      } catch (error) {
        text = `(unreadable: ${(error as Error).message})`;
      }
      out.push(`  shows: ${JSON.stringify(text.replace(/\s+/g, " ").slice(0, 240))}`);
    }
    return out;
  });
}

/**
 * Saves a screenshot and a failure report for `title`. Never throws: a report that cannot be made
 * says why in its place.
 */
export async function reportFailure(page: Page, userDataDir: string, title: string, consoleLines: () => string[], screenshot: (name: string) => Promise<string>): Promise<void> {
  const name = `failed-${title}`;
  await screenshot(name).catch(() => undefined);
  const sections: string[] = [`# ${title}`];
  const add = async (heading: string, lines: () => string[] | Promise<string[]>) => {
    try {
      sections.push(`## ${heading}`, ...(await lines()));
    } catch (error) {
      sections.push(`## ${heading}`, `(not available: ${(error as Error).message})`);
    }
  };
  await add("layout", () => layoutOf(page));
  await add("Arbor log", () => tailOf(join(userDataDir, "logs"), "Arbor.log", 30));
  await add("extension host log", () => tailOf(join(userDataDir, "logs"), "remoteexthost.log", 15));
  await add("page console errors", consoleLines);
  mkdirSync(diagnosticsDir, { recursive: true });
  writeFileSync(join(diagnosticsDir, `${name.replace(/[^\w.-]+/g, "-").slice(0, 150)}.txt`), sections.join("\n") + "\n");
}
