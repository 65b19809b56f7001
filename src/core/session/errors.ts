/** Why a session file could not be used. Each code has one clear message for users. */
export type SessionErrorCode =
  | "not-found"
  | "empty"
  | "bad-header"
  | "unknown-entry"
  | "read-only"
  | "locked"
  | "io"
  | "disposed"
  /** The file was replaced or deleted while open: writing stopped, the unsaved entries are kept. */
  | "replaced"
  /** A FIFO, device or folder where a session file was expected (refused before any read). */
  | "not-a-file"
  /** A path outside the sessions folders Arbor knows, given to a command that acts on session files. */
  | "outside-sessions"
  /** The file changed under an index of it (rewritten or truncated in place): reopen it. */
  | "changed";

/** A session error with a code the UI can act on; its message is one clear line. */
export class SessionError extends Error {
  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = "SessionError";
  }
}

/** One line of a session file that could not be read as an entry. The line stays in the file. */
export interface LineProblem {
  /** 1-based line number */
  line: number;
  kind: "malformed" | "torn" | "not-an-entry" | "duplicate-id";
  message: string;
  /** The first characters of the line, for the report. */
  excerpt: string;
}
