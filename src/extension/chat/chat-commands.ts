import * as vscode from "vscode";
import { compactionReport, replacedEntryCount } from "../../core/compaction/compaction-report";
import { registerCommandSet } from "../register-commands";
import type { SessionHost } from "../session-host";
import type { ChatViews } from "./chat-view";

/** The chat's commands; package.json contributes exactly these (a test checks both ways). */
export const CHAT_COMMAND_IDS = ["arbor.openChat", "arbor.openChatInEditor", "arbor.compactSession"] as const;

/** Compacts the current session now, with progress that Cancel stops (nothing is written then). */
export async function compactSession(host: SessionHost, instructions: string | undefined): Promise<void> {
  const session = host.session;
  if (!session) throw new Error("No session is open: resume one or start a new one first.");
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "Arbor: compacting the session", cancellable: true },
    async (_progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        return await session.compact(instructions, { signal: abort.signal });
      } finally {
        sub.dispose();
      }
    },
  );
  if (outcome.kind === "cancelled") {
    vscode.window.setStatusBarMessage(outcome.by === "extension" ? "An extension cancelled the compaction" : "Compaction cancelled", 4000);
    return;
  }
  const result = outcome.result;
  const replaced = replacedEntryCount(session.sessionManager.getBranch(result.entryId), result.firstKeptEntryId);
  vscode.window.setStatusBarMessage(`$(fold) ${compactionReport(replaced, result.tokensBefore)}`, 5000);
}

export function registerChatCommands(host: SessionHost, views: ChatViews, log: vscode.LogOutputChannel): vscode.Disposable[] {
  const handlers: Record<(typeof CHAT_COMMAND_IDS)[number], (...args: unknown[]) => unknown> = {
    "arbor.openChat": () => vscode.commands.executeCommand("arbor.chat.focus"),
    "arbor.openChatInEditor": () => views.openInEditor(),
    "arbor.compactSession": async (instructions?: unknown) => {
      let text = typeof instructions === "string" ? instructions : undefined;
      if (instructions === undefined && host.session) {
        text = await vscode.window.showInputBox({ title: "Compact Session", prompt: "Optional: what the summary should focus on (Enter for the default)", placeHolder: "e.g. keep the decisions about the parser" });
        if (text === undefined) return;
      }
      await compactSession(host, text?.trim() || undefined);
    },
  };
  return registerCommandSet(CHAT_COMMAND_IDS, handlers, log);
}
