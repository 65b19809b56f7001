import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * The file operations behind the writer lock, each all-or-nothing: a lock file either exists with
 * its whole content or not at all, so a full disk (ENOSPC) or a crash never leaves an empty or
 * half-written lock behind for other windows to puzzle over.
 */

/** A temp file beside `path` holding `content`, fsynced; removed again if anything fails. */
async function writeTemp(path: string, content: string): Promise<string> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(tmp, "wx");
    await handle.writeFile(content);
    await handle.sync();
    await handle.close();
    handle = undefined;
    return tmp;
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/** Codes of file systems that cannot hard-link (FAT, some network shares): fall back to O_EXCL. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/**
 * Creates `path` with `content` only if it does not exist (EEXIST otherwise). The content is
 * written to a temp file first and hard-linked into place, so the lock appears whole or not at all.
 * Where links are not supported, the file is created exclusively and removed again if its content
 * cannot be written.
 */
export async function createExclusive(path: string, content: string): Promise<void> {
  const tmp = await writeTemp(path, content);
  try {
    await fs.link(tmp, path);
    return;
  } catch (err) {
    if (!NO_LINKS.has((err as NodeJS.ErrnoException).code ?? "")) throw err;
  } finally {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
  }
  const handle = await fs.open(path, "wx");
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(path, { force: true }).catch(() => undefined);
    throw err;
  }
  await handle.close();
}

/** Puts `content` at `path` in one step (a temp file renamed over it), whatever was there before. */
export async function replaceAtomically(path: string, content: string): Promise<void> {
  const tmp = await writeTemp(path, content);
  try {
    await fs.rename(tmp, path);
  } catch (err) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}
