import type { SummaryTreeNode } from "../core/session/session-tree";
import type { EntrySummary } from "../core/tree/types";
import { oneLine } from "./terminal-text";

/** One line per entry: every field from the file is escaped (see terminal-text.ts). */
function describe(s: EntrySummary): string {
  return oneLine(describeRaw(s));
}

function describeRaw(s: EntrySummary): string {
  if (s.type === "message") {
    const tool = s.toolName ? ` ${s.toolName}` : "";
    return `${s.role ?? "message"}${s.role === "toolResult" ? tool : ""}: ${s.preview}`;
  }
  if (s.type === "compaction") return `[compaction ${s.tokensBefore ?? "?"} tokens] ${s.preview}`;
  if (s.type === "branch_summary") return `[branch summary] ${s.preview}`;
  return `[${s.type}] ${s.preview}`;
}

/**
 * Draws the entry tree as text: a chain without branching stays flat, each branch point
 * indents its children with guides; `*` marks the active path and `<- leaf` the leaf.
 */
/** Arbor's checkout markers are bookkeeping: their children are drawn in their place. */
function spliceMarkers(children: SummaryTreeNode[]): SummaryTreeNode[] {
  const out: SummaryTreeNode[] = [];
  const stack = [...children].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (n.summary.checkoutMarker) stack.push(...[...n.children].reverse());
    else out.push(n);
  }
  return out;
}

export function renderTree(roots: SummaryTreeNode[], activePath: ReadonlySet<string>, leafId: string | null, labels: ReadonlyMap<string, string>): string {
  const out: string[] = [];
  type Frame = { node: SummaryTreeNode; prefix: string; guide: string };
  const stack: Frame[] = [];
  const pushChildren = (all: SummaryTreeNode[], prefix: string) => {
    const children = spliceMarkers(all);
    if (children.length === 1) {
      stack.push({ node: children[0]!, prefix, guide: "" });
      return;
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const last = i === children.length - 1;
      stack.push({ node: children[i]!, prefix: prefix + (last ? "   " : "│  "), guide: prefix + (last ? "└─ " : "├─ ") });
    }
  };
  pushChildren(roots, "");
  while (stack.length) {
    const { node, prefix, guide } = stack.pop()!;
    const mark = activePath.has(node.id) ? "*" : " ";
    const label = labels.get(node.id);
    const badge = label ? ` {${oneLine(label)}}` : "";
    const leaf = node.id === leafId ? "  <- leaf" : "";
    out.push(`${mark} ${guide || prefix}${describe(node.summary)}${badge}  [${oneLine(node.id)}]${leaf}`);
    pushChildren(node.children, prefix);
  }
  return out.join("\n");
}
