import { closeSync, fstatSync, readSync } from "node:fs";
import { SessionError } from "./errors";
import { reopenRegularFd } from "./session-file-check";

/** Open file descriptors of readers nobody closed: closed when their reader is collected. */
const orphans = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/**
 * Reads entry lines back from a session file by offset, synchronously (context resolution and
 * the tree ask for bodies one at a time). It keeps the file open from the moment it was indexed,
 * so that the offsets keep pointing into that file even if another one is renamed over its path;
 * a file changed in place is caught by the store, which checks every line it reads back.
 */
export class BodyReader {
  private fd: number | undefined;
  private readonly token = {};

  private constructor(
    readonly path: string,
    fd: number,
    /** Identity of the file the offsets belong to. */
    readonly dev: number,
    readonly ino: number,
  ) {
    this.fd = fd;
    orphans.register(this, fd, this.token);
  }

  /** Opens `path` for reading; `fd` may be an already open descriptor of it. */
  static open(path: string, fd?: number): BodyReader {
    const opened = fd ?? reopenRegularFd(path);
    const st = fstatSync(opened);
    return new BodyReader(path, opened, st.dev, st.ino);
  }

  get descriptor(): number {
    if (this.fd === undefined) throw new SessionError("disposed", `The session file ${this.path} was closed`, this.path);
    return this.fd;
  }

  /** The bytes [offset, offset + length) of the file. */
  read(offset: number, length: number): Buffer {
    const fd = this.descriptor;
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buf, done, length - done, offset + done);
      if (n === 0) throw new SessionError("changed", `The session file ${this.path} is shorter than its index says (it was truncated or replaced); reopen it`, this.path);
      done += n;
    }
    return buf;
  }

  close(): void {
    if (this.fd === undefined) return;
    orphans.unregister(this.token);
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
  }
}
