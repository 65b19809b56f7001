import type { SessionManager } from "../core/session/session-manager";
import type { SessionTreeIndex } from "../core/session/tree-index";
import type { EntrySummary } from "../core/tree/types";
import { describeRaw } from "./render-tree";
import { oneLine } from "./terminal-text";
import { TreeTextCache, TreeTextWriter } from "./tree-text-cache";
import { walkTree, type TreeStep, type TreeView } from "./tree-walk";

/** Where a command writes; `drain` resolves when the consumer has taken what was written. */
export interface StreamOutput {
  stdout(text: string): void;
  /** Text already escaped field by field (see Output.stdoutEscaped). */
  stdoutEscaped?(text: string): void;
  stderr(text: string): void;
  drain?(): Promise<void>;
  /** The reader went away (`arbor tree FILE | head`): nothing more is read or written. */
  closed?(): boolean;
}

export interface TreeCommandOptions extends TreeView {
  format: "text" | "json" | "ndjson";
  /** Stop after this many entries. */
  limit?: number;
  /** JSON forms: add each entry's summary (preview and details), which reads every entry's body. */
  preview?: boolean;
}

/** Lines are drawn in batches: their summaries are read together, and written as one chunk. */
const BATCH = 2048;
/**
 * Indentation is bounded: a long session nests hundreds of branch levels, and drawing every guide
 * would make most of each line guides. Past this many levels, the outer ones are shown as a count.
 */
const MAX_GUIDE_LEVELS = 16;

/** The guides of an entry, the outer levels folded into a count when there are too many. */
function boundedIndent(indent: string): string {
  const levels = indent.length / 3;
  if (levels <= MAX_GUIDE_LEVELS) return indent;
  const hidden = levels - MAX_GUIDE_LEVELS + 1;
  return `‹${hidden}›${" ".repeat(Math.max(1, 3 - String(hidden).length))}${indent.slice(indent.length - 3 * (MAX_GUIDE_LEVELS - 1))}`;
}

/**
 * `arbor tree`: the tree drawn as text, or written flat as JSON or NDJSON (one object per entry
 * with its parent and children ids), streamed in batches. Memory stays bounded by the index: no
 * object per node, no nesting, and summaries only for the batch being written.
 */
export async function writeTree(sm: SessionManager, file: string, opts: TreeCommandOptions, out: StreamOutput): Promise<void> {
  const tree = sm.getTreeIndex();
  const leafId = sm.getLeafId();
  const active = tree.pathMask(leafId);
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const json = opts.format !== "text";
  const steps = walkTree(tree, { depth: opts.depth, leafPath: opts.leafPath, spliceMarkers: !json }, active);
  const head = {
    file,
    sessionId: sm.getSessionId(),
    leafId,
    name: sm.getSessionName() ?? null,
    entryCount: sm.getEntryCount(),
    problems: sm.getProblems(),
  };
  if (opts.format === "json") out.stdout(`${JSON.stringify(head).slice(0, -1)},"entries":[`);
  else if (opts.format === "ndjson") out.stdout(`${JSON.stringify({ type: "session", ...head })}\n`);
  else if (head.name) out.stdout(`# ${oneLine(head.name)}\n`);
  let written = 0;
  let stopped = false;
  const batch: TreeStep[] = [];
  const { cache, writer } = json ? {} : await openTextCache(sm, opts);
  const flush = async () => {
    if (!batch.length) return;
    const positions = batch.filter((s) => s.pos >= 0 && (!json || opts.preview)).map((s) => s.pos);
    // What the text tree says of an entry comes from the cache when it has it, else from the
    // entry's summary, read from its body.
    const described = cache?.read(positions) ?? new Map<number, string>();
    const missing = json ? positions : positions.filter((p) => !described.has(p));
    const summaries = new Map<number, EntrySummary>();
    // One pass over the session: summaries are used once and not cached.
    const made = tree.summariesAt(missing, false);
    missing.forEach((p, k) => summaries.set(p, made[k]!));
    if (!json) {
      for (const [p, s] of summaries) described.set(p, describeRaw(s));
      await writer?.add(positions.map((p) => [p, described.get(p)!]));
    }
    const lines: string[] = [];
    for (const step of batch) {
      if (json) lines.push(flatEntry(tree, step, active, leafId, summaries.get(step.pos)));
      else lines.push(textLine(tree, step, active, leafId, described.get(step.pos), opts.depth));
    }
    const sep = opts.format === "json" ? ",\n" : "\n";
    const lead = opts.format === "json" ? (written === batch.length ? "\n" : ",\n") : "";
    // Text lines are built from fields escaped one by one (oneLine) and need no second pass.
    const write = json ? out.stdout : (out.stdoutEscaped ?? out.stdout);
    write.call(out, lead + lines.join(sep) + (opts.format === "json" ? "" : "\n"));
    batch.length = 0;
    await out.drain?.();
  };
  try {
    for (const step of steps) {
      if (written >= limit) {
        stopped = true;
        break;
      }
      if (out.closed?.()) return;
      // The JSON forms list entries; folds are a drawing device.
      if (json && step.folded && step.pos < 0) continue;
      batch.push(step);
      written++;
      if (batch.length === BATCH) await flush();
    }
    await flush();
    // The cache read is closed before the new one is renamed over it (some systems refuse otherwise).
    cache?.close();
    // Saved only when the whole tree was drawn (a partial one would replace a complete cache), and
    // after the session's index (a cache is only trusted, and kept, beside its index).
    if (writer && !stopped && !out.closed?.()) {
      await sm.whenIndexSaved();
      await writer.save();
    }
  } finally {
    await writer?.abandon();
    cache?.close();
  }
  if (opts.format === "json") out.stdout(`\n]${stopped ? `,"limited":${limit}` : ""}}\n`);
  else if (opts.format === "text" && stopped) out.stdout(`… stopped after ${limit} entries (--limit)\n`);
  if (opts.format === "text") for (const p of sm.getProblems()) out.stderr(`warning: ${oneLine(p.message)}\n`);
}

/**
 * The tree-text cache of the session (see tree-text-cache.ts), and a writer for a new one when a
 * whole tree is drawn (no --depth, --leaf-path or --limit) and the cache does not cover every entry.
 * Only sessions large enough for a reopen index get one.
 */
async function openTextCache(sm: SessionManager, opts: TreeCommandOptions): Promise<{ cache?: TreeTextCache; writer?: TreeTextWriter }> {
  const basis = sm.getCacheBasis();
  if (!basis || basis.bytes < basis.minBytes) return {};
  const cache = TreeTextCache.open(basis);
  const whole = opts.depth === undefined && !opts.leafPath && opts.limit === undefined;
  const count = sm.getEntryCount();
  const writer = whole && (cache?.count ?? 0) < count ? await TreeTextWriter.create(basis, count) : undefined;
  return { cache, writer };
}

function textLine(tree: SessionTreeIndex, step: TreeStep, active: Uint8Array, leafId: string | null, description: string | undefined, depth: number | undefined): string {
  if (step.pos < 0) {
    const { count, branches } = step.folded!;
    return `  ${boundedIndent(step.indent)}… ${count} ${count === 1 ? "entry" : "entries"} in ${branches} branches below (--depth ${depth})`;
  }
  const id = tree.idAt(step.pos);
  const mark = active[step.pos] ? "*" : " ";
  const label = tree.labelAt(step.pos);
  const badge = label ? ` {${oneLine(label)}}` : "";
  const leaf = id === leafId ? "  <- leaf" : "";
  const more = step.folded && step.folded.count > 1 ? `  (+${step.folded.count - 1} more in this branch)` : "";
  return `${mark} ${boundedIndent(step.indent)}${oneLine(description!)}${badge}  [${oneLine(id)}]${leaf}${more}`;
}

function flatEntry(tree: SessionTreeIndex, step: TreeStep, active: Uint8Array, leafId: string | null, summary: EntrySummary | undefined): string {
  const pos = step.pos;
  const id = tree.idAt(pos);
  const children = Array.from(tree.childrenOf(pos), (c) => tree.idAt(c));
  const o: Record<string, unknown> = { id, parentId: tree.parentIdAt(pos), children, type: tree.typeAt(pos) };
  const role = tree.roleAt(pos);
  if (role !== undefined) o.role = role;
  o.timestamp = tree.timestampAt(pos);
  o.line = tree.lineAt(pos);
  const label = tree.labelAt(pos);
  if (label !== undefined) o.label = label;
  if (active[pos]) o.active = true;
  if (id === leafId) o.leaf = true;
  // Under --leaf-path, an entry that starts a branch off the path stands for the whole branch.
  if (step.folded) o.folded = step.folded.count;
  if (summary) o.summary = summary;
  return JSON.stringify(o);
}
