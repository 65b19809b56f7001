/** Why the agent refused or failed an operation. Each code has one clear message a front end can show. */
export type AgentErrorCode =
  /** The session is a read-only view (held by another window, or opened read-only). */
  | "read-only"
  /** Another prompt, compaction or summary is running. */
  | "busy"
  /** No model is selected, or no provider serves the selected one. */
  | "no-model"
  /** The host disabled shell execution (an untrusted workspace). */
  | "shell-disabled"
  /** `!` with nothing after it. */
  | "empty-command"
  /** The shell could not be started. */
  | "shell-failed"
  | "unknown-entry"
  /** The path already ends in a compaction. */
  | "already-compacted"
  /** Too little history for a compaction to cut anything. */
  | "nothing-to-compact"
  /** The model failed while writing a compaction or branch summary. */
  | "summary-failed"
  /** The session was disposed (replaced or closed). */
  | "disposed"
  /** The session's header names no usable working folder, so nothing runs in it. */
  | "no-working-folder"
  /** The user did not approve it (or stopped while being asked). */
  | "denied";

/** An agent error with a code the UI can act on; its message is one clear sentence for users. */
export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AgentError";
  }
}

/** Said when the session cannot be written here; the UI offers a fork. */
export function readOnlyMessage(reason: string | undefined): string {
  const why = reason ? ` (${reason})` : "";
  return `This session is read-only in this window${why}. Fork it to continue here.`;
}

/** Said by `!cmd` and the bash tool when the host turned shell execution off. */
export const SHELL_DISABLED_MESSAGE =
  "Shell commands are disabled in this workspace (it is not trusted). Trust the workspace to run commands.";

/** Said by write tools when the host turned file changes off. */
export const WRITES_DISABLED_MESSAGE =
  "File changes are disabled in this workspace (it is not trusted). Trust the workspace to let the agent change files.";

/** Said when a prompt needs a model and there is none. */
export const NO_MODEL_MESSAGE =
  "No model is configured. Add a provider (an OpenAI-compatible endpoint or a VS Code chat model) and select a model to chat; browsing, labelling, forking and checking out still work without one.";
