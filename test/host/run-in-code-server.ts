/**
 * Runs the extension-host suite in a real VS Code served by code-server, the counterpart of
 * run-test-electron.ts for machines that cannot download a desktop VS Code.
 *
 * VS Code's server runs with the smoke-test driver enabled; chromium opens the workbench with a
 * `payload` naming the extension under development and the suite's entry. The remote (Node) extension
 * host loads the extension and calls the suite's `run()`; when it settles, the workbench calls
 * `window.codeAutomationExit(code)`, and the console output arrives through `codeAutomationLog`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { format, inspect, stripVTControlCharacters } from "node:util";
import { launchChromium } from "../e2e/harness/browser";
import { repoRoot } from "../e2e/harness/paths";
import { createSandbox } from "../e2e/harness/sandbox";
import { installVsix, startVscodeServer } from "../e2e/harness/servers";
import { prepareHostFixture } from "./host-fixture";

/** Options for {@link runHostTestsInCodeServer}. */
export interface HostTestRunOptions {
  /** The folder holding the extension's package.json (its `main` must be built). */
  readonly extensionDevelopmentPath: string;
  /**
   * Folders of test extensions (such as a chat model provider) installed beside it. The web
   * workbench keeps one extensionDevelopmentPath only (its payload becomes a Map), so these are
   * packaged and installed like any extension instead.
   */
  readonly fixtureExtensions?: readonly string[];
  /** The compiled suite entry (…/suite/index.js) exporting `run()`. */
  readonly extensionTestsPath: string;
  /** Fails the run when the suite has not finished by then. */
  readonly timeoutMs: number;
  /** Where the suite's output goes, line by line. */
  readonly log: (line: string) => void;
  /** Also print the server's and the browser's own output. */
  readonly verbose?: boolean;
  /**
   * Open the workspace in Restricted Mode (workspace trust on, never granted) with these values in
   * its `.vscode/settings.json`, as a hostile repository would ship them.
   */
  readonly untrustedWorkspaceSettings?: Readonly<Record<string, unknown>>;
}

/** The exit code when the suite did not finish in time or the browser went away. */
export const abnormalExitCode = 2;

/**
 * Runs the suite once and resolves with its exit code (0 when every test passed). The workspace it
 * opens holds sample sessions, in an agent folder the extension host finds through PI_CODING_AGENT_DIR.
 */
export async function runHostTestsInCodeServer(options: HostTestRunOptions): Promise<number> {
  const { log } = options;
  const untrusted = options.untrustedWorkspaceSettings;
  // Trust on, and no startup prompt: the folder simply stays untrusted, as when a user picks "No".
  const sandbox = createSandbox(untrusted ? "host-untrusted" : "host", untrusted ? { settings: { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" } } : {});
  const cleanups: (() => Promise<void> | void)[] = [() => sandbox.dispose()];
  try {
    const { workspace, env } = await prepareHostFixture(sandbox.root);
    if (untrusted) {
      mkdirSync(join(workspace, ".vscode"));
      writeFileSync(join(workspace, ".vscode/settings.json"), JSON.stringify(untrusted, null, 2));
    }
    // The server, and so the extension host, inherits these.
    Object.assign(sandbox.env, env);
    for (const folder of options.fixtureExtensions ?? []) installVsix(sandbox, packFixture(folder, sandbox.root));
    const server = await startVscodeServer(sandbox, { workspaceTrust: untrusted !== undefined, ...(options.verbose ? { echo: (line: string) => log(`[server] ${line}`) } : {}) });
    cleanups.push(() => server.stop());
    const browser = await launchChromium(sandbox);
    cleanups.push(() => browser.close());
    const page = await browser.newPage();
    // Copy Text is checked by reading the clipboard back, which the browser only allows when granted.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    if (options.verbose) page.on("console", (message) => log(`[browser ${message.type()}] ${message.text()}`));

    let finish: (code: number) => void = () => undefined;
    const finished = new Promise<number>((resolve) => (finish = resolve));
    // Both must exist before the workbench loads: it looks for them once, at startup.
    await page.exposeFunction("codeAutomationLog", (type: string, args: unknown[]) => {
      for (const line of formatLog(type, args, options.verbose === true)) log(line);
    });
    await page.exposeFunction("codeAutomationExit", (code: number) => finish(code));
    let settled = false;
    void finished.then(() => (settled = true));
    browser.on("disconnected", () => {
      if (settled) return;
      log("The browser went away before the suite finished.");
      finish(abnormalExitCode);
    });

    const remote = (path: string) => `vscode-remote://127.0.0.1:${server.port}${path}`;
    const payload = [
      ["extensionDevelopmentPath", remote(options.extensionDevelopmentPath)],
      ["extensionTestsPath", remote(options.extensionTestsPath)],
      ["skipWelcome", "true"],
    ];
    // The suite's own timeout bounds the run; the page's "load" alone can take over 30 s on a busy machine.
    await page.goto(`${server.origin}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`, {
      waitUntil: "domcontentloaded",
      timeout: options.timeoutMs,
    });

    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<number>((resolve) => {
      timer = setTimeout(() => {
        log(`The suite did not finish within ${options.timeoutMs} ms.`);
        if (!options.verbose) log(`Server output:\n${server.process.output()}`);
        resolve(abnormalExitCode);
      }, options.timeoutMs);
    });
    const code = await Promise.race([finished, timedOut]);
    settled = true;
    clearTimeout(timer);
    return code;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // keep tearing down the rest
      }
    }
  }
}

/** Packages a test extension's folder with vsce (offline, about a second) and returns the .vsix path. */
function packFixture(folder: string, outDir: string): string {
  const out = join(outDir, `${basename(folder)}.vsix`);
  const vsce = join(repoRoot, "node_modules/@vscode/vsce/vsce");
  const result = spawnSync(process.execPath, [vsce, "package", "--no-dependencies", "--skip-license", "--allow-missing-repository", "-o", out], { cwd: folder, encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) throw new Error(`Packaging the test extension ${folder} failed:\n${result.stdout}\n${result.stderr}`);
  return out;
}

/**
 * The workbench forwards its log records and the extension host's console output (the mocha report)
 * alike, as (level, [format, ...values]). Known startup chatter and offline noise are dropped unless
 * verbose.
 */
function formatLog(type: string, args: unknown[], verbose: boolean): string[] {
  const formatted = typeof args[0] === "string" ? format(...args) : args.map((arg) => inspect(arg)).join(" ");
  // Mocha colours its symbols whenever it believes a terminal (or CI) can show them; logs get plain text.
  const text = process.stdout.isTTY ? formatted : stripVTControlCharacters(formatted);
  if (!verbose && workbenchChatter.some((pattern) => pattern.test(text))) return [];
  const prefix = type === "error" || type === "warn" || type === "warning" ? `[${type}] ` : "";
  return text.split("\n").map((line) => prefix + line);
}

const workbenchChatter: readonly RegExp[] = [
  /^Resolv(ing|ed) connection token/,
  /^Creating a socket/,
  /^Updating additional builtin extensions cache/,
  /^ChatSessionStore:/,
  /^\[Service Worker\]/,
  /ENOTFOUND/,
  /vsda/,
];
