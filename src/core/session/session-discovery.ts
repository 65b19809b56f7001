import { promises as fs } from "node:fs";
import { join } from "node:path";
import { openRegularFile } from "./session-file-check";

/**
 * Whether a file starts with a session header (read from its first 4 KB only). Only regular files
 * are opened: a FIFO named `*.jsonl` would block the read for ever.
 */
export async function isSessionFile(path: string): Promise<boolean> {
  try {
    const handle = await openRegularFile(path);
    try {
      const buf = Buffer.alloc(4096);
      const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
      const first = buf.toString("utf8", 0, bytesRead).split("\n")[0] ?? "";
      const header = JSON.parse(first) as { type?: unknown; id?: unknown };
      return header.type === "session" && typeof header.id === "string";
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
}

/** The session file in `dir` modified last (by file time, as Pi picks it), or undefined. */
export async function findMostRecentSession(dir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return undefined;
  }
  const candidates: { path: string; mtime: number }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (!(await isSessionFile(path))) continue;
    candidates.push({ path, mtime: (await fs.stat(path)).mtimeMs });
  }
  candidates.sort((a, b) => b.mtime - a.mtime);
  return candidates[0]?.path;
}
