import { SessionError } from "./errors";

/** Which file a path names: its device and inode. A rename-over or a re-creation changes them. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

export function identityOf(st: { dev: number; ino: number }): FileIdentity {
  return { dev: st.dev, ino: st.ino };
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * The error for a session file that is no longer the one Arbor read and writes: it was replaced
 * (a sync tool, `git checkout`, an editor's atomic save rename a new file over it) or deleted.
 */
export function fileReplacedError(path: string, how: "replaced" | "deleted"): SessionError {
  const what = how === "deleted" ? "was deleted" : "was replaced by another program";
  return new SessionError(
    "replaced",
    `The session file ${what} while it was open, so Arbor stopped writing to it; nothing you wrote is lost: save it as a new session to keep working`,
    path,
  );
}
