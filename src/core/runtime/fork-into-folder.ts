import { existsSync } from "node:fs";
import { editableText } from "../session/entry-text";
import { SessionManager } from "../session/session-manager";
import type { WriterLockOptions } from "../session/writer-lock";
import type { AgentSessionRuntime } from "./agent-session-runtime";
import { RuntimeError } from "./runtime-errors";

/** Where a fork of an entry ends, and the text a fork before a user message gives back for editing. */
export interface ForkPoint {
  /** The new session's leaf: the entry ("at"), or the user message's parent ("before"; null at the root). */
  leafId: string | null;
  selectedText?: string;
}

/** The fork point of `entryId` (Pi's semantics: "before" needs a user message). */
export function forkPoint(source: SessionManager, entryId: string, position: "before" | "at"): ForkPoint {
  const entry = source.getEntry(entryId);
  if (!entry) throw new RuntimeError("invalid-fork-target", `There is no entry ${entryId} in this session.`);
  if (position === "at") return { leafId: entry.id };
  if (entry.type !== "message" || entry.message.role !== "user") {
    throw new RuntimeError("invalid-fork-target", "Forking before an entry needs a user message; fork at the entry instead.");
  }
  return { leafId: entry.parentId !== null && source.hasEntry(entry.parentId) ? entry.parentId : null, selectedText: editableText(entry.message.content) };
}

/**
 * Asks the session's extensions whether a fork may happen (session_before_fork, as a fork in the
 * window does). True when one of them cancels it.
 */
export async function forkCancelled(runtime: AgentSessionRuntime, entryId: string, position: "before" | "at"): Promise<boolean> {
  const answer = await runtime.extensions.emit("session_before_fork", { type: "session_before_fork", entryId, position }, runtime.createContext());
  return answer?.cancel === true;
}

/** A fork written for another window. */
export interface FolderFork {
  /** The new session file; undefined when the path holds no assistant message yet (Pi writes a file from the first reply). */
  file: string | undefined;
}

/**
 * Writes a fork of `source` up to `leafId` as a new session working in `cwd` (a new git worktree),
 * in `sessionDir`, and closes it: the window's own session stays current, and the window that
 * opens the folder takes the new file's writer lock.
 */
export async function writeFolderFork(source: SessionManager, leafId: string | null, options: { cwd: string; sessionDir: string; lock?: WriterLockOptions }): Promise<FolderFork> {
  const sm = await SessionManager.branchFrom(source, leafId, { cwd: options.cwd, sessionDir: options.sessionDir, lock: options.lock });
  let file: string | undefined;
  try {
    await sm.flush();
    file = sm.getSessionFile();
  } finally {
    await sm.close();
  }
  return { file: file !== undefined && existsSync(file) ? file : undefined };
}
