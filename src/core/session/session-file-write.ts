import { writeFileStreaming, type FileSink, type WriteResult } from "./atomic-write";
import { SessionError } from "./errors";

/** What a failed whole-file write was for, in words a user reads in a notification. */
export interface WriteIntent {
  /** What could not be done, e.g. "Could not save the session as a new file /x/y.jsonl". */
  action: string;
  /** What the user keeps, e.g. "the session file is unchanged". */
  kept: string;
  /** Where the old content is copied before the new one replaces it. */
  backupPath?: string;
  /** A last check before the new file replaces the old one (see writeFileStreaming). */
  beforeRename?: () => Promise<void>;
}

/**
 * Writes a whole session file (a fork, a copy, a file brought to the current format) streamed
 * and crash-safe (see writeFileStreaming). A failure leaves the file at `path` as it was and is
 * reported as one clear line that says why and what is kept.
 */
export async function writeSessionFile(path: string, produce: (sink: FileSink) => Promise<void>, intent: WriteIntent): Promise<WriteResult> {
  try {
    return await writeFileStreaming(path, produce, intent.backupPath, intent.beforeRename);
  } catch (err) {
    if (err instanceof SessionError) throw new SessionError(err.code, `${intent.action}: ${err.message}; ${intent.kept}`, path);
    throw new SessionError("io", `${intent.action}: ${whyWriteFailed(err)}; ${intent.kept}`, path);
  }
}

/** Writes the header and entries given, one JSON line each, without joining them into one string. */
export function writeJsonLines(path: string, values: Iterable<unknown>, intent: WriteIntent): Promise<WriteResult> {
  return writeSessionFile(
    path,
    async (sink) => {
      for (const v of values) await sink.writeLine(JSON.stringify(v));
    },
    intent,
  );
}

/** Why a write failed, in plain words (the code stays, for a search). */
function whyWriteFailed(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case "ENOSPC":
      return "the disk is full (ENOSPC)";
    case "EDQUOT":
      return "the disk quota is used up (EDQUOT)";
    case "EROFS":
      return "the folder is on a read-only file system (EROFS)";
    case "EACCES":
    case "EPERM":
      return `permission denied (${e.code})`;
    default:
      return e?.message ?? String(err);
  }
}
