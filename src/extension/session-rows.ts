/**
 * The rows of the Sessions view as a pure model (no `vscode`): nesting forks under their parents,
 * and merging a fresh listing into the rows already shown so that only the rows that changed are
 * redrawn. Redrawing every row on each change loses clicks: VS Code replaces each row and
 * re-registers its command, and a click that lands across that is dropped.
 */
import type { SessionInfo } from "../core/session/session-list";

/** One row of the Sessions view: a session, with the sessions forked from it nested below. */
export interface SessionNode {
  info: SessionInfo;
  forks: SessionNode[];
}

/** Nests each fork under its parent session when the parent is listed too; keeps newest-first order. */
export function nestForks(list: SessionInfo[]): SessionNode[] {
  const nodes = new Map(list.map((info) => [info.path, { info, forks: [] as SessionNode[] }]));
  const roots: SessionNode[] = [];
  for (const info of list) {
    const node = nodes.get(info.path)!;
    const parent = info.parentSessionPath ? nodes.get(info.parentSessionPath) : undefined;
    if (parent && parent !== node) parent.forks.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Whether two listings of one session draw the same row (every field the row shows or uses). */
export function sameRow(a: SessionInfo, b: SessionInfo): boolean {
  return (
    a.path === b.path &&
    a.name === b.name &&
    a.firstMessage === b.firstMessage &&
    a.messageCount === b.messageCount &&
    a.modified.getTime() === b.modified.getTime() &&
    a.created.getTime() === b.created.getTime() &&
    a.cwd === b.cwd &&
    a.parentSessionPath === b.parentSessionPath &&
    a.badLines === b.badLines &&
    a.labels.length === b.labels.length &&
    a.labels.every((label, i) => label === b.labels[i])
  );
}

/** The outcome of merging a new listing into the shown rows. */
export type RowsUpdate =
  /** Same rows in the same places: these nodes (the shown objects, updated) need a redraw. */
  | { readonly kind: "in-place"; readonly changed: readonly SessionNode[] }
  /** Rows were added, removed, moved or re-nested: the whole list must be drawn again. */
  | { readonly kind: "reshaped"; readonly roots: SessionNode[] };

function sameShape(a: readonly SessionNode[], b: readonly SessionNode[]): boolean {
  return a.length === b.length && a.every((node, i) => node.info.path === b[i].info.path && sameShape(node.forks, b[i].forks));
}

function walk(nodes: readonly SessionNode[], visit: (node: SessionNode) => void): void {
  for (const node of nodes) {
    visit(node);
    walk(node.forks, visit);
  }
}

/**
 * Merges `next` (a fresh listing, nested) into `shown` (the rows on screen). When both have the
 * same shape, the shown node objects are kept (VS Code knows rows by them) and get the new infos;
 * the ones whose row differs are returned. Otherwise the new roots are returned, reusing the shown
 * node objects by path so that each surviving row keeps its identity.
 */
export function mergeRows(shown: readonly SessionNode[], next: SessionNode[]): RowsUpdate {
  if (sameShape(shown, next)) {
    const changed: SessionNode[] = [];
    const fresh = new Map<string, SessionInfo>();
    walk(next, (node) => fresh.set(node.info.path, node.info));
    walk(shown, (node) => {
      const info = fresh.get(node.info.path)!;
      if (!sameRow(node.info, info)) changed.push(node);
      node.info = info;
    });
    return { kind: "in-place", changed };
  }
  const old = new Map<string, SessionNode>();
  walk(shown, (node) => old.set(node.info.path, node));
  const reuse = (nodes: SessionNode[]): SessionNode[] =>
    nodes.map((node) => {
      const kept = old.get(node.info.path);
      if (!kept) return { info: node.info, forks: reuse(node.forks) };
      kept.info = node.info;
      kept.forks = reuse(node.forks);
      return kept;
    });
  return { kind: "reshaped", roots: reuse(next) };
}

/** Every node of the rows whose session file is one of `paths`. */
export function nodesFor(roots: readonly SessionNode[], paths: ReadonlySet<string>): SessionNode[] {
  const found: SessionNode[] = [];
  walk(roots, (node) => paths.has(node.info.path) && found.push(node));
  return found;
}
