import { homedir } from "node:os";
import { isAbsolute, relative } from "node:path";
import * as vscode from "vscode";
import type { AgentSession } from "../../core/agent/agent-session";
import type { ContextFileRef } from "../../protocol/chat-messages";

/** A path as the chat shows it: relative to the working folder when inside it, else with ~ for home. */
export function shortPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel && !rel.startsWith("..") && !isAbsolute(rel)) return rel;
  const home = homedir();
  return path.startsWith(home) ? `~${path.slice(home.length)}` : path;
}

/** The instruction files the session's agent is given, for the line at the top of the chat. */
export function contextFileRefs(session: AgentSession): ContextFileRef[] {
  try {
    const cwd = session.sessionManager.getCwd();
    return session.getResources().contextFiles.map((file) => ({ path: file.path, label: shortPath(file.path, cwd) }));
  } catch {
    // A folder that cannot be read gives no context files; the chat still opens.
    return [];
  }
}

/** Opens a context file the chat listed (only those: the webview cannot name any other path). */
export async function openContextFile(session: AgentSession | undefined, path: string): Promise<void> {
  if (!session || !session.getResources().contextFiles.some((file) => file.path === path)) return;
  await vscode.window.showTextDocument(vscode.Uri.file(path), { preview: true });
}
