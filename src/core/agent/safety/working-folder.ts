/**
 * Where a session's tools may run: the folder its header names (or the one the user chose instead
 * when that one was gone). A header without a usable folder runs nothing; a folder outside the
 * open workspace is asked about before anything runs there.
 */
import { isAbsolute } from "node:path";
import { isInsideFolders } from "./approvals";

export type WorkingFolderState =
  | { kind: "ok"; cwd: string }
  /** Outside every workspace folder: the user is asked once before tools run there. */
  | { kind: "foreign"; cwd: string; workspaceFolders: readonly string[] }
  /** No usable folder: tools and `!cmd` refuse with `message`. */
  | { kind: "invalid"; message: string };

/** Said when a session's header names no working folder. */
export const NO_WORKING_FOLDER_MESSAGE =
  "This session's header names no working folder (its cwd is empty or missing), so its tools and shell commands cannot run: Arbor will not guess where they belong. Start a new session in this workspace to work with files.";

/**
 * The state of a session's working folder. `headerCwd` is the header's field as read (untrusted);
 * `cwd` the folder the session runs in (the header's, or a replacement the user chose).
 * Without `workspaceFolders` the session's folder counts as the workspace.
 */
export function workingFolderState(headerCwd: unknown, cwd: string, workspaceFolders: readonly string[] | undefined): WorkingFolderState {
  if (typeof headerCwd !== "string" || headerCwd.trim() === "") return { kind: "invalid", message: NO_WORKING_FOLDER_MESSAGE };
  if (!isAbsolute(cwd)) {
    return { kind: "invalid", message: `This session's working folder "${cwd}" is not an absolute path, so its tools and shell commands cannot run.` };
  }
  if (workspaceFolders === undefined || isInsideFolders(cwd, workspaceFolders)) return { kind: "ok", cwd };
  return { kind: "foreign", cwd, workspaceFolders };
}
