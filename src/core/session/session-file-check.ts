/**
 * Checks on a path before Arbor reads or writes it as a session file. A path can come from another
 * extension, a command URI or a command line, so it is checked for what it is (a regular file, never a
 * FIFO, device or folder, which would hang a read or make no sense) and, where Arbor acts for the
 * user on it, for where it is (under a sessions folder Arbor knows).
 */
import { closeSync, constants, fstatSync, openSync, promises as fs, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, resolve } from "node:path";
import { SessionError } from "./errors";
import { resolveExplicitSessionDir, resolveSessionsRoot, type SessionLocationOptions } from "./paths";

/** What a non-regular file is, in words. */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

function notAFile(path: string, st: Stats): SessionError {
  return new SessionError("not-a-file", `${path} is ${kindOf(st)}, not a session file`, path);
}

/**
 * Refuses at once anything that is not a regular file. Only stats the path (a FIFO is never
 * opened); symbolic links are followed.
 */
export async function assertRegularFile(path: string): Promise<Stats> {
  let st: Stats;
  try {
    st = await fs.stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new SessionError("not-found", `Session file not found: ${path}`, path);
    throw new SessionError("io", `Cannot read ${path}: ${(err as Error).message}`, path);
  }
  if (!st.isFile()) throw notAFile(path, st);
  return st;
}

/**
 * Opens a file for reading only if it is a regular file. The open does not block on a FIFO swapped
 * in after a check (O_NONBLOCK), and the type is checked again on the open handle.
 */
export async function openRegularFile(path: string): Promise<fs.FileHandle> {
  await assertRegularFile(path);
  const handle = await fs.open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw notAFile(path, st);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * The synchronous twin of openRegularFile, for readers that keep a raw descriptor (bodies are read
 * back by offset, synchronously): the path is checked first, the open cannot block on a FIFO
 * swapped in after the check, and the open descriptor is checked again.
 */
export async function openRegularFd(path: string): Promise<number> {
  await assertRegularFile(path);
  return reopenRegularFd(path);
}

/** Opens a path already known to be a regular file, without blocking; refuses what it is now if that changed. */
export function reopenRegularFd(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notAFile(path, st);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** The folders whose session files Arbor acts on: `<agentDir>/sessions/<one folder>/` and the explicit folder. */
export interface KnownSessionFolders {
  /** Holds one folder per working directory. */
  readonly sessionsRoot: string;
  /** The flat sessions folder, when one is configured. */
  readonly explicitDir?: string;
}

export function knownSessionFolders(opts: SessionLocationOptions): KnownSessionFolders {
  const explicitDir = resolveExplicitSessionDir(opts);
  return { sessionsRoot: resolveSessionsRoot(opts), ...(explicitDir ? { explicitDir } : {}) };
}

async function real(path: string): Promise<string> {
  try {
    return await fs.realpath(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Refuses a path that is not a `.jsonl` regular file directly in a known sessions folder (after
 * resolving symbolic links on both sides, so a link cannot lead out of them). Returns the path as
 * given, resolved to absolute.
 */
export async function assertKnownSessionFile(path: unknown, folders: KnownSessionFolders): Promise<string> {
  if (typeof path !== "string" || !path.trim()) throw new SessionError("outside-sessions", "A session file path is required");
  if (!isAbsolute(path)) throw new SessionError("outside-sessions", `Not an absolute path: ${path}`);
  const file = resolve(path);
  const where = [folders.explicitDir, folders.sessionsRoot].filter((d): d is string => d !== undefined).join(" or ");
  const refuse = () => new SessionError("outside-sessions", `Arbor acts only on session files in its sessions folders (${where}); refused ${file}`, file);
  if (!basename(file).endsWith(".jsonl")) throw refuse();
  const parent = dirname(await real(file));
  const inExplicit = folders.explicitDir !== undefined && parent === (await real(folders.explicitDir));
  const inRoot = dirname(parent) === (await real(folders.sessionsRoot));
  if (!inExplicit && !inRoot) throw refuse();
  // Where it is first (nothing outside is even looked at further), then what it is.
  await assertRegularFile(file);
  return file;
}
