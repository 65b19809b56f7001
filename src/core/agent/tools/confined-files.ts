/**
 * Opening files inside the session's working folder so that no symbolic link, dangling or not, and
 * no link swapped in while a tool runs, can carry a read or a write outside it.
 *
 * On Linux every step is anchored to a file descriptor: the walk opens each folder relative to the
 * one before it (through `/proc/self/fd/<fd>/<name>`, which resolves through the descriptor, not the
 * path, and so works as `openat`), checks the real path of each descriptor it opened, and opens the
 * last component with O_NOFOLLOW. A path swapped after a folder was opened cannot redirect what
 * follows. Elsewhere the same checks run on paths (check, open without following, then compare the
 * opened file's identity with the checked path's), which leaves only a narrow race.
 */
import { constants, existsSync, promises as fs, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { isInside, PathOutsideCwdError } from "./paths";

/** What the caller will do with the file. */
export type OpenMode = "read" | "write" | "update";

export interface ConfinedFile {
  handle: FileHandle;
  /** The real path of what was opened. */
  path: string;
  stat: Stats;
}

export interface OpenInsideOptions {
  /** Test seam: runs after the folders of the path are opened and before the last component is. */
  beforeFinalOpen?: () => void | Promise<void>;
  /** Test seam: the path-based checks of systems without `/proc/self/fd`, also where it exists. */
  pathBased?: boolean;
}

const FD_DIR = "/proc/self/fd";
const anchored = process.platform === "linux" && existsSync(FD_DIR);
/** Links followed inside the folder before giving up (a loop, or a long chain). */
const MAX_LINK_HOPS = 16;

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
// A FIFO opened without it blocks until someone opens the other end; with it the open returns and
// the type check refuses it.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

const FLAGS: Record<OpenMode, number> = {
  read: constants.O_RDONLY | O_NONBLOCK,
  write: constants.O_WRONLY | constants.O_CREAT | O_NONBLOCK,
  update: constants.O_RDWR | O_NONBLOCK,
};

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

class LinkLeadsOutsideError extends PathOutsideCwdError {
  constructor(requested: string, cwd: string) {
    super(requested, cwd);
    this.message = `The path "${requested}" leads outside the session's working directory (${cwd}) through a symbolic link; file tools only work inside it.`;
  }
}

/** The components of `requested` below the root, or a PathOutsideCwdError. */
function componentsInside(cwd: string, rootReal: string, requested: string): string[] {
  const absolute = resolve(cwd, requested);
  for (const root of [resolve(cwd), rootReal]) {
    if (isInside(root, absolute)) return relative(root, absolute).split(sep).filter((part) => part !== "");
  }
  throw new PathOutsideCwdError(requested, cwd);
}

/**
 * Opens `requested` (relative to `cwd`, or absolute) for `mode`, refusing anything that is, or goes
 * through, a link to a place outside `cwd`. Links that stay inside are followed. "write" creates the
 * file and its missing folders; "write" and "update" refuse anything but a regular file with a
 * single link (writing a hard-linked file would change its other names too, wherever they are).
 * The caller closes `handle`.
 */
export async function openInside(cwd: string, requested: string, mode: OpenMode, options: OpenInsideOptions = {}): Promise<ConfinedFile> {
  if (requested.trim() === "") throw new Error("The path is empty.");
  let rootReal: string;
  try {
    rootReal = await fs.realpath(cwd);
  } catch {
    throw new Error(`The working directory does not exist: ${cwd}`);
  }
  const ctx: WalkContext = { cwd, rootReal, requested, mode, options, hops: 0 };
  const file = anchored && !options.pathBased ? await openAnchored(ctx, resolve(cwd, requested)) : await openByPath(ctx, resolve(cwd, requested));
  try {
    checkKind(file.stat, ctx);
    return file;
  } catch (error) {
    await file.handle.close();
    throw error;
  }
}

interface WalkContext {
  cwd: string;
  rootReal: string;
  /** As the model gave it, for messages. */
  requested: string;
  mode: OpenMode;
  options: OpenInsideOptions;
  hops: number;
}

function checkKind(stat: Stats, ctx: WalkContext): void {
  if (ctx.mode === "read") {
    if (!stat.isFile() && !stat.isDirectory()) throw new Error(`${ctx.requested} is not a regular file.`);
    return;
  }
  if (stat.isDirectory()) throw new Error(`${ctx.requested} is a folder, not a file.`);
  if (!stat.isFile()) throw new Error(`${ctx.requested} is not a regular file; file tools only write regular files.`);
  if (stat.nlink > 1) {
    throw new Error(`${ctx.requested} has ${stat.nlink} hard links; writing it would change the file under its other names too, so the tools leave it alone.`);
  }
}

function notFound(ctx: WalkContext): Error {
  return new Error(`File not found: ${ctx.requested}`);
}

/** A link met on the way: resolve it against the folder holding it and start over from the root. */
async function followLink(ctx: WalkContext, target: string, open: (ctx: WalkContext, absolute: string) => Promise<ConfinedFile>): Promise<ConfinedFile> {
  if (ctx.hops >= MAX_LINK_HOPS) throw new Error(`${ctx.requested}: too many levels of symbolic links.`);
  if (!isInside(ctx.rootReal, target)) throw new LinkLeadsOutsideError(ctx.requested, ctx.cwd);
  return open({ ...ctx, hops: ctx.hops + 1 }, target);
}

// ---------------------------------------------------------------- Linux: anchored to descriptors

async function realPathOfFd(fd: number): Promise<string> {
  return fs.readlink(`${FD_DIR}/${fd}`);
}

/** Throws unless the descriptor's real path is inside the root (a deleted one is not). */
async function assertFdInside(handle: FileHandle, ctx: WalkContext): Promise<string> {
  const real = await realPathOfFd(handle.fd);
  if (real.endsWith(" (deleted)") || !isInside(ctx.rootReal, real)) throw new LinkLeadsOutsideError(ctx.requested, ctx.cwd);
  return real;
}

async function openAnchored(ctx: WalkContext, absolute: string): Promise<ConfinedFile> {
  const parts = componentsInside(ctx.cwd, ctx.rootReal, absolute);
  if (parts.length === 0) {
    if (ctx.mode !== "read") throw new Error(`${ctx.requested} is a folder, not a file.`);
    const handle = await fs.open(ctx.rootReal, constants.O_RDONLY | O_DIRECTORY);
    try {
      return { handle, path: await assertFdInside(handle, ctx), stat: await handle.stat() };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }
  let dir = await fs.open(ctx.rootReal, constants.O_RDONLY | O_DIRECTORY);
  try {
    // The root itself may have been swapped for a link since realpath looked at it.
    await assertFdInside(dir, ctx);
    for (const name of parts.slice(0, -1)) {
      const next = await openFolderAt(dir, name, ctx);
      await dir.close();
      dir = next;
    }
    await ctx.options.beforeFinalOpen?.();
    const at = `${FD_DIR}/${dir.fd}/${parts[parts.length - 1]!}`;
    let handle: FileHandle;
    try {
      handle = await fs.open(at, FLAGS[ctx.mode] | O_NOFOLLOW, 0o666);
    } catch (error) {
      const code = codeOf(error);
      // O_NOFOLLOW refuses a link as the last component with ELOOP (dangling links too).
      if (code === "ELOOP" || code === "EMLINK") return await followLink(ctx, resolve(await realPathOfFd(dir.fd), await fs.readlink(at)), openAnchored);
      throw translate(error, ctx);
    }
    try {
      const path = await assertFdInside(handle, ctx);
      return { handle, path, stat: await handle.stat() };
    } catch (error) {
      await handle.close();
      throw error;
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
}

/** Opens (creating it for "write") the folder `name` inside the open folder `dir`, and checks where it really is. */
async function openFolderAt(dir: FileHandle, name: string, ctx: WalkContext): Promise<FileHandle> {
  const at = `${FD_DIR}/${dir.fd}/${name}`;
  let next: FileHandle;
  try {
    // Links to folders are followed here and judged by where the opened folder really is.
    next = await fs.open(at, constants.O_RDONLY | O_DIRECTORY);
  } catch (error) {
    if (codeOf(error) !== "ENOENT" || ctx.mode !== "write") throw translate(error, ctx);
    await fs.mkdir(at).catch((e: unknown) => {
      if (codeOf(e) !== "EEXIST") throw translate(e, ctx);
    });
    try {
      next = await fs.open(at, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (e) {
      // EEXIST above and ELOOP here: a dangling link sits where the folder would go.
      if (codeOf(e) === "ELOOP") throw new Error(`${ctx.requested}: the folder "${name}" is a symbolic link to nothing; the tools do not create folders through links.`);
      throw translate(e, ctx);
    }
  }
  try {
    await assertFdInside(next, ctx);
    return next;
  } catch (error) {
    await next.close();
    throw error;
  }
}

function translate(error: unknown, ctx: WalkContext): Error {
  switch (codeOf(error)) {
    case "ENOENT":
      return notFound(ctx);
    case "ENOTDIR":
      return new Error(`${ctx.requested}: a part of the path is a file, not a folder.`);
    case "EISDIR":
      return new Error(`${ctx.requested} is a folder, not a file.`);
    case "ENXIO":
      return new Error(`${ctx.requested} is not a regular file.`);
    case "EACCES":
    case "EPERM":
      return new Error(`Permission denied: ${ctx.requested}`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

// ---------------------------------------------------------------- elsewhere: checked paths

async function openByPath(ctx: WalkContext, absolute: string): Promise<ConfinedFile> {
  const parts = componentsInside(ctx.cwd, ctx.rootReal, absolute);
  let folder = ctx.rootReal;
  for (const name of parts.slice(0, -1)) {
    folder = join(folder, name);
    if (ctx.mode === "write") {
      await fs.mkdir(folder).catch((e: unknown) => {
        if (codeOf(e) !== "EEXIST") throw translate(e, ctx);
      });
    }
    const real = await fs.realpath(folder).catch((e: unknown) => {
      throw translate(e, ctx);
    });
    if (!isInside(ctx.rootReal, real)) throw new LinkLeadsOutsideError(ctx.requested, ctx.cwd);
    folder = real;
  }
  if (parts.length === 0 && ctx.mode !== "read") throw new Error(`${ctx.requested} is a folder, not a file.`);
  const path = parts.length === 0 ? folder : join(folder, parts[parts.length - 1]!);
  const link = await fs.lstat(path).catch(() => undefined);
  if (link?.isSymbolicLink()) return await followLink(ctx, resolve(folder, await fs.readlink(path)), openByPath);
  await ctx.options.beforeFinalOpen?.();
  let handle: FileHandle;
  try {
    handle = await fs.open(path, FLAGS[ctx.mode] | O_NOFOLLOW, 0o666);
  } catch (error) {
    if (codeOf(error) === "ELOOP") throw new LinkLeadsOutsideError(ctx.requested, ctx.cwd);
    throw translate(error, ctx);
  }
  try {
    // What was opened must be what the checked path names now.
    const stat = await handle.stat();
    const real = await fs.realpath(path);
    const named = await fs.stat(real);
    if (!isInside(ctx.rootReal, real) || named.ino !== stat.ino || named.dev !== stat.dev) throw new LinkLeadsOutsideError(ctx.requested, ctx.cwd);
    return { handle, path: real, stat };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

// ---------------------------------------------------------------- writing

/** Replaces the whole content of an open file (written first, then cut to length). */
export async function replaceContent(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
    offset += bytesWritten;
  }
  await handle.truncate(bytes.length);
}
