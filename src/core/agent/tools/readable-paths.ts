/**
 * Where the reading tools (read, grep, find, ls) may look. Inside the session's folder they read
 * freely (through the confined opener, so no link leads them out unnoticed). Elsewhere they read only
 * inside the folders the call was given (`ToolContext.readableRoots`: the workspace's folders, the
 * host's extra roots such as skill folders, and a path the user allowed for this call), checked on
 * the real path of what was opened.
 */
import { constants, existsSync, promises as fs, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { openInside, type ConfinedFile } from "./confined-files";
import { isInside, PathOutsideCwdError, realOrNearest } from "./paths";

/**
 * A path as a model writes it, with a leading `@` (how files are mentioned in chat) dropped and `~`
 * read as the home folder; still relative when it was.
 */
export function expandToolPath(requested: string): string {
  const path = requested.startsWith("@") ? requested.slice(1) : requested;
  if (path === "~") return homedir();
  if (path.startsWith("~/") || (process.platform === "win32" && path.startsWith("~\\"))) return homedir() + path.slice(1);
  return path;
}

/** `expandToolPath`, made absolute against `cwd`. */
export function resolveToolPath(cwd: string, requested: string): string {
  const path = expandToolPath(requested);
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/** Whether the real path `real` lies in one of `roots` (compared with the roots' real paths and as written). */
export function insideAnyRoot(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => isInside(resolve(root), real) || isInside(realOrNearest(resolve(root)), real));
}

/** Thrown when a reading tool is asked for a path outside every folder it may read. */
export class PathNotReadableError extends PathOutsideCwdError {
  constructor(requested: string, cwd: string) {
    super(requested, cwd);
    this.message = `The path "${requested}" is outside the session's working directory (${cwd}) and was not allowed for reading.`;
    this.name = "PathNotReadableError";
  }
}

const FD_DIR = "/proc/self/fd";
const hasFdDir = process.platform === "linux" && existsSync(FD_DIR);

/** The real path of an open file: from the descriptor where the system says, else from the path (then compared by identity). */
async function realPathOf(handle: FileHandle, path: string, stat: Stats): Promise<string> {
  if (hasFdDir) return fs.readlink(`${FD_DIR}/${handle.fd}`);
  const real = await fs.realpath(path);
  const named = await fs.stat(real);
  if (named.ino !== stat.ino || named.dev !== stat.dev) throw new Error(`${path} changed while it was being opened.`);
  return real;
}

/**
 * Opens `requested` for reading: inside `cwd` through the confined opener; elsewhere (a path
 * outside, or a link inside that leads out) only when the real path of what was opened lies in one
 * of `roots`. A file or a folder; nothing else (a FIFO would block).
 */
export async function openReadable(cwd: string, requested: string, roots: readonly string[]): Promise<ConfinedFile> {
  const absolute = resolveToolPath(cwd, requested);
  try {
    return await openInside(cwd, expandToolPath(requested), "read");
  } catch (error) {
    if (!(error instanceof PathOutsideCwdError) || roots.length === 0) throw error;
  }
  let handle: FileHandle;
  try {
    handle = await fs.open(absolute, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`File not found: ${requested}`);
    if (code === "EACCES" || code === "EPERM") throw new Error(`Permission denied: ${requested}`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    const path = await realPathOf(handle, absolute, stat);
    if (!insideAnyRoot(path, roots)) throw new PathNotReadableError(requested, cwd);
    if (!stat.isFile() && !stat.isDirectory()) throw new Error(`${requested} is not a regular file.`);
    return { handle, path, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The real path of a folder or file a search tool will look in, checked as `openReadable` checks a
 * file: inside `cwd` or one of `roots`. The search itself follows no links out of it.
 */
export async function readableSearchPath(cwd: string, requested: string, roots: readonly string[]): Promise<{ path: string; stat: Stats }> {
  const file = await openReadable(cwd, requested, roots);
  try {
    return { path: file.path, stat: file.stat };
  } finally {
    await file.handle.close();
  }
}
