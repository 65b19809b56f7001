import { constants, promises as fs } from "node:fs";
import { SessionError } from "./errors";
import { WriterLock, type WriterLockOptions } from "./writer-lock";

const READ_ONLY_CODES = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * The writer lock of an existing session file, once it is clear the file itself can be written:
 * a file without write permission (or on a read-only mount) is refused with SessionError
 * "read-only", and no lock is left behind, so the session opens as a read-only view.
 */
export async function acquireForWriting(file: string, opts?: WriterLockOptions): Promise<WriterLock> {
  const lock = await WriterLock.acquire(file, opts);
  try {
    await fs.access(file, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (!READ_ONLY_CODES.has(code)) return lock; // gone or odd: the writer reports it at the first write
    await lock.release();
    throw new SessionError("read-only", `${file} cannot be written (${code}): it opens as a read-only view`, file);
  }
  return lock;
}
