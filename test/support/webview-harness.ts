/**
 * Runs the Conversation Tree bundle in headless Chromium outside VS Code: a tiny local HTTP server
 * serves the real HTML (with its strict CSP), the bundle, the stylesheet and the codicons; the
 * page-side script (webview-harness.page.js) fakes the VS Code API and the host. Shared by the
 * browser tests and the webview benchmark. Fixtures live in webview-harness.fixtures.ts.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { renderWebviewHtml } from "../../src/protocol/webview-html";
import { chromiumFlags } from "../e2e/harness/browser";
import { HarnessHost, type DeliveryTiming } from "./webview-harness-host";

export const CHROMIUM_PATH = "/usr/bin/chromium";
/** The same offline, container-friendly flags the real-VS-Code tests use. */
const CHROMIUM_ARGS = [...chromiumFlags];

/** The repository root (found from this file, wherever it was compiled to). */
export function repoRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "package.json")) || !fs.existsSync(path.join(dir, "webview"))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error("webview harness: repository root not found");
    dir = up;
  }
  return dir;
}

/**
 * Whether chromium is installed, for the browser tests that skip without it on a developer's machine.
 * In CI (`CI` set, as .ci/run does) a missing chromium is an error, not a skip: a browser test that
 * never ran must not pass as pending.
 */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI) throw new Error(`No chromium at ${CHROMIUM_PATH}: CI runs every browser test (install Debian's chromium).`);
  return false;
}

/**
 * Bundles a webview's entry fresh (tests must not depend on a stale dist/): the Conversation Tree by
 * default, or e.g. "webview/chat/main.ts". Returns the file path.
 */
export async function buildWebviewBundle(outfile = path.join(repoRoot(), "out", "test-webview", "webview.js"), entry = "webview/tree/main.ts"): Promise<string> {
  const esbuild = await import("esbuild");
  await esbuild.build({
    absWorkingDir: repoRoot(),
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    logLevel: "silent",
  });
  return outfile;
}

export interface ThemeVars {
  kind: "light" | "dark";
  vars: Record<string, string>;
}

const COMMON_VARS = { "--vscode-font-family": "system-ui, -apple-system, 'Segoe UI', Ubuntu, sans-serif", "--vscode-font-size": "13px", "--vscode-font-weight": "normal" };

/** A subset of VS Code's Light Modern theme variables. */
export const LIGHT_THEME: ThemeVars = {
  kind: "light",
  vars: {
    ...COMMON_VARS,
    "--vscode-foreground": "#3b3b3b",
    "--vscode-descriptionForeground": "#717171",
    "--vscode-errorForeground": "#f85149",
    "--vscode-focusBorder": "#005fb8",
    "--vscode-sideBar-background": "#f8f8f8",
    "--vscode-sideBarSectionHeader-background": "#f8f8f8",
    "--vscode-sideBarSectionHeader-border": "#e5e5e5",
    "--vscode-list-hoverBackground": "#f2f2f2",
    "--vscode-list-activeSelectionBackground": "#e8e8e8",
    "--vscode-list-activeSelectionForeground": "#000000",
    "--vscode-list-inactiveSelectionBackground": "#e4e6f1",
    "--vscode-list-focusOutline": "#005fb8",
    "--vscode-tree-indentGuidesStroke": "#a9a9a9",
    "--vscode-textLink-foreground": "#005fb8",
    "--vscode-badge-background": "#cccccc",
    "--vscode-badge-foreground": "#3b3b3b",
    "--vscode-charts-blue": "#1a85ff",
    "--vscode-charts-purple": "#652d90",
    "--vscode-charts-green": "#388a34",
    "--vscode-charts-orange": "#d18616",
    "--vscode-charts-yellow": "#bf8803",
    "--vscode-editorWarning-foreground": "#bf8803",
    "--vscode-editor-findMatchHighlightBackground": "rgba(234, 92, 0, 0.33)",
    "--vscode-editor-findRangeHighlightBackground": "rgba(180, 180, 180, 0.3)",
    "--vscode-inputValidation-warningBackground": "#f6f5d2",
    "--vscode-inputValidation-warningBorder": "#b89500",
    "--vscode-input-background": "#ffffff",
    "--vscode-input-foreground": "#3b3b3b",
    "--vscode-input-border": "#cecece",
    "--vscode-input-placeholderForeground": "#767676",
    "--vscode-dropdown-background": "#ffffff",
    "--vscode-dropdown-foreground": "#3b3b3b",
    "--vscode-dropdown-border": "#cecece",
    "--vscode-button-background": "#005fb8",
    "--vscode-button-foreground": "#ffffff",
    "--vscode-button-hoverBackground": "#0258a8",
    "--vscode-widget-border": "#e5e5e5",
  },
};

/** A subset of VS Code's Dark Modern theme variables. */
export const DARK_THEME: ThemeVars = {
  kind: "dark",
  vars: {
    ...COMMON_VARS,
    "--vscode-foreground": "#cccccc",
    "--vscode-descriptionForeground": "#9d9d9d",
    "--vscode-errorForeground": "#f85149",
    "--vscode-focusBorder": "#0078d4",
    "--vscode-sideBar-background": "#181818",
    "--vscode-sideBarSectionHeader-background": "#181818",
    "--vscode-sideBarSectionHeader-border": "#2b2b2b",
    "--vscode-list-hoverBackground": "#2a2d2e",
    "--vscode-list-activeSelectionBackground": "#04395e",
    "--vscode-list-activeSelectionForeground": "#ffffff",
    "--vscode-list-inactiveSelectionBackground": "#37373d",
    "--vscode-list-focusOutline": "#0078d4",
    "--vscode-tree-indentGuidesStroke": "#585858",
    "--vscode-textLink-foreground": "#4daafc",
    "--vscode-badge-background": "#616161",
    "--vscode-badge-foreground": "#f8f8f8",
    "--vscode-charts-blue": "#3794ff",
    "--vscode-charts-purple": "#b180d7",
    "--vscode-charts-green": "#89d185",
    "--vscode-charts-orange": "#d18616",
    "--vscode-charts-yellow": "#cca700",
    "--vscode-editorWarning-foreground": "#cca700",
    "--vscode-editor-findMatchHighlightBackground": "rgba(234, 92, 0, 0.33)",
    "--vscode-editor-findRangeHighlightBackground": "rgba(58, 61, 65, 0.4)",
    "--vscode-inputValidation-warningBackground": "#352a05",
    "--vscode-inputValidation-warningBorder": "#b89500",
    "--vscode-input-background": "#313131",
    "--vscode-input-foreground": "#cccccc",
    "--vscode-input-border": "#3c3c3c",
    "--vscode-input-placeholderForeground": "#989898",
    "--vscode-dropdown-background": "#313131",
    "--vscode-dropdown-foreground": "#cccccc",
    "--vscode-dropdown-border": "#3c3c3c",
    "--vscode-button-background": "#0078d4",
    "--vscode-button-foreground": "#ffffff",
    "--vscode-button-hoverBackground": "#026ec1",
    "--vscode-widget-border": "#313131",
  },
};

export interface Harness {
  readonly browser: Browser;
  readonly page: Page;
  readonly url: string;
  /** The tree's host (the real TreeHub), driving the page (not connected for other webviews). */
  readonly host: HarnessHost;
  /**
   * Loads the page and waits for the webview's `ready`. `fresh` (the default) first forgets the
   * state saved by an earlier load; `fresh: false` is a hide/show: the saved state survives.
   */
  load(options?: { fresh?: boolean }): Promise<void>;
  close(): Promise<void>;
}

function serveFile(res: http.ServerResponse, file: string, type: string): void {
  fs.readFile(file, (err, data) => {
    if (err) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(data);
  });
}

/** Starts the local server and the browser, and opens the page (not yet loaded). */
export async function startHarness(options: {
  bundlePath: string;
  width?: number;
  height?: number;
  theme?: ThemeVars;
  stylesheet?: string;
  dataImages?: boolean;
  layout?: "view" | "editor";
  /** Connect the page to the tree's host (a TreeHub in this process); by default when the page is the tree's. */
  treeHost?: boolean;
}): Promise<Harness> {
  const stylesheet = options.stylesheet ?? "tree.css";
  const withTreeHost = options.treeHost ?? stylesheet === "tree.css";
  const root = repoRoot();
  const server = http.createServer((req, res) => {
    const url = (req.url ?? "/").split("?")[0];
    if (url === "/") {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const html = renderWebviewHtml({
        nonce: "harnessNonce0123456789",
        cspSource: origin,
        scriptUri: `${origin}/webview.js`,
        styleUri: `${origin}/media/${stylesheet}`,
        codiconUri: `${origin}/codicons/codicon.css`,
        dataImages: options.dataImages,
        layout: options.layout,
      });
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(html);
    } else if (url === "/webview.js") serveFile(res, options.bundlePath, "text/javascript");
    else if (url === `/media/${stylesheet}`) serveFile(res, path.join(root, "media", stylesheet), "text/css");
    else if (url === "/codicons/codicon.css") serveFile(res, path.join(root, "node_modules/@vscode/codicons/dist/codicon.css"), "text/css");
    else if (url === "/codicons/codicon.ttf") serveFile(res, path.join(root, "node_modules/@vscode/codicons/dist/codicon.ttf"), "font/ttf");
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  const page = await browser.newPage({ viewport: { width: options.width ?? 420, height: options.height ?? 720 } });
  await page.addInitScript({ path: path.join(root, "test", "support", "webview-harness.page.js") });
  const host = new HarnessHost(page);
  if (withTreeHost) await host.install();
  const theme = options.theme ?? DARK_THEME;
  let loads = 0;
  return {
    browser,
    page,
    url,
    host,
    async load(loadOptions = {}) {
      await page.goto(loadOptions.fresh !== false ? `${url}?fresh=${++loads}` : url);
      await waitForPage(page, "window.__arbor && window.__arbor.posted.some((m) => m.type === 'ready')");
      await page.evaluate(([kind, vars]) => (globalThis as unknown as PageGlobals).__arbor.applyTheme(kind, vars), [theme.kind, theme.vars] as const);
      if (withTreeHost) await host.idle();
    },
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Polls a page expression until it is truthy. Playwright's waitForFunction compiles its predicate
 * inside the page, which the webview's CSP (rightly) forbids; page.evaluate goes through the
 * debugger protocol and is not subject to it.
 */
export async function waitForPage(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) throw new Error(`waitForPage: timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What webview-harness.page.js puts on the page, for typed `page.evaluate` callbacks. */
export interface PageGlobals {
  __arbor: {
    posted: { type: string; [key: string]: unknown }[];
    violations: string[];
    deliveries: DeliveryTiming[];
    deliver(message: unknown): number;
    /** Delivers a message straight to the page, timed to its handling (the chat's bench uses it). */
    send(message: unknown): { start: number; handled: number };
    /** Delivers a structured clone of a message (what VS Code's postMessage does), timed from before the clone. */
    post(message: unknown): { start: number; handled: number };
    /** `post`, then the frame that shows it. */
    postAndPaint(message: unknown): Promise<{ start: number; handled: number; raf: number; painted: number }>;
    paintedOf(id: number): Promise<DeliveryTiming | null>;
    sendAndPaint(message: unknown): Promise<DeliveryTiming>;
    nextPaint(): Promise<{ raf: number; painted: number }>;
    rows(): DrawnRow[];
    rowPoint(id: string): { x: number; y: number } | null;
    applyTheme(kind: string, vars: Record<string, string>): void;
  };
}

/** A message's timing from delivery to the frame that shows it (the chat's bench reads these fields). */
export interface PaintTiming {
  start: number;
  handled: number;
  raf: number;
  painted: number;
}

export interface DrawnRow {
  id: string;
  index: number;
  role: string | null;
  level: string | null;
  posinset: string | null;
  setsize: string | null;
  selected: string | null;
  expanded: string | null;
  current: string | null;
  label: string | null;
  domId: string;
  classes: string;
  text: string;
  context: Record<string, unknown>;
}
