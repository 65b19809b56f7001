import * as vscode from "vscode";
import { assertKnownSessionFile } from "../core/session/session-file-check";
import type { SessionHost } from "./session-host";

/** The workspace-state key of the session file this workspace had open last. */
const LAST_SESSION = "arbor.lastSessionFile";

/**
 * The session a workspace had open when its window closed opens again with the window, as VS Code
 * brings back the editors that were open. Only in a trusted workspace (opening a session takes its
 * writer lock), only a regular file inside the sessions folders Arbor knows now, and only when no
 * session was opened meanwhile; a file that is gone is forgotten quietly.
 */
export function restoreLastSession(host: SessionHost, state: vscode.Memento, log: vscode.LogOutputChannel): vscode.Disposable {
  const remember = host.onDidChangeSession((sm) => {
    const file = sm?.getSessionFile();
    // A session closing (with the window, too) leaves the last one remembered; another replaces it.
    if (file) void state.update(LAST_SESSION, file);
  });
  const last = state.get<string>(LAST_SESSION);
  if (last && vscode.workspace.isTrusted) {
    void (async () => {
      try {
        const file = await assertKnownSessionFile(last, host.knownSessionFolders());
        if (host.current) return;
        log.info(`reopening the session this workspace had open: ${file}`);
        await host.open(file);
      } catch (error) {
        log.info(`not reopening the last session ${last}: ${(error as Error).message}`);
        await state.update(LAST_SESSION, undefined);
      }
    })();
  }
  return remember;
}
