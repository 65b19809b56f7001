/**
 * The diff an edit records in its result's details, in the layout Pi's edit tool records (and its
 * interface shows): one row per line, `+` added, `-` removed, ` ` context, each with its line number
 * (the new file's for added lines, the old file's otherwise) padded to one width, at most four
 * context lines around each change and ` ...` rows where unchanged lines are left out.
 */
import { diffLines } from "diff";

/** Context lines kept on each side of a change. */
const CONTEXT_LINES = 4;

export interface EditDiff {
  diff: string;
  /** The first changed line, numbered in the new text. */
  firstChangedLine?: number;
}

/** The line-numbered diff from `before` to `after`. */
export function editDiff(before: string, after: string): EditDiff {
  const parts = diffLines(before, after);
  const width = String(Math.max(before.split("\n").length, after.split("\n").length)).length;
  const rows: string[] = [];
  const gap = ` ${" ".repeat(width)} ...`;
  let oldLine = 1;
  let newLine = 1;
  let firstChangedLine: number | undefined;
  const context = (lines: readonly string[]): void => {
    for (const line of lines) {
      rows.push(` ${String(oldLine).padStart(width)} ${line}`);
      oldLine++;
      newLine++;
    }
  };
  const skip = (count: number): void => {
    if (count <= 0) return;
    rows.push(gap);
    oldLine += count;
    newLine += count;
  };
  parts.forEach((part, i) => {
    const lines = part.value.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    if (part.added || part.removed) {
      firstChangedLine ??= newLine;
      for (const line of lines) {
        if (part.added) rows.push(`+${String(newLine++).padStart(width)} ${line}`);
        else rows.push(`-${String(oldLine++).padStart(width)} ${line}`);
      }
      return;
    }
    const afterChange = i > 0;
    const beforeChange = i < parts.length - 1;
    if (afterChange && beforeChange) {
      if (lines.length <= 2 * CONTEXT_LINES) return context(lines);
      context(lines.slice(0, CONTEXT_LINES));
      skip(lines.length - 2 * CONTEXT_LINES);
      return context(lines.slice(lines.length - CONTEXT_LINES));
    }
    if (afterChange) {
      context(lines.slice(0, CONTEXT_LINES));
      return skip(lines.length - Math.min(lines.length, CONTEXT_LINES));
    }
    if (beforeChange) {
      skip(lines.length - CONTEXT_LINES);
      return context(lines.slice(Math.max(0, lines.length - CONTEXT_LINES)));
    }
    // No change at all: nothing to show.
    oldLine += lines.length;
    newLine += lines.length;
  });
  return { diff: rows.join("\n"), firstChangedLine };
}
