import * as vscode from "vscode";
import { WebviewStartQueue } from "./webview-start-queue";

/** How long a visible webview may take to say it started, and how many recoveries it gets. */
export interface StartWatchOptions {
  readonly afterMs: number;
  readonly attempts: number;
}

const defaults: StartWatchOptions = { afterMs: 10_000, attempts: 3 };

/** The recoveries a surface has used since its page last started (kept across its re-creations). */
export interface StartAttempts {
  used: number;
}

export interface StartWatch {
  readonly render: () => string;
  readonly visible: () => boolean;
  /** What the user knows it as ("Conversation Tree"). */
  readonly name: string;
  readonly log: Pick<vscode.LogOutputChannel, "warn" | "info">;
  readonly attempts?: StartAttempts;
  /** Called once when the last recovery did not help either. */
  readonly gaveUp?: (message: string) => void;
  /** Whose turn it is to load; the window's one queue by default (see webview-start-queue.ts). */
  readonly queue?: WebviewStartQueue;
}

/** Every Arbor webview of the window loads in this one line. */
const windowQueue = new WebviewStartQueue();

/**
 * The log lines below are read by the end-to-end tests (test/e2e/harness/webview-starts.ts), which
 * count the start-ups and fail a test in which any page had to be loaded again.
 */
export const startLogText = { started: "page started", reloaded: "page did not start within", failed: "did not load (VS Code never started its webview)" } as const;

/**
 * Loads a webview's page (`render`) when its turn comes and watches that it starts. Pages load one at a
 * time (see WebviewStartQueue): where webviews share an origin (code-server), two frames loading at
 * once can leave one blank for good. VS Code may still show a frame without ever loading the page into
 * it, which an extension cannot repair for the user (collapsing and expanding the view, or reloading the
 * window, does). Arbor's pages post a message as soon as their script runs, so a visible webview that
 * has said nothing after `afterMs` gets its HTML again (which helps when the page itself was lost), up to
 * `attempts` times, each logged as a warning; then the user is told what brings it back. Every start is
 * logged too, so that the end-to-end tests can count them and fail on any reload.
 */
export function watchWebviewStart(webview: vscode.Webview, watch: StartWatch, options: StartWatchOptions = defaults): vscode.Disposable {
  const attempts = watch.attempts ?? { used: 0 };
  let started = false;
  let disposed = false;
  let loadedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (started || disposed) return;
      if (!watch.visible()) return arm();
      if (attempts.used >= options.attempts) {
        const message = `The ${watch.name} ${startLogText.failed}. Collapse and expand the view, or reload the window.`;
        watch.log.warn(message);
        watch.gaveUp?.(message);
        turn.dispose();
        return;
      }
      attempts.used++;
      watch.log.warn(`the ${watch.name} ${startLogText.reloaded} ${options.afterMs / 1000} s; loading it again (${attempts.used} of ${options.attempts})`);
      webview.html = watch.render();
      arm();
    }, options.afterMs);
  };
  const sub = webview.onDidReceiveMessage(() => {
    if (started) return;
    started = true;
    attempts.used = 0;
    if (timer) clearTimeout(timer);
    timer = undefined;
    watch.log.info(`the ${watch.name} ${startLogText.started} (${Date.now() - loadedAt} ms after its page was set)`);
    turn.started();
  });
  const turn = (watch.queue ?? windowQueue).enqueue(() => {
    if (disposed) return;
    loadedAt = Date.now();
    webview.html = watch.render();
    arm();
  });
  return new vscode.Disposable(() => {
    disposed = true;
    sub.dispose();
    turn.dispose();
    if (timer) clearTimeout(timer);
  });
}

/** Tells the user once per window that a view stayed blank, with the one step that brings it back. */
export function offerReload(message: string): void {
  if (offered) return;
  offered = true;
  void vscode.window.showWarningMessage(message, "Reload Window").then((choice) => {
    if (choice) void vscode.commands.executeCommand("workbench.action.reloadWindow");
  });
}
let offered = false;
