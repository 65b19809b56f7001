/**
 * Entry-summary fixtures for the tree tests and the webview benchmark: a terse builder for
 * hand-made trees and a deterministic generator of agent-shaped sessions of any size.
 */
import type { EntrySummary } from "../../src/core/tree/types";

let clock = Date.UTC(2025, 0, 1);

/**
 * A hand-made entry: `entry("b", "a", { role: "user" })`. Timestamps increase one second per call
 * unless given; the type defaults to a message.
 */
export function entry(id: string, parentId: string | null, fields: Partial<EntrySummary> = {}): EntrySummary {
  clock += 1000;
  const type = fields.type ?? "message";
  return {
    id,
    parentId,
    type,
    timestamp: new Date(clock).toISOString(),
    line: 0,
    preview: `${id} text`,
    ...(type === "message" && fields.role === undefined ? { role: "user" } : {}),
    ...fields,
  };
}

/** A linear chain a → b → c ... of alternating user and assistant messages. */
export function chain(ids: readonly string[], parentId: string | null = null): EntrySummary[] {
  return ids.map((id, i) => entry(id, i === 0 ? parentId : ids[i - 1], { role: i % 2 === 0 ? "user" : "assistant" }));
}

export interface TreeFixture {
  sessionId: string;
  name: string;
  entries: EntrySummary[];
  labels: { targetId: string; label: string }[];
  leafId: string | null;
}

/** A small deterministic generator (mulberry32): numbers in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = "refactor the parser so that torn lines are kept and reported, then add tests for labels branches compaction checkout fork summary webview tree model tokens cache index search filter session file append leaf path".split(" ");

/**
 * A session shaped like real agent work: turns of user message, tool-calling assistant turns with
 * tool results and a text answer; now and then a checkout to an earlier user message (a new
 * branch, sometimes with a branch summary or an Arbor checkout marker), compactions, labels, model
 * and thinking changes, custom entries and an unknown entry type. Deterministic for a seed.
 */
export function generateTreeFixture(count: number, seed = 1): TreeFixture {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const words = (n: number): string => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const entries: EntrySummary[] = [];
  const labels = new Map<string, string>();
  const path: { id: string; drawable: boolean }[] = [];
  /** Positions in `path` of its user messages, oldest first (kept as the path grows and is cut back). */
  const userAt: number[] = [];
  let time = Date.UTC(2025, 0, 1);
  let serial = 0;
  const add = (fields: Partial<EntrySummary> & { type: string; preview: string }, drawable = true): EntrySummary => {
    serial++;
    time += 1000 + Math.floor(random() * 20_000);
    const id = (Math.imul(serial, 2654435761) >>> 0).toString(16).padStart(8, "0");
    const parentId = path.length ? path[path.length - 1].id : null;
    const entry: EntrySummary = { id, parentId, timestamp: new Date(time).toISOString(), line: entries.length + 2, ...fields };
    entries.push(entry);
    if (fields.role === "user") userAt.push(path.length);
    path.push({ id, drawable });
    return entry;
  };
  add({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5", preview: "anthropic/claude-sonnet-4-5" });
  add({ type: "thinking_level_change", thinkingLevel: "medium", preview: "thinking: medium" });
  while (entries.length < count) {
    const r = random();
    if (r < 0.03 && path.length > 20 && userAt.length > 1) {
      // Back to one of the last fifty prompts, as someone retrying a step does.
      const at = pick(userAt.slice(-50).filter((i) => i > 0));
      path.length = at;
      while (userAt.length > 0 && userAt[userAt.length - 1] >= at) userAt.pop();
      const from = path[path.length - 1].id;
      if (random() < 0.5) add({ type: "custom", customType: "arbor.checkout", checkoutMarker: true, preview: "arbor.checkout" }, false);
      if (random() < 0.4) add({ type: "branch_summary", fromId: from, preview: `Tried ${words(8)}` });
    } else if (r < 0.04 && path.length > 40) {
      const drawable = path.slice(-200).filter((p) => p.drawable);
      const kept = drawable[Math.max(0, drawable.length - 10 - Math.floor(random() * 20))];
      add({ type: "compaction", tokensBefore: 50_000 + Math.floor(random() * 100_000), firstKeptEntryId: kept.id, preview: `Goal: ${words(12)}` });
    } else if (r < 0.05 && path.length > 5) {
      const target = pick(path.slice(-500).filter((p) => p.drawable));
      const label = `${pick(["checkpoint", "good", "before-refactor", "try-2", "green"])}-${serial}`;
      labels.set(target.id, label);
      add({ type: "label", targetId: target.id, label, preview: `label "${label}"` });
    } else if (r < 0.053) {
      add({ type: "model_change", provider: "openai", modelId: pick(["gpt-5", "gpt-5-mini"]), preview: "openai/gpt-5" });
    } else if (r < 0.056) {
      add({ type: "custom", customType: "todo-state", preview: "todo-state" });
    } else if (r < 0.0565) {
      add({ type: "future_entry_kind", preview: 'unknown entry type "future_entry_kind"' });
    } else {
      add({ type: "message", role: "user", preview: words(6 + Math.floor(random() * 20)) });
      const tools = Math.floor(random() * 3);
      for (let t = 0; t < tools; t++) {
        const tool = pick(["read", "bash", "edit", "grep"]);
        add({ type: "message", role: "assistant", toolName: tool, textless: true, preview: `→ ${tool}` });
        add({ type: "message", role: "toolResult", toolName: tool, isError: random() < 0.05, preview: words(10) });
      }
      add({ type: "message", role: "assistant", preview: words(10 + Math.floor(random() * 30)) });
    }
  }
  entries.length = count;
  const ids = new Set(entries.map((e) => e.id));
  let leaf: { id: string } | undefined;
  for (let i = path.length - 1; i >= 0 && !leaf; i--) if (ids.has(path[i].id)) leaf = path[i];
  return {
    sessionId: `fixture-${seed}-${count}`,
    name: `Generated session (${count.toLocaleString("en-US")} entries)`,
    entries,
    labels: [...labels].filter(([id]) => ids.has(id)).map(([targetId, label]) => ({ targetId, label })),
    leafId: leaf ? leaf.id : null,
  };
}

/** The `state` message the host would send for a fixture. */
export function stateMessageOf(fixture: TreeFixture): unknown {
  return {
    type: "state",
    session: { sessionId: fixture.sessionId, name: fixture.name, entries: fixture.entries, labels: fixture.labels, leafId: fixture.leafId },
    readOnly: null,
  };
}

/**
 * A deeply branched session: a ladder where every rung is a branch point one level deeper than the
 * last (a retry inside a retry inside a retry...), each side branch a short exchange with long
 * texts. The worst case for indentation: row depth grows with the session.
 */
export function generateLadderFixture(rungs: number): TreeFixture {
  const long = "Refactor the session parser so that torn last lines are kept, reported with their line number, and never corrupt the next append";
  const entries: EntrySummary[] = [];
  const time = (k: number) => new Date(Date.UTC(2025, 0, 1) + k * 1000).toISOString();
  let serial = 0;
  const add = (parentId: string | null, role: string, preview: string): string => {
    const id = `l${(serial++).toString(16).padStart(7, "0")}`;
    entries.push({ id, parentId, type: "message", role, timestamp: time(serial), line: serial + 1, preview });
    return id;
  };
  let parent = add(null, "user", long);
  for (let k = 0; k < rungs; k++) {
    const side = add(parent, "assistant", `Attempt ${k}: ${long}`);
    add(side, "user", `That broke the Windows line endings (${k}); try again`);
    parent = add(parent, "assistant", `Retry ${k}: ${long}`);
  }
  return { sessionId: `ladder-${rungs}`, name: `Ladder, ${rungs} branch points deep`, entries, labels: [], leafId: parent };
}
