import { resolveEntryNode, type TreeNode, type TreeProjection } from "./projection";

/** The root-to-leaf path the session's context is built from. */
export interface ActivePath {
  /** The id the host named as leaf (may be a checkout marker), or null for "before any entry". */
  readonly leafId: string | null;
  /** The drawn node standing for the leaf (a marker resolves to the entry it was spliced into). */
  readonly leaf: TreeNode | null;
  /** Ids of every node on the path. */
  readonly ids: ReadonlySet<string>;
}

/**
 * Computes the path from scratch. An unknown leaf id yields an empty path: the host names the
 * leaf, and guessing one (the reference falls back to the last entry) would highlight a lie.
 */
export function computeActivePath(p: TreeProjection, leafId: string | null): ActivePath {
  const leaf = leafId === null ? null : (resolveEntryNode(p, leafId) ?? null);
  const ids = new Set<string>();
  for (let n = leaf; n; n = n.parent) ids.add(n.summary.id);
  return { leafId, leaf, ids };
}

/**
 * Moves the leaf, touching only the nodes between the old and new leaf and their common ancestor,
 * so a checkout costs the length of the detour rather than the depth of the tree. Takes ownership
 * of `prev`: its id set is reused, so `prev` must not be read afterwards.
 */
export function moveActivePath(prev: ActivePath, p: TreeProjection, leafId: string | null): ActivePath {
  const ids = prev.ids as Set<string>;
  const leaf = leafId === null ? null : (resolveEntryNode(p, leafId) ?? null);
  const entering: TreeNode[] = [];
  let common = leaf;
  while (common && !ids.has(common.summary.id)) {
    entering.push(common);
    common = common.parent;
  }
  for (let n = prev.leaf; n && n !== common; n = n.parent) ids.delete(n.summary.id);
  for (const n of entering) ids.add(n.summary.id);
  return { leafId, leaf, ids };
}
