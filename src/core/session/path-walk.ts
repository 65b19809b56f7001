/**
 * Questions about paths of a session tree answered by walking positions up from an entry, reading
 * only the skeleton (no entry body, no string set) and then just the entries the answer holds.
 * On a long session a path is tens of thousands of entries deep, and a checkout asks these before
 * (or right after) it writes its marker: parsing whole paths there took most of a second.
 */
import type { EntryStore } from "./entry-store";
import type { SessionEntry } from "./types";

/** The branch being left, as ids (oldest first), and the deepest entry both paths share. */
export interface BranchLeft {
  ids: string[];
  /** null when the paths share no entry (or there is no old leaf). */
  commonAncestorId: string | null;
}

const ON_FROM = 1;
const ON_TO = 2;

/**
 * The entries on the path to `fromId` that are not on the path to `toId` (null: the position
 * before the root), oldest first, and where the paths meet. Each walk goes up from its end and
 * stops at a missing parent or a cycle, as getPathIds does; so the ids are the tail of
 * getPathIds(fromId) after the common ancestor.
 */
export function findBranchLeft(store: EntryStore, fromId: string | null, toId: string | null): BranchLeft {
  const from = fromId === null ? -1 : store.indexOf(fromId);
  if (from < 0) return { ids: [], commonAncestorId: null };
  const marks = new Uint8Array(store.size);
  const fromPath: number[] = [];
  for (let p = from; p >= 0 && !(marks[p]! & ON_FROM); p = store.parentIndexAt(p)) {
    marks[p]! |= ON_FROM;
    fromPath.push(p);
  }
  // Up from the target to the first entry on the old path: the deepest one both share.
  let common = -1;
  for (let p = toId === null ? -1 : store.indexOf(toId); p >= 0 && !(marks[p]! & ON_TO); p = store.parentIndexAt(p)) {
    if (marks[p]! & ON_FROM) {
      common = p;
      break;
    }
    marks[p]! |= ON_TO;
  }
  const ids: string[] = [];
  for (const p of fromPath) {
    if (p === common) break;
    ids.push(store.idAt(p));
  }
  return { ids: ids.reverse(), commonAncestorId: common < 0 ? null : store.idAt(common) };
}

/**
 * The part of the path to `leafId` from its latest compaction down to `leafId` (that compaction
 * first), or [] when the path has none: all that the context's use and the compaction checks read
 * of a path. Only the entries returned are parsed.
 */
export function branchSinceCompaction(store: EntryStore, leafId: string | null): SessionEntry[] {
  const leaf = leafId === null ? -1 : store.indexOf(leafId);
  const seen = new Uint8Array(store.size);
  const positions: number[] = [];
  for (let p = leaf; p >= 0 && !seen[p]; p = store.parentIndexAt(p)) {
    seen[p] = 1;
    positions.push(p);
    if (store.typeAt(p) === "compaction") return positions.reverse().map((at) => store.entryAt(at));
  }
  return [];
}
