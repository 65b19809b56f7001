import type { ApprovalAnswer, ApprovalRequest, AutoApprove } from "./approvals";

/** What the host is asked before a tool that needs confirmation runs. */
export interface ToolConfirmationRequest {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  cwd: string;
  signal: AbortSignal;
}

/**
 * How the host restricts tools. The session reads it on every call, so a host may back a field
 * with a getter that follows a setting.
 */
export interface ToolPolicy {
  /** Tools neither offered to the model nor run. */
  disabledTools?: readonly string[];
  /** Tools that ask before every call: a list of names, or "all". */
  confirmTools?: readonly string[] | "all";
  /** Asks the user; false declines the call. Without it, calls that need confirmation are declined. */
  confirm?: (request: ToolConfirmationRequest) => boolean | Promise<boolean>;
  /**
   * Asks the user to approve a shell command, a write outside the workspace folders, or tools in a
   * session folder outside the workspace (see ApprovalRequest). Without it, whatever needs an
   * approval that the auto-approve setting does not cover is denied. `signal` aborts when the run
   * is stopped; the answer is then ignored.
   */
  approve?: (request: ApprovalRequest, signal: AbortSignal) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /** What runs without asking (default "never"). */
  autoApprove?: AutoApprove;
  /**
   * The open workspace's folders (absolute). Writes outside them ask first, and a session whose
   * folder lies outside them asks once before its tools run. Default: the session's own folder.
   */
  workspaceFolders?: readonly string[];
  /**
   * Globs of files that always ask before a write (and whose naming takes a command out of
   * auto-approval), see protected-paths. Default: DEFAULT_PROTECTED_PATTERNS; empty: none.
   */
  protectedPaths?: readonly string[];
  /**
   * Folders outside the workspace that the reading tools (read, grep, find, ls) may read without
   * asking, e.g. the skills' folders. Called on every call, so the list may change with the host's state.
   */
  readableRoots?: () => readonly string[];
  /** Shell tools stop a command after this many ms unless the call sets its own timeout (0 or unset: none). */
  commandTimeoutMs?: number;
}
