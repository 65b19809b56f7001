/**
 * Real file-system faults for tests: a tiny tmpfs that fills up (ENOSPC, with genuine short writes),
 * a read-only mount (EROFS), a process without permission (EACCES, as the unprivileged user when the
 * tests run as root), and, where mounting is not allowed, errors injected at the file-system seam
 * (Node's `fs.promises`), below the session code and not instead of it.
 */
import { spawnSync } from "node:child_process";
import { promises as fsp } from "node:fs";

/** Mounts a tmpfs of `sizeKb` on `dir`; false where the machine does not allow it. */
export function mountTmpfs(dir: string, sizeKb: number): boolean {
  if (process.platform !== "linux") return false;
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k,mode=0777`, "tmpfs", dir], { encoding: "utf8" });
  return r.status === 0;
}

/** Makes a mounted tmpfs read-only. */
export function remountReadOnly(dir: string): boolean {
  return spawnSync("mount", ["-o", "remount,ro", dir], { encoding: "utf8" }).status === 0;
}

/** Binds `from` onto `to`; false where not allowed. */
export function bindMount(from: string, to: string): boolean {
  if (process.platform !== "linux") return false;
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

/**
 * Injects a fault at the file-system seam: files opened (with `fs.promises.open`) whose path matches
 * `match` behave like a full disk (`ENOSPC`: writes stop after `allowBytes` bytes, the rest fail)
 * or refuse to open (`EACCES`, `EROFS`). Returns the function that takes the fault away again.
 */
export function injectFault(match: (path: string) => boolean, fault: { code: "ENOSPC"; allowBytes?: number } | { code: "EACCES" | "EROFS" }): () => void {
  const original = fsp.open;
  const link = fsp.link;
  let budget = fault.code === "ENOSPC" ? (fault.allowBytes ?? 0) : 0;
  const patched = async (path: Parameters<typeof fsp.open>[0], flags?: Parameters<typeof fsp.open>[1], mode?: Parameters<typeof fsp.open>[2]) => {
    const p = String(path);
    if (!match(p)) return original(path, flags, mode);
    if (fault.code !== "ENOSPC" && flags !== "r" && flags !== undefined) throw errno(fault.code, "open", p);
    const handle = await original(path, flags, mode);
    if (fault.code !== "ENOSPC") return handle;
    const write = handle.write.bind(handle) as (...args: unknown[]) => Promise<{ bytesWritten: number; buffer: unknown }>;
    const writeFile = handle.writeFile.bind(handle);
    // A full disk: the bytes that still fit are written (a short write), then ENOSPC.
    (handle as unknown as { write: unknown }).write = async (data: Buffer | string, offset?: number, length?: number, position?: number) => {
      const buf = typeof data === "string" ? Buffer.from(data) : data.subarray(offset ?? 0, (offset ?? 0) + (length ?? data.length - (offset ?? 0)));
      if (budget <= 0) throw errno("ENOSPC", "write", p);
      const n = Math.min(budget, buf.length);
      budget -= n;
      return write(buf, 0, n, position);
    };
    (handle as unknown as { writeFile: unknown }).writeFile = async (data: string | Buffer) => {
      const buf = typeof data === "string" ? Buffer.from(data) : data;
      if (buf.length > budget) {
        if (budget > 0) await writeFile(buf.subarray(0, budget));
        budget = 0;
        throw errno("ENOSPC", "write", p);
      }
      budget -= buf.length;
      return writeFile(buf);
    };
    return handle;
  };
  (fsp as { open: unknown }).open = patched;
  if (fault.code !== "ENOSPC") {
    (fsp as { link: unknown }).link = async (from: string, to: string) => {
      if (match(String(to))) throw errno(fault.code, "link", String(to));
      return link(from, to);
    };
  }
  return () => {
    (fsp as { open: unknown }).open = original;
    (fsp as { link: unknown }).link = link;
  };
}
