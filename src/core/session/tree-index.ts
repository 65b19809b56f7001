import type { EntrySummary } from "../tree/types";
import type { EntryStore } from "./entry-store";
import { buildTreeShape, type TreeShape } from "./session-tree";

/**
 * The entry tree of a session as positions, without an object per node: what a front end needs
 * to walk, lay out or page through a tree of a million entries in bounded memory. A position is
 * an entry's place in file order; `childrenOf` gives the children in Pi's order (oldest first).
 * Skeleton fields are free; summaries (previews) are read from the file when asked for.
 *
 * It is a snapshot: after entries are added, ask the session for a new one.
 */
export class SessionTreeIndex {
  private sizes: Int32Array | undefined;

  private constructor(
    private readonly store: EntryStore,
    private readonly shape: TreeShape,
    /** How many entries the store held when this index was built. */
    readonly entryCount: number,
  ) {}

  static build(store: EntryStore): SessionTreeIndex {
    return new SessionTreeIndex(store, buildTreeShape(store), store.size);
  }

  /** The roots, in file order. */
  roots(): Int32Array {
    return this.shape.roots;
  }
  childrenOf(pos: number): Int32Array {
    return this.shape.childList.subarray(this.shape.childStart[pos]!, this.shape.childStart[pos + 1]!);
  }
  /** The position of the entry with this id (the last line with it), or -1. */
  positionOf(id: string): number {
    return this.store.indexOf(id);
  }
  /** Whether the line at `pos` is the entry its id names (false for an earlier line with a repeated id). */
  isCanonical(pos: number): boolean {
    return this.shape.nodeOf[pos] === pos;
  }
  idAt(pos: number): string {
    return this.store.idAt(pos);
  }
  parentIdAt(pos: number): string | null {
    return this.store.parentIdAt(pos);
  }
  typeAt(pos: number): string {
    return this.store.typeAt(pos);
  }
  roleAt(pos: number): string | undefined {
    return this.store.roleAt(pos);
  }
  timestampAt(pos: number): string {
    return this.store.timestampAt(pos);
  }
  lineAt(pos: number): number {
    return this.store.lineAt(pos);
  }
  isCheckoutMarker(pos: number): boolean {
    return this.store.isCheckoutMarker(pos);
  }
  labelAt(pos: number): string | undefined {
    return this.store.labelOf(this.store.idAt(pos));
  }
  /** The summary the tree draws (made from the entry's body on first use). */
  summaryAt(pos: number): EntrySummary {
    return this.store.summaryAt(pos);
  }
  /** Summaries of many entries, their bodies read in sequential blocks (`keep: false`: not cached, for one pass over all). */
  summariesAt(positions: ArrayLike<number>, keep = true): EntrySummary[] {
    return this.store.summariesAt(positions, keep);
  }

  /** Marks the positions on the path from the root to `leafId` (1 = on it). */
  pathMask(leafId: string | null): Uint8Array {
    const mask = new Uint8Array(this.entryCount);
    let i = leafId === null ? -1 : this.store.indexOf(leafId);
    while (i >= 0 && i < this.entryCount && mask[i] === 0) {
      mask[i] = 1;
      i = this.store.parentIndexAt(i);
    }
    return mask;
  }

  /**
   * The number of entries in the subtree under each position (itself included), counted over
   * what is reachable from the roots. `skip` leaves some entries out of the counts (not their
   * subtrees), e.g. checkout markers that a view splices away.
   */
  subtreeSizes(skip?: (pos: number) => boolean): Int32Array {
    if (!skip && this.sizes) return this.sizes;
    const sizes = new Int32Array(this.entryCount);
    const order = this.preorder();
    for (let k = order.length - 1; k >= 0; k--) {
      const pos = order[k]!;
      let size = skip?.(pos) ? 0 : 1;
      const children = this.childrenOf(pos);
      for (let c = 0; c < children.length; c++) size += sizes[children[c]!]!;
      sizes[pos] = size;
    }
    if (!skip) this.sizes = sizes;
    return sizes;
  }

  /** Every position reachable from the roots, parents before children (each once, even in a malformed file). */
  preorder(): Int32Array {
    const seen = new Uint8Array(this.entryCount);
    const out = new Int32Array(this.entryCount);
    let n = 0;
    const stack: number[] = [];
    for (let r = this.shape.roots.length - 1; r >= 0; r--) stack.push(this.shape.roots[r]!);
    while (stack.length) {
      const pos = stack.pop()!;
      if (seen[pos]) continue;
      seen[pos] = 1;
      out[n++] = pos;
      const children = this.childrenOf(pos);
      for (let c = children.length - 1; c >= 0; c--) stack.push(children[c]!);
    }
    return out.subarray(0, n);
  }
}
