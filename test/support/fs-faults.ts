/**
 * Real file-system faults for tests: a tiny tmpfs that fills up (ENOSPC, with genuine short writes),
 * a read-only mount (EROFS), a process without permission (EACCES, as the unprivileged user when the
 * tests run as root), and, where mounting is not allowed, errors injected at the file-system seam
 * (Node's `fs.promises`), below the session code and not instead of it.
 */
import { spawnSync } from "node:child_process";
import { promises as fsp, readlinkSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/** ARBOR_TEST_NO_MOUNT=1 runs the seam-injection fallbacks, as on a machine that cannot mount. */
function mountsAllowed(): boolean {
  return process.platform === "linux" && process.env.ARBOR_TEST_NO_MOUNT !== "1";
}

/** Mounts a tmpfs of `sizeKb` on `dir`; false where the machine does not allow it. */
export function mountTmpfs(dir: string, sizeKb: number): boolean {
  if (!mountsAllowed()) return false;
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k,mode=0777`, "tmpfs", dir], { encoding: "utf8" });
  return r.status === 0;
}

/** Makes a mounted tmpfs read-only. */
export function remountReadOnly(dir: string): boolean {
  return spawnSync("mount", ["-o", "remount,ro", dir], { encoding: "utf8" }).status === 0;
}

/** Binds `from` onto `to`; false where not allowed. */
export function bindMount(from: string, to: string): boolean {
  if (!mountsAllowed()) return false;
  return spawnSync("mount", ["--bind", from, to], { encoding: "utf8" }).status === 0;
}

export function unmount(dir: string): void {
  spawnSync("umount", ["-l", dir], { encoding: "utf8" });
}

/** Fills the file system holding `dir` to the last byte (a filler file written until ENOSPC). */
export async function fillUp(file: string): Promise<void> {
  const handle = await fsp.open(file, "w");
  const block = Buffer.alloc(4096, 0x61);
  try {
    for (;;) await handle.write(block);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    await handle.close();
  }
  // Pages partly used by the last short write: fill them byte by byte.
  const tail = await fsp.open(file, "a");
  try {
    for (;;) await tail.write(Buffer.from("a"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  } finally {
    await tail.close();
  }
}

function errno(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const messages: Record<string, string> = { ENOSPC: "no space left on device", EACCES: "permission denied", EROFS: "read-only file system" };
  const err = new Error(`${code}: ${messages[code] ?? code}, ${syscall} '${path}'`) as NodeJS.ErrnoException;
  err.code = code;
  err.syscall = syscall;
  err.path = path;
  return err;
}

/** The path an open file descriptor names (Linux: /proc/self/fd). */
function pathOfFd(fd: number): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).replace(/ \(deleted\)$/, "");
  } catch {
    return "";
  }
}

type WriteFn = (this: FileHandle, data: Buffer | string, offset?: number, length?: number, position?: number | null) => Promise<{ bytesWritten: number }>;
type WriteFileFn = (this: FileHandle, data: Buffer | string) => Promise<void>;

/**
 * Injects a fault at the file-system seam (Node's `fs.promises` and its FileHandle), below the
 * session code and not instead of it. `ENOSPC`: writes to files whose path matches `match` behave
 * like a full disk (the bytes that still fit, `allowBytes` in all, are written, then ENOSPC), also
 * through handles opened before. `EACCES`, `EROFS`: matching files cannot be created or opened for
 * writing. Resolves to the function that takes the fault away again.
 */
export async function injectFault(match: (path: string) => boolean, fault: { code: "ENOSPC"; allowBytes?: number } | { code: "EACCES" | "EROFS" }): Promise<() => void> {
  if (fault.code === "ENOSPC") return injectDiskFull(match, fault.allowBytes ?? 0);
  const original = fsp.open;
  const link = fsp.link;
  const code = fault.code;
  (fsp as { open: unknown }).open = async (path: Parameters<typeof fsp.open>[0], flags?: Parameters<typeof fsp.open>[1], mode?: Parameters<typeof fsp.open>[2]) => {
    if (match(String(path)) && flags !== "r" && flags !== undefined) throw errno(code, "open", String(path));
    return original(path, flags, mode);
  };
  (fsp as { link: unknown }).link = async (from: Parameters<typeof fsp.link>[0], to: Parameters<typeof fsp.link>[1]) => {
    if (match(String(to))) throw errno(code, "link", String(to));
    return link(from, to);
  };
  return () => {
    (fsp as { open: unknown }).open = original;
    (fsp as { link: unknown }).link = link;
  };
}

async function injectDiskFull(match: (path: string) => boolean, allowBytes: number): Promise<() => void> {
  // FileHandle is not exported: its prototype comes from a handle.
  const probe = await fsp.open(process.execPath, "r");
  const proto = Object.getPrototypeOf(probe) as { write: WriteFn; writeFile: WriteFileFn };
  await probe.close();
  const { write, writeFile } = proto;
  let budget = allowBytes;
  proto.write = async function (this: FileHandle, data, offset, length, position) {
    if (!match(pathOfFd(this.fd))) return write.call(this, data, offset, length, position);
    const start = offset ?? 0;
    const buf = typeof data === "string" ? Buffer.from(data) : data.subarray(start, start + (length ?? data.length - start));
    if (budget <= 0 || buf.length === 0) throw errno("ENOSPC", "write", pathOfFd(this.fd));
    const n = Math.min(budget, buf.length);
    budget -= n;
    return write.call(this, buf, 0, n, position);
  };
  proto.writeFile = async function (this: FileHandle, data) {
    if (!match(pathOfFd(this.fd))) return writeFile.call(this, data);
    const buf = typeof data === "string" ? Buffer.from(data) : data;
    const n = Math.min(budget, buf.length);
    budget -= n;
    if (n > 0) await write.call(this, buf, 0, n, null);
    if (n < buf.length) throw errno("ENOSPC", "write", pathOfFd(this.fd));
  };
  return () => {
    proto.write = write;
    proto.writeFile = writeFile;
  };
}
