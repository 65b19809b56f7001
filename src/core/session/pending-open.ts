import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import * as path from "node:path";

/**
 * A session for the next window that opens a folder: a fork into a new git worktree is opened in a
 * new window, and that window's Arbor opens the forked session as it starts. The record is a file
 * in Arbor's global storage (shared by the windows of one machine), one per folder, written before
 * the window is asked for and taken (read and removed) by the first window of that folder.
 */
export interface PendingOpen {
  /** The folder the new window opens. */
  folder: string;
  /** The session file to open; undefined when the fork had nothing to write yet (a new session starts in `cwd`). */
  file?: string;
  /** The session's working folder (in `folder`). */
  cwd: string;
  /** Text for the chat input (a fork before a user message gives it back for editing). */
  editText?: string;
}

const FOLDER = "pending-open";

async function keyOf(folder: string): Promise<string> {
  const real = await fs.realpath(folder).catch(() => path.resolve(folder));
  const normal = process.platform === "win32" || process.platform === "darwin" ? real.toLowerCase() : real;
  return createHash("sha256").update(normal).digest("hex").slice(0, 32);
}

/** Remembers what the next window of `record.folder` opens (replacing an earlier record of that folder). */
export async function rememberPendingOpen(storageDir: string, record: PendingOpen): Promise<void> {
  const dir = path.join(storageDir, FOLDER);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${await keyOf(record.folder)}.json`);
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  await fs.writeFile(temp, JSON.stringify(record));
  await fs.rename(temp, file);
}

/**
 * The record of `folder`, removed so that only one window acts on it (a second window of the
 * folder, or a reload, finds nothing). Undefined when there is none or it is not readable.
 */
export async function takePendingOpen(storageDir: string, folder: string): Promise<PendingOpen | undefined> {
  const file = path.join(storageDir, FOLDER, `${await keyOf(folder)}.json`);
  const claimed = `${file}.${randomBytes(6).toString("hex")}.taken`;
  try {
    await fs.rename(file, claimed);
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(await fs.readFile(claimed, "utf8")) as Partial<PendingOpen>;
    if (typeof parsed.folder !== "string" || typeof parsed.cwd !== "string") return undefined;
    return {
      folder: parsed.folder,
      cwd: parsed.cwd,
      ...(typeof parsed.file === "string" ? { file: parsed.file } : {}),
      ...(typeof parsed.editText === "string" ? { editText: parsed.editText } : {}),
    };
  } catch {
    return undefined;
  } finally {
    await fs.rm(claimed, { force: true });
  }
}
