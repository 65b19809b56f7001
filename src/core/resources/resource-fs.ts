/**
 * The file-system seam of the resource loader: the few synchronous reads it needs. Loading is a
 * handful of small files and folder listings per prompt, so synchronous reads keep the loader a
 * plain function; tests pass a real temp folder through `nodeResourceFs` or a fake of their own.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";

/** What a path is, symbolic links followed; undefined when it does not exist (or is a broken link). */
export type PathKind = "file" | "dir" | undefined;

export interface ResourceFs {
  kind(path: string): PathKind;
  /** The names in a folder (sorted by the caller where order matters); empty when it cannot be listed. */
  list(dir: string): string[];
  /** A file's text; throws with the system's message when it cannot be read. */
  readText(path: string): string;
  /** The canonical path (links resolved), or the path itself when it cannot be resolved. */
  realPath(path: string): string;
}

export const nodeResourceFs: ResourceFs = {
  kind(path) {
    try {
      const stats = statSync(path);
      return stats.isDirectory() ? "dir" : stats.isFile() ? "file" : undefined;
    } catch {
      return undefined;
    }
  },
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  },
  readText: (path) => readFileSync(path, "utf8"),
  realPath(path) {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  },
};
