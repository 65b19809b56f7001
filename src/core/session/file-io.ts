import { writeFileStreaming } from "./atomic-write";
import { SessionError } from "./errors";

/**
 * Replaces a file's content crash-safely: the new content goes to a temp file beside it, is
 * fsynced, and is renamed over the old one; with `backupPath`, the old content is kept there
 * first. A crash at any point leaves either the old file or the new one, never a mix. (Content
 * that is not one string or buffer already: writeFileStreaming.)
 */
export async function writeFileAtomic(path: string, content: string | Buffer, backupPath?: string): Promise<void> {
  await writeFileStreaming(path, (sink) => sink.write(content), backupPath);
}

/** A backup name that does not end in .jsonl, so no session listing picks it up. */
export function backupPathFor(path: string, reason: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return `${path}.${reason}-${stamp}.bak`;
}

/** Wraps a Node I/O error as a one-line SessionError. */
export function ioError(err: unknown, action: string, path: string): SessionError {
  const e = err as NodeJS.ErrnoException;
  if (e && e.code === "ENOENT") return new SessionError("not-found", `Session file not found: ${path}`, path);
  if (e && (e.code === "EACCES" || e.code === "EPERM")) return new SessionError("io", `Permission denied ${action} ${path}`, path);
  if (e && e.code === "EISDIR") return new SessionError("io", `${path} is a directory, not a session file`, path);
  return new SessionError("io", `Could not ${action} ${path}: ${e?.message ?? String(err)}`, path);
}
