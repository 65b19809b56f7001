import * as vscode from "vscode";

/** How long a visible webview may take to say it started, and how often its page is given again. */
export interface StartWatchOptions {
  readonly afterMs: number;
  readonly attempts: number;
}

const defaults: StartWatchOptions = { afterMs: 10_000, attempts: 3 };

/**
 * Gives a webview its page again when it never starts. VS Code sometimes shows a webview's frame
 * without ever loading the page into it (seen at startup and after a window reload in VS Code for the
 * Web, with two webviews resolved at once): the view stays blank until the window is reloaded. Arbor's
 * pages post a message as soon as their script runs, so a visible webview that has said nothing after
 * `afterMs` gets its HTML set again (a fresh page, new nonce), up to `attempts` times, each logged.
 * A hidden webview is not counted against: VS Code loads it when it is shown.
 */
export function watchWebviewStart(
  webview: vscode.Webview,
  render: () => string,
  visible: () => boolean,
  name: string,
  log: Pick<vscode.LogOutputChannel, "warn">,
  options: StartWatchOptions = defaults,
): vscode.Disposable {
  let started = false;
  let attempts = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (started) return;
      if (!visible()) return arm();
      if (attempts >= options.attempts) {
        log.warn(`the ${name} page has not started after ${attempts + 1} loads; reload the window if it stays blank`);
        return;
      }
      attempts++;
      log.warn(`the ${name} page did not start within ${options.afterMs / 1000} s; loading it again (${attempts} of ${options.attempts})`);
      webview.html = render();
      arm();
    }, options.afterMs);
  };
  const sub = webview.onDidReceiveMessage(() => {
    started = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
  });
  arm();
  return new vscode.Disposable(() => {
    sub.dispose();
    if (timer) clearTimeout(timer);
  });
}
