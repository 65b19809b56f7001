import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionError } from "./errors";

/**
 * Replaces a file's content crash-safely: the new content goes to a temp file beside it, is
 * fsynced, and is renamed over the old one; with `backupPath`, the old content is kept there
 * first. A crash at any point leaves either the old file or the new one, never a mix.
 */
export async function writeFileAtomic(path: string, content: string | Buffer, backupPath?: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await fs.open(tmp, "wx");
  try {
    await handle.writeFile(content);
    await keepOwnership(path, handle);
    await handle.sync();
  } catch (err) {
    // A full disk fails the write: leave no half-written temp file behind.
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    if (backupPath) await fs.copyFile(path, backupPath);
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dirname(path));
}

/**
 * A rewrite keeps the file's permission bits (a session kept private stays private) and, where
 * this process may, its owner.
 */
async function keepOwnership(path: string, handle: fs.FileHandle): Promise<void> {
  let st;
  try {
    st = await fs.stat(path);
  } catch {
    return; // a new file: the default mode
  }
  await handle.chmod(st.mode & 0o7777);
  if (process.getuid?.() === 0) await handle.chown(st.uid, st.gid).catch(() => undefined);
}

async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  }
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
