import type { SessionTreeIndex } from "../core/session/tree-index";

/** Which part of the tree a walk shows. */
export interface TreeView {
  /** Show entries at most this many branch levels deep (the root chain is level 0). */
  depth?: number;
  /** Only the path from the root to the leaf, with the other branches at its branch points folded. */
  leafPath?: boolean;
  /** Splice Arbor's checkout markers out, drawing their children in their place (the text view). */
  spliceMarkers?: boolean;
}

/** One line of a drawn tree. */
export interface TreeStep {
  /** The entry's position (see SessionTreeIndex). */
  pos: number;
  /** Indentation guides before the entry (`│  `, `├─ `, `└─ `). */
  indent: string;
  level: number;
  /**
   * A folded branch: the entry starts a branch that is not shown (`count` entries in it, the
   * entry included). For a cut at `depth`, `pos` is -1 and `count` covers all hidden branches.
   */
  folded?: { count: number; branches: number };
}

interface Frame {
  pos: number;
  prefix: string;
  guide: string;
  level: number;
  folded?: { count: number; branches: number };
}

/**
 * Walks the tree in drawing order (depth first, children oldest first), one step per line,
 * iteratively (a chain of a million entries needs no stack). A chain without branching stays
 * flat; at a branch point each child is indented under guides.
 */
export function* walkTree(tree: SessionTreeIndex, view: TreeView, activePath: Uint8Array): Generator<TreeStep> {
  const marker = (pos: number) => view.spliceMarkers === true && tree.isCheckoutMarker(pos);
  let sizes: Int32Array | undefined;
  const sizeOf = (pos: number) => (sizes ??= tree.subtreeSizes(view.spliceMarkers ? (p) => tree.isCheckoutMarker(p) : undefined))[pos]!;
  const seen = new Uint8Array(tree.entryCount);
  const stack: Frame[] = [];

  /** Children as drawn: checkout markers replaced by their own children, in order. */
  const childrenOf = (list: ArrayLike<number>): number[] => {
    const out: number[] = [];
    const pending: number[] = [];
    for (let k = list.length - 1; k >= 0; k--) pending.push(list[k]!);
    while (pending.length) {
      const pos = pending.pop()!;
      if (!marker(pos)) {
        out.push(pos);
        continue;
      }
      if (seen[pos]) continue;
      seen[pos] = 1;
      const inner = tree.childrenOf(pos);
      for (let k = inner.length - 1; k >= 0; k--) pending.push(inner[k]!);
    }
    return out;
  };

  const push = (list: ArrayLike<number>, prefix: string, level: number) => {
    const children = childrenOf(list);
    if (children.length === 0) return;
    if (children.length === 1) {
      const frame: Frame = { pos: children[0]!, prefix, guide: "", level };
      // Along --leaf-path, whatever leaves the path (past the leaf, or with no leaf) is folded.
      if (view.leafPath && !activePath[frame.pos]) frame.folded = { count: sizeOf(frame.pos), branches: 1 };
      stack.push(frame);
      return;
    }
    const next = level + 1;
    if (view.depth !== undefined && next > view.depth) {
      let count = 0;
      for (const c of children) count += sizeOf(c);
      stack.push({ pos: -1, prefix, guide: `${prefix}└─ `, level: next, folded: { count, branches: children.length } });
      return;
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const last = i === children.length - 1;
      const child = children[i]!;
      const frame: Frame = { pos: child, prefix: prefix + (last ? "   " : "│  "), guide: prefix + (last ? "└─ " : "├─ "), level: next };
      if (view.leafPath && !activePath[child]) frame.folded = { count: sizeOf(child), branches: 1 };
      stack.push(frame);
    }
  };

  push(tree.roots(), "", 0);
  while (stack.length) {
    const frame = stack.pop()!;
    const step: TreeStep = { pos: frame.pos, indent: frame.guide || frame.prefix, level: frame.level };
    if (frame.folded) {
      step.folded = frame.folded;
      yield step;
      continue;
    }
    if (seen[frame.pos]) continue; // a malformed file can loop; each entry is drawn once
    seen[frame.pos] = 1;
    yield step;
    push(tree.childrenOf(frame.pos), frame.prefix, frame.level);
  }
}
