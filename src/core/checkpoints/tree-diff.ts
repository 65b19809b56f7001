import type { Git } from "./git";
import { splitNul } from "./git";

/** How a path differs between two snapshots. */
export type ChangeKind = "added" | "modified" | "deleted";

/** One path's change between two snapshots (`from` → `to`). */
export interface FileChange {
  path: string;
  kind: ChangeKind;
  /** Git modes ("100644", "100755", "120000" for a symlink); "" where the side has no file. */
  oldMode: string;
  newMode: string;
  /** Blob ids; "" where the side has no file. */
  oldBlob: string;
  newBlob: string;
  /** Line counts; undefined for binary files and where not asked for. */
  linesAdded?: number;
  linesDeleted?: number;
}

const ZERO = /^0+$/;

/**
 * The file changes from tree `from` to tree `to`, without rename detection (a rename is a delete and
 * an add, which is what a restore has to do anyway). With `lines`, line counts are added.
 */
export async function diffTrees(git: Git, from: string, to: string, lines = false): Promise<FileChange[]> {
  if (from === to) return [];
  const args = ["diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--raw"];
  if (lines) args.push("--numstat");
  args.push(from, to);
  const parts = splitNul((await git.run(args)).stdout);
  const changes: FileChange[] = [];
  const byPath = new Map<string, FileChange>();
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.startsWith(":")) {
      // ":old new oldBlob newBlob status" then the path.
      const [oldMode, newMode, oldBlob, newBlob, status] = part.slice(1).split(" ");
      const file = parts[++i];
      const change: FileChange = {
        path: file,
        kind: status === "A" ? "added" : status === "D" ? "deleted" : "modified",
        oldMode: ZERO.test(oldMode) ? "" : oldMode,
        newMode: ZERO.test(newMode) ? "" : newMode,
        oldBlob: ZERO.test(oldBlob) ? "" : oldBlob,
        newBlob: ZERO.test(newBlob) ? "" : newBlob,
      };
      changes.push(change);
      byPath.set(file, change);
    } else if (lines) {
      // "added\tdeleted\tpath" ("-\t-\t" for binary files).
      const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(part);
      const change = m ? byPath.get(m[3]) : undefined;
      if (m && change && m[1] !== "-") {
        change.linesAdded = Number(m[1]);
        change.linesDeleted = Number(m[2]);
      }
    }
  }
  return changes;
}

/** A short account of changed paths, as recorded with each checkpoint. */
export interface ChangeSummary {
  added: string[];
  modified: string[];
  deleted: string[];
  /** True when the lists were cut to `limit` paths in all. */
  truncated?: boolean;
}

/** Sorts changes into a summary, keeping at most `limit` paths (the counts stay exact elsewhere). */
export function summarize(changes: readonly FileChange[], limit = 200): ChangeSummary & { counts: { added: number; modified: number; deleted: number } } {
  const summary: ChangeSummary = { added: [], modified: [], deleted: [] };
  const counts = { added: 0, modified: 0, deleted: 0 };
  let kept = 0;
  for (const change of changes) {
    counts[change.kind]++;
    if (kept < limit) {
      summary[change.kind].push(change.path);
      kept++;
    } else summary.truncated = true;
  }
  return { ...summary, counts };
}
