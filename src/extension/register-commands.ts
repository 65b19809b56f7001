import * as vscode from "vscode";
import { preparedSessions } from "../core/session/session-preparer";

/**
 * Registers a set of commands. A handler that fails is logged and shown as an error message, so a
 * command run from the palette, a menu or another extension never fails silently.
 */
export function registerCommandSet<Id extends string>(ids: readonly Id[], handlers: Record<Id, (...args: unknown[]) => unknown>, log: vscode.LogOutputChannel): vscode.Disposable[] {
  return ids.map((id) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      preparedSessions.userActive();
      try {
        return await handlers[id](...args);
      } catch (err) {
        const message = (err as Error).message ?? String(err);
        log.error(`${id}: ${message}`);
        void vscode.window.showErrorMessage(message);
        return undefined;
      }
    }),
  );
}
