import * as vscode from "vscode";

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
  readonly log: Pick<vscode.LogOutputChannel, "warn">;
  readonly attempts?: StartAttempts;
  /** Called once when the last recovery did not help either. */
  readonly gaveUp?: (message: string) => void;
}

/**
 * Watches that a webview's page starts. VS Code sometimes shows a webview's frame without ever loading
 * the page into it: the frame waits for its service worker, and when two webviews load at once (the
 * Conversation Tree and the Chat, at startup or after a reload) one of them may wait forever; the view
 * stays blank until its pane is collapsed and expanded or the window reloaded, which an extension cannot
 * do for the user. Arbor's pages post a message as soon as their script runs, so a visible webview that
 * has said nothing after `afterMs` gets its HTML again (which helps when the page itself was lost), up to
 * `attempts` times, each logged; then the user is told what brings it back.
 */
export function watchWebviewStart(webview: vscode.Webview, watch: StartWatch, options: StartWatchOptions = defaults): vscode.Disposable {
  const attempts = watch.attempts ?? { used: 0 };
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (started) return;
      if (!watch.visible()) return arm();
      if (attempts.used >= options.attempts) {
        const message = `The ${watch.name} did not load (VS Code never started its webview). Collapse and expand the view, or reload the window.`;
        watch.log.warn(message);
        watch.gaveUp?.(message);
        return;
      }
      attempts.used++;
      watch.log.warn(`the ${watch.name} page did not start within ${options.afterMs / 1000} s; loading it again (${attempts.used} of ${options.attempts})`);
      webview.html = watch.render();
      arm();
    }, options.afterMs);
  };
  const sub = webview.onDidReceiveMessage(() => {
    started = true;
    attempts.used = 0;
    if (timer) clearTimeout(timer);
    timer = undefined;
  });
  arm();
  return new vscode.Disposable(() => {
    sub.dispose();
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
