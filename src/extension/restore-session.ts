import * as vscode from "vscode";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertKnownSessionFile } from "../core/session/session-file-check";
import type { SessionHost } from "./session-host";

/**
 * The session a workspace had open when its window closed opens again with the window, as VS Code
 * brings back the editors that were open. Only in a trusted workspace (opening a session takes its
 * writer lock), only a regular file inside the sessions folders Arbor knows now, and only when no
 * session was opened meanwhile; a file that is gone is forgotten quietly.
 *
 * The path is kept in a file of the workspace's extension storage on the extension host's disk,
 * written when the session changes: a window closed or reloaded at once still finds it (the
 * workspace Memento of VS Code for the Web is saved to the browser later, and a reload can lose it).
 */
export function restoreLastSession(host: SessionHost, storage: vscode.Uri | undefined, log: vscode.LogOutputChannel): vscode.Disposable {
  if (!storage || storage.scheme !== "file") return new vscode.Disposable(() => undefined);
  const record = join(storage.fsPath, "last-session.json");
  const remember = host.onDidChangeSession((sm) => {
    const file = sm?.getSessionFile();
    // A session closing (with the window, too) leaves the last one remembered; another replaces it.
    if (!file || !vscode.workspace.isTrusted) return;
    try {
      mkdirSync(storage.fsPath, { recursive: true });
      writeFileSync(record, JSON.stringify({ file }));
    } catch (error) {
      log.warn(`could not remember the open session: ${(error as Error).message}`);
    }
  });
  if (vscode.workspace.isTrusted) {
    let last: string | undefined;
    try {
      const parsed = JSON.parse(readFileSync(record, "utf8")) as { file?: unknown };
      if (typeof parsed.file === "string") last = parsed.file;
    } catch {
      // Nothing remembered yet.
    }
    if (last) {
      const path = last;
      void (async () => {
        try {
          const file = await assertKnownSessionFile(path, host.knownSessionFolders());
          if (host.current) return;
          log.info(`reopening the session this workspace had open: ${file}`);
          await host.open(file);
        } catch (error) {
          log.info(`not reopening the last session ${path}: ${(error as Error).message}`);
        }
      })();
    }
  }
  return remember;
}
