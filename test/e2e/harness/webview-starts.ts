/**
 * Every start of an Arbor webview page in the end-to-end tier, counted from Arbor's own log (see
 * src/extension/webview-start.ts): a page that says it runs is logged as started, a visible page that
 * stayed silent is loaded again and logged as a warning. Such a reload is a recovery from a blank
 * view, and a recovery must not pass unseen: the test during which it was logged fails (a root
 * `afterEach` hook of mocha, loaded with `--require`), and the run ends with the tier's count of
 * start-ups and reloads, which must be zero.
 *
 * Also, for the workbench page: code-server registers a service worker of its own (its PWA's, scope
 * `/`) on the origin that serves the webviews too, and it and the webviews' workers take over each
 * other's frames. Desktop VS Code has no such worker, so the test browser refuses that one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The words of Arbor's log lines (kept in step with startLogText in src/extension/webview-start.ts). */
const startedText = "page started";
const reloadedText = "page did not start within";
const gaveUpText = "did not load (VS Code never started its webview)";

/** What one workbench's Arbor log says about its webview pages so far. */
export interface WebviewStarts {
  readonly started: number;
  /** The warning lines of pages loaded again, or given up on. */
  readonly recoveries: readonly string[];
}

/** Reads every Arbor.log under the user-data folder's logs (a window reload starts a new folder). */
export function readWebviewStarts(userDataDir: string): WebviewStarts {
  const lines: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 6 || !existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path, depth + 1);
      else if (name === "Arbor.log") lines.push(...readFileSync(path, "utf8").split("\n"));
    }
  };
  walk(join(userDataDir, "logs"), 0);
  return {
    started: lines.filter((line) => line.includes(startedText)).length,
    recoveries: lines.filter((line) => line.includes(reloadedText) || line.includes(gaveUpText)),
  };
}

/** One workbench's log, watched while it is open. */
interface Watched {
  readonly userDataDir: string;
  /** Recoveries already reported (a test fails once for each). */
  reported: number;
}

const open = new Set<Watched>();
const tier = { workbenches: 0, started: 0, recoveries: [] as string[] };

/**
 * Watches the webview starts of one workbench until the returned function is called, which must
 * happen before its user-data folder is deleted: it adds the workbench's final count to the tier's.
 */
export function watchWebviewStarts(userDataDir: string): () => void {
  const watched: Watched = { userDataDir, reported: 0 };
  open.add(watched);
  return () => {
    if (!open.delete(watched)) return;
    const final = readWebviewStarts(userDataDir);
    tier.workbenches++;
    tier.started += final.started;
    tier.recoveries.push(...final.recoveries);
  };
}

/** The recoveries logged since the last call, in every open workbench. */
function newRecoveries(): string[] {
  const found: string[] = [];
  for (const watched of open) {
    const { recoveries } = readWebviewStarts(watched.userDataDir);
    found.push(...recoveries.slice(watched.reported));
    watched.reported = recoveries.length;
  }
  return found;
}

/** Runs in every frame of the test browser: refuses code-server's own service worker, and only that one. */
export function refuseCodeServerServiceWorker(): void {
  interface Container {
    register(url: string | { toString(): string }, options?: unknown): Promise<unknown>;
  }
  const nav = (globalThis as unknown as { navigator?: { serviceWorker?: Container } }).navigator;
  const container = nav?.serviceWorker;
  if (!container) return;
  const register = container.register.bind(container);
  container.register = (url, options) => {
    const path = String(url).split(/[?#]/)[0] ?? "";
    if (path.endsWith("/_static/out/browser/serviceWorker.js")) return Promise.reject(new Error("code-server's service worker is kept out of the test browser"));
    return register(url, options);
  };
}

/** Mocha root hooks (`--require out/test/e2e/harness/webview-starts.js`). */
export const mochaHooks = {
  afterEach(): void {
    const found = newRecoveries();
    if (found.length) {
      throw new Error(`Arbor had to load a webview page again during this test (a blank view recovered is still a failure):\n${found.join("\n")}`);
    }
  },
  afterAll(): void {
    if (tier.workbenches === 0) return;
    console.log(`[e2e] webview start-ups: ${tier.started} across ${tier.workbenches} workbench(es); recoveries: ${tier.recoveries.length}`);
    if (tier.recoveries.length) throw new Error(`The end-to-end tier needed ${tier.recoveries.length} webview recoveries; it must need none:\n${tier.recoveries.join("\n")}`);
  },
};
