/**
 * One end-to-end session: a sandbox, code-server with the packaged extension installed, chromium on
 * the workbench. `close()` always tears all of it down, in reverse order, even after a failure.
 */
import { existsSync } from "node:fs";
import { Browser, Page } from "playwright-core";
import { launchChromium } from "./browser";
import { recordConsole, reportFailure } from "./diagnostics";
import { refuseCodeServerServiceWorker, watchWebviewStarts } from "./webview-starts";
import { assertToolsInstalled, vsixPath } from "./paths";
import { createSandbox, Sandbox } from "./sandbox";
import { installVsix, RunningServer, startCodeServer } from "./servers";
import { startOriginProxy } from "./origin-proxy";
import { colorThemes, defaultUiTimeoutMs, Workbench } from "./workbench";

/** Options for {@link openWorkbench}. */
export interface OpenWorkbenchOptions {
  /** The folder the workbench opens. */
  readonly folder: string;
  /** The extension package to install; the repository's arbor.vsix by default, `null` for none. */
  readonly vsix?: string | null;
  /** Extra environment for the server and so for the extension host (for example PI_CODING_AGENT_DIR). */
  readonly env?: Readonly<Record<string, string>>;
  /** User settings on top of the quiet defaults. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** Copy the server's output to the console (ARBOR_E2E_VERBOSE=1 does the same). */
  readonly verbose?: boolean;
  /** The theme the workbench starts with (written to the user settings); VS Code's default otherwise. */
  readonly theme?: keyof typeof colorThemes;
  /** The browser viewport; 1400×900 by default. */
  readonly viewport?: { readonly width: number; readonly height: number };
  /** Open the folder untrusted (Restricted Mode), without the trust prompt; trust is off by default. */
  readonly restrictedMode?: boolean;
}

/** Everything one end-to-end session started. */
export interface WorkbenchSession {
  readonly sandbox: Sandbox;
  readonly server: RunningServer;
  readonly browser: Browser;
  readonly page: Page;
  readonly workbench: Workbench;
  /** The workbench URL (with `?folder=`). */
  readonly url: string;
  /** Switches the color theme with the theme picker (which saves it to the settings) and waits for it. */
  setTheme(kind: keyof typeof colorThemes): Promise<void>;
  /**
   * After a failed test: a screenshot and a report of the panes, webviews, Arbor's log and the page's
   * console errors in test-results/ (see diagnostics.ts). Never throws.
   */
  reportFailure(title: string): Promise<void>;
  /** Closes the browser, stops the server and deletes the sandbox. Safe to call twice. */
  close(): Promise<void>;
}

/** Starts everything and waits for the workbench to render. */
export async function openWorkbench(options: OpenWorkbenchOptions): Promise<WorkbenchSession> {
  assertToolsInstalled();
  const vsix = options.vsix === undefined ? vsixPath : options.vsix;
  if (vsix !== null && !existsSync(vsix)) throw new Error(`No extension package at ${vsix}: run \`npm run package\`.`);
  const verbose = options.verbose ?? process.env.ARBOR_E2E_VERBOSE === "1";
  const trust = options.restrictedMode ? { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" } : {};
  const settings = { ...(options.theme ? { "workbench.colorTheme": colorThemes[options.theme] } : {}), ...trust, ...options.settings };
  const sandbox = createSandbox("e2e", { ...(options.env ? { env: options.env } : {}), settings });
  // Undone in reverse: the count of webview starts is read once the server has stopped (its logs are
  // complete) and before the sandbox with the logs is deleted.
  const cleanups: (() => Promise<void> | void)[] = [() => sandbox.dispose(), watchWebviewStarts(sandbox.userDataDir)];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // keep tearing down the rest
      }
    }
  };
  try {
    if (vsix !== null) installVsix(sandbox, vsix);
    const server = await startCodeServer(sandbox, options.folder, {
      ...(verbose ? { echo: (line: string) => console.log(`[code-server] ${line}`) } : {}),
      ...(options.restrictedMode ? { workspaceTrust: true } : {}),
    });
    cleanups.push(() => server.stop());
    // Each webview on a host of its own, as in desktop VS Code (see origin-proxy.ts).
    const proxy = await startOriginProxy(server.port);
    cleanups.push(() => proxy.close());
    const browser = await launchChromium(sandbox);
    cleanups.push(() => browser.close());
    const page = await browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 900 } });
    await page.addInitScript(refuseCodeServerServiceWorker);
    const stopTagging = tagWebviewFrames(page);
    cleanups.push(stopTagging);
    const consoleLines = recordConsole(page);
    if (verbose) page.on("console", (message) => console.log(`[browser ${message.type()}] ${message.text()}`));
    const url = `${proxy.origin}/?folder=${encodeURIComponent(options.folder)}`;
    // The workbench's own readiness is waited for below; under load its page "load" can take over 30 s.
    await page.goto(url, { waitUntil: "domcontentloaded", timeout: defaultUiTimeoutMs });
    const workbench = new Workbench(page);
    await workbench.waitForReady();
    if (options.theme) await workbench.waitForThemeKind(options.theme);
    const setTheme = (kind: keyof typeof colorThemes) => workbench.switchColorTheme(kind);
    const report = (title: string) => reportFailure(page, sandbox.userDataDir, title, consoleLines, (name) => workbench.screenshot(name));
    return { sandbox, server, browser, page, workbench, url, setTheme, reportFailure: report, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Marks each webview's outer frame with the title of the document it shows (`data-webview-title`),
 * so that a test can tell two webviews of one extension apart (the Chat and the Conversation Tree).
 * Each webview has an origin of its own (origin-proxy.ts), which the page cannot look into, so this
 * runs here, through the browser's view of every frame. Returns the function that stops it.
 */
function tagWebviewFrames(page: Page): () => void {
  let stopped = false;
  const tagOnce = async () => {
    for (const outer of page.mainFrame().childFrames()) {
      if (!outer.url().includes("/webview/browser/pre/")) continue;
      try {
        let title = "";
        for (const inner of outer.childFrames()) title ||= await inner.title();
        if (!title) continue;
        const element = await outer.frameElement();
        await element.evaluate((el: unknown, t: string) => {
          const frame = el as { getAttribute(n: string): string | null; setAttribute(n: string, v: string): void };
          if (frame.getAttribute("data-webview-title") !== t) frame.setAttribute("data-webview-title", t);
        }, title);
      } catch {
        // the frame is going away
      }
    }
  };
  void (async () => {
    while (!stopped && !page.isClosed()) {
      await tagOnce();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return () => {
    stopped = true;
  };
}
