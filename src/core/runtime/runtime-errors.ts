import { existsSync } from "node:fs";
import type { SessionManager } from "../session/session-manager";

/** Why a session replacement could not happen (nothing was changed, except for "replacement-failed"). */
export type RuntimeErrorCode =
  | "missing-cwd"
  | "import-not-found"
  | "invalid-fork-target"
  | "nothing-to-fork"
  | "disposed"
  /** A reply, compaction or shell command runs (reload waits for none of them). */
  | "busy"
  /** A replacement was started from inside an extension handler Arbor waits for. */
  | "nested-replacement"
  /** The new session could not be built after the old one was shut down: the runtime ended. */
  | "replacement-failed";

/** A runtime error with a code the UI can act on. */
export class RuntimeError extends Error {
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "RuntimeError";
  }
}

/**
 * The session's stored working directory no longer exists. The UI can offer to continue in
 * `fallbackCwd`: call the same operation again with `cwdOverride` set to it.
 */
export class MissingSessionCwdError extends RuntimeError {
  constructor(
    readonly sessionFile: string,
    readonly sessionCwd: string,
    readonly fallbackCwd: string,
  ) {
    super("missing-cwd", `The session's working directory no longer exists: ${sessionCwd} (session ${sessionFile}). It can be continued in ${fallbackCwd} instead.`);
    this.name = "MissingSessionCwdError";
  }
}

/** Throws {@link MissingSessionCwdError} when a persisted session's cwd is gone. */
export function assertSessionCwdExists(sm: SessionManager, fallbackCwd: string): void {
  const file = sm.getSessionFile();
  const cwd = sm.getCwd();
  if (file && cwd && !existsSync(cwd)) throw new MissingSessionCwdError(file, cwd, fallbackCwd);
}
