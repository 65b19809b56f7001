/**
 * Context resolution on malformed and unusual trees: cycles, orphans, compactions whose kept
 * entry is elsewhere, empty branch summaries, unknown types, broken sources.
 */
import * as assert from "node:assert/strict";
import {
  buildSessionContext,
  type ContextSource,
  contextSourceFromEntries,
  pathTo,
  resolveContext,
  resolveLeafId,
} from "../../src/core/context/build-context";
import type { AssistantMessage, SessionEntry, UserMessage } from "../../src/core/session/types";
import { loadReference, type PiReference } from "../support/reference";

const T = "2025-01-02T03:04:05.678Z";

function user(id: string, parentId: string | null, text = id): SessionEntry {
  const message: UserMessage = { role: "user", content: text, timestamp: 1 };
  return { type: "message", id, parentId, timestamp: T, message };
}

function assistant(id: string, parentId: string | null, provider = "p", model = "m"): SessionEntry {
  const message: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: id }],
    api: "a",
    provider,
    model,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: 2,
  };
  return { type: "message", id, parentId, timestamp: T, message };
}

function compaction(id: string, parentId: string | null, firstKeptEntryId: string): SessionEntry {
  return { type: "compaction", id, parentId, timestamp: T, summary: `sum-${id}`, firstKeptEntryId, tokensBefore: 100 };
}

function texts(entries: SessionEntry[], leaf?: string | null): string[] {
  return buildSessionContext(entries, leaf).messages.map((m) => {
    if (m.role === "user") return m.content as string;
    if (m.role === "assistant") return (m.content[0] as { text: string }).text;
    if (m.role === "compactionSummary" || m.role === "branchSummary") return `[${m.summary}]`;
    return m.role;
  });
}

describe("context resolution edge cases", () => {
  let pi: PiReference;
  before(async () => {
    pi = await loadReference();
  });

  it("stops at a parent cycle instead of looping (the reference would hang)", () => {
    const entries = [user("a", "b"), user("b", "a")];
    assert.deepStrictEqual(pathTo(contextSourceFromEntries(entries), "a"), ["b", "a"]);
    assert.deepStrictEqual(texts(entries, "a"), ["b", "a"]);
    assert.deepStrictEqual(texts(entries, "b"), ["a", "b"]);
  });

  it("stops at an entry that is its own parent", () => {
    const entries = [user("r", null), user("a", "a")];
    assert.deepStrictEqual(texts(entries, "a"), ["a"]);
  });

  it("stops at a longer cycle reached from a chain", () => {
    const entries = [user("x", "z"), user("y", "x"), user("z", "y"), user("leaf", "z")];
    assert.deepStrictEqual(pathTo(contextSourceFromEntries(entries), "leaf"), ["x", "y", "z", "leaf"]);
  });

  it("starts an orphan's path at the orphan, like the reference", () => {
    const entries = [user("r", null), user("a", "r"), user("o", "missing"), user("p", "o")];
    assert.deepStrictEqual(texts(entries, "p"), ["o", "p"]);
    assert.deepStrictEqual(buildSessionContext(entries, "p"), pi.buildSessionContext(entries, "p"));
  });

  it("keeps nothing from before a compaction whose kept entry is not on the path", () => {
    const entries = [user("r", null), user("a", "r"), user("side", "r"), compaction("c", "a", "side"), user("after", "c")];
    assert.deepStrictEqual(texts(entries, "after"), ["[sum-c]", "after"]);
    assert.deepStrictEqual(buildSessionContext(entries, "after"), pi.buildSessionContext(entries, "after"));
  });

  it("keeps nothing when the kept entry comes after the compaction, or is unknown", () => {
    const later = [user("r", null), compaction("c", "r", "after"), user("after", "c")];
    assert.deepStrictEqual(texts(later, "after"), ["[sum-c]", "after"]);
    const unknown = [user("r", null), compaction("c", "r", "ghost"), user("after", "c")];
    assert.deepStrictEqual(texts(unknown, "after"), ["[sum-c]", "after"]);
  });

  it("uses only the last compaction on the path, and its kept range may span an earlier one", () => {
    const entries = [
      user("r", null),
      user("a", "r"),
      compaction("c1", "a", "a"),
      user("b", "c1"),
      compaction("c2", "b", "a"),
      user("d", "c2"),
    ];
    assert.deepStrictEqual(texts(entries, "d"), ["[sum-c2]", "a", "b", "d"]);
    assert.deepStrictEqual(buildSessionContext(entries, "d"), pi.buildSessionContext(entries, "d"));
  });

  it("leaves out empty branch summaries but keeps non-empty ones", () => {
    const entries: SessionEntry[] = [
      user("r", null),
      { type: "branch_summary", id: "e", parentId: "r", timestamp: T, fromId: "r", summary: "" },
      { type: "branch_summary", id: "f", parentId: "e", timestamp: T, fromId: "root", summary: "went elsewhere" },
    ];
    assert.deepStrictEqual(texts(entries, "f"), ["r", "[went elsewhere]"]);
    assert.deepStrictEqual(buildSessionContext(entries, "f"), pi.buildSessionContext(entries, "f"));
  });

  it("takes the model from the last assistant message or model change, and the last thinking level", () => {
    const entries: SessionEntry[] = [
      { type: "thinking_level_change", id: "t1", parentId: null, timestamp: T, thinkingLevel: "high" },
      { type: "model_change", id: "m1", parentId: "t1", timestamp: T, provider: "x", modelId: "y" },
      assistant("a1", "m1", "openai", "gpt"),
      { type: "thinking_level_change", id: "t2", parentId: "a1", timestamp: T, thinkingLevel: "low" },
      { type: "model_change", id: "m2", parentId: "t2", timestamp: T, provider: "x2", modelId: "y2" },
    ];
    assert.deepStrictEqual(buildSessionContext(entries, "a1").model, { provider: "openai", modelId: "gpt" });
    assert.equal(buildSessionContext(entries, "a1").thinkingLevel, "high");
    assert.deepStrictEqual(buildSessionContext(entries, "m2").model, { provider: "x2", modelId: "y2" });
    assert.equal(buildSessionContext(entries, "m2").thinkingLevel, "low");
    for (const leaf of ["t1", "m1", "a1", "t2", "m2"]) {
      assert.deepStrictEqual(buildSessionContext(entries, leaf), pi.buildSessionContext(entries, leaf), leaf);
    }
  });

  it("passes over entry types it does not know without breaking", () => {
    const future = { type: "future_thing", id: "f", parentId: "r", timestamp: T, payload: 1 } as unknown as SessionEntry;
    const entries = [user("r", null), future, user("u", "f")];
    assert.deepStrictEqual(texts(entries, "u"), ["r", "u"]);
    assert.deepStrictEqual(buildSessionContext(entries, "u"), pi.buildSessionContext(entries, "u"));
  });

  it("skips a message entry without a message object (the reference throws)", () => {
    const broken = { type: "message", id: "b", parentId: "r", timestamp: T } as unknown as SessionEntry;
    const entries = [user("r", null), broken, user("u", "b")];
    assert.deepStrictEqual(texts(entries, "u"), ["r", "u"]);
    assert.throws(() => pi.buildSessionContext(entries, "u"));
  });

  it("resolves the leaf as the reference does: null → empty, undefined/empty/unknown → last entry", () => {
    const entries = [user("r", null), user("a", "r"), user("b", "r")];
    const source = contextSourceFromEntries(entries);
    assert.equal(resolveLeafId(source, null), undefined);
    assert.equal(resolveLeafId(source, undefined), "b");
    assert.equal(resolveLeafId(source, ""), "b");
    assert.equal(resolveLeafId(source, "zzz"), "b");
    assert.equal(resolveLeafId(source, "a"), "a");
    assert.deepStrictEqual(buildSessionContext(entries, null), { messages: [], thinkingLevel: "off", model: null });
    assert.deepStrictEqual(buildSessionContext([], undefined), { messages: [], thinkingLevel: "off", model: null });
    assert.deepStrictEqual(pathTo(source, "zzz"), []);
  });

  it("derives message timestamps from the entry timestamp in milliseconds", () => {
    const entries: SessionEntry[] = [
      { type: "custom_message", id: "c", parentId: null, timestamp: T, customType: "x", content: "hi", display: true },
    ];
    assert.equal(buildSessionContext(entries).messages[0].timestamp, Date.parse(T));
  });

  it("reports a source that lists an entry it cannot read, instead of dropping it silently", () => {
    const entries = [user("r", null), user("a", "r")];
    const inner = contextSourceFromEntries(entries);
    const broken: ContextSource = { ...inner, entry: (id) => (id === "r" ? undefined : inner.entry(id)) };
    assert.throws(() => resolveContext(broken, "a"), /entry r/);
  });

  it("walks a 100,000-entry chain without recursion and parses only what it needs", () => {
    const count = 100_000;
    const entries: SessionEntry[] = [];
    for (let i = 0; i < count; i++) {
      const parent = i === 0 ? null : `e${i - 1}`;
      entries.push(i === count - 2 ? compaction(`e${i}`, parent, `e${i - 3}`) : user(`e${i}`, parent));
    }
    const inner = contextSourceFromEntries(entries);
    let parsed = 0;
    const counting: ContextSource = { ...inner, entry: (id) => (parsed++, inner.entry(id)) };
    const context = resolveContext(counting, undefined);
    assert.deepStrictEqual(
      context.messages.map((m) => (m.role === "user" ? m.content : m.role)),
      ["compactionSummary", `e${count - 5}`, `e${count - 4}`, `e${count - 3}`, `e${count - 1}`],
    );
    assert.equal(parsed, 5);
  });
});
