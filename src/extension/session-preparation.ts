import { basename } from "node:path";
import * as vscode from "vscode";
import { preparedSessions, sessionsToPrepare } from "../core/session/session-preparer";
import type { SessionHost } from "./session-host";
import type { SessionsView } from "./sessions-view";

/** What the Sessions view asked to index in the background. */
export interface BackgroundIndexing extends vscode.Disposable {
  /** The sessions asked for at the last listing (none in Restricted Mode); undefined before any listing. */
  readonly requested: readonly string[] | undefined;
  /** The session being indexed now, if any. */
  readonly preparing: string | undefined;
}

/**
 * Indexes the large sessions of the Sessions list in the background (see SessionPreparer), so that
 * a click on one of them opens it from its index. Off in Restricted Mode (it writes to the cache)
 * and with `arbor.sessions.indexInBackground` set to false. A window progress shows while it works.
 */
export function prepareListedSessions(sessions: SessionsView, host: SessionHost, log: vscode.LogOutputChannel): BackgroundIndexing {
  let finish: (() => void) | undefined;
  let requested: readonly string[] | undefined;
  preparedSessions.configure({
    onBusy: (path) => {
      finish?.();
      finish = undefined;
      if (path === undefined) return;
      void vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `Arbor: indexing ${basename(path)}` },
        () => new Promise<void>((done) => (finish = done)),
      );
      log.debug(`indexing ${path} in the background`);
    },
    onError: (path, error) => log.warn(`could not index ${path} in the background: ${error.message}`),
  });
  const enabled = (): boolean => vscode.workspace.isTrusted && vscode.workspace.getConfiguration("arbor").get<boolean>("sessions.indexInBackground", true);
  const listing = sessions.onDidList((infos) => {
    requested = enabled() ? sessionsToPrepare(infos, host.current?.getSessionFile() ?? undefined) : [];
    preparedSessions.prepare(requested);
  });
  return {
    get requested() {
      return requested;
    },
    get preparing() {
      return preparedSessions.preparing;
    },
    dispose() {
      listing.dispose();
      preparedSessions.dispose();
      finish?.();
    },
  };
}
