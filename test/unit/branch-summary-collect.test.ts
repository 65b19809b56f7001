/**
 * Branch-summary inputs against the reference: the entries of the branch being left, and the
 * messages and files prepared from them within a token budget.
 */
import * as assert from "node:assert/strict";
import {
  type BranchSummarySource,
  collectEntriesForBranchSummary,
  prepareBranchEntries,
} from "../../src/core/compaction/branch-summary";
import type { SessionEntry } from "../../src/core/session/types";
import { loadReference, type PiReference } from "../support/reference";
import { createRng, generateReferenceSession } from "../support/random-session";

const T = "2025-01-01T00:00:00.000Z";

function user(id: string, parentId: string | null, text = id): SessionEntry {
  return { type: "message", id, parentId, timestamp: T, message: { role: "user", content: text, timestamp: 0 } };
}

function sourceOf(entries: SessionEntry[]): BranchSummarySource {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return {
    getEntry: (id) => byId.get(id),
    getBranch: (id) => {
      const path: SessionEntry[] = [];
      const seen = new Set<string>();
      for (let entry = byId.get(id); entry && !seen.has(entry.id); entry = entry.parentId ? byId.get(entry.parentId) : undefined) {
        seen.add(entry.id);
        path.push(entry);
      }
      return path.reverse();
    },
  };
}

describe("branch summary inputs", () => {
  let pi: PiReference;
  before(async () => {
    pi = await loadReference();
  });

  it("collectEntriesForBranchSummary and prepareBranchEntries match the reference on random moves", () => {
    const rng = createRng(3);
    let collected = 0;
    let budgetCut = 0;
    let withFiles = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 100 });
      for (let k = 0; k < 15; k++) {
        const oldLeaf = rng.chance(0.05) ? null : rng.pick(ids);
        const target = rng.pick(ids);
        const ours = collectEntriesForBranchSummary(manager, oldLeaf, target);
        const expected = pi.collectEntriesForBranchSummary(manager, oldLeaf, target);
        assert.deepStrictEqual(ours, expected, `seed ${seed} ${oldLeaf} → ${target}`);
        if (ours.entries.length > 0) collected++;
        for (const budget of [0, 20, 300, 3000, 100000]) {
          const prepared = prepareBranchEntries(ours.entries, budget);
          assert.deepStrictEqual(prepared, pi.prepareBranchEntries(expected.entries, budget), `seed ${seed} budget ${budget}`);
          if (budget > 0 && prepared.totalTokens > 0 && prepared.messages.length < ours.entries.length / 2) budgetCut++;
          if (prepared.fileOps.edited.size > 0) withFiles++;
        }
      }
    }
    assert.ok(collected > 1000, `${collected} non-empty collections`);
    assert.ok(budgetCut > 100, `${budgetCut} budget cuts`);
    assert.ok(withFiles > 100, `${withFiles} with files`);
  });

  it("collects nothing without an old leaf, and the whole old path when the paths share no entry", () => {
    const entries = [user("a", null), user("b", "a"), user("x", null), user("y", "x")];
    const source = sourceOf(entries);
    assert.deepStrictEqual(collectEntriesForBranchSummary(source, null, "b"), { entries: [], commonAncestorId: null });
    const disjoint = collectEntriesForBranchSummary(source, "b", "y");
    assert.deepStrictEqual(disjoint.entries.map((e) => e.id), ["a", "b"]);
    assert.equal(disjoint.commonAncestorId, null);
    const sibling = collectEntriesForBranchSummary(source, "b", "a");
    assert.deepStrictEqual(sibling, { entries: [entries[1]], commonAncestorId: "a" });
  });

  it("stops at a parent cycle instead of looping", () => {
    const entries = [user("a", "b"), user("b", "a"), user("t", null)];
    const result = collectEntriesForBranchSummary(sourceOf(entries), "a", "t");
    assert.deepStrictEqual(result.entries.map((e) => e.id), ["b", "a"]);
  });

  it("keeps an empty branch summary as a message and leaves tool results out", () => {
    const entries: SessionEntry[] = [
      user("u", null),
      { type: "message", id: "r", parentId: "u", timestamp: T, message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "out" }], isError: false, timestamp: 0 } },
      { type: "branch_summary", id: "s", parentId: "r", timestamp: T, fromId: "u", summary: "", details: { readFiles: ["a.md"], modifiedFiles: ["b.ts"] } },
      { type: "branch_summary", id: "h", parentId: "s", timestamp: T, fromId: "u", summary: "hook", details: { readFiles: ["hook.md"], modifiedFiles: [] }, fromHook: true },
    ];
    const prepared = prepareBranchEntries(entries);
    assert.deepStrictEqual(prepared.messages.map((m) => m.role), ["user", "branchSummary", "branchSummary"]);
    assert.deepStrictEqual([...prepared.fileOps.read], ["a.md"]);
    assert.deepStrictEqual([...prepared.fileOps.edited], ["b.ts"]);
    assert.deepStrictEqual(prepared, pi.prepareBranchEntries(entries));
  });

  it("fits a summary entry over budget while under 90% of it is used, then stops", () => {
    const entries: SessionEntry[] = [
      user("old", null, "o".repeat(40)),
      { type: "compaction", id: "c", parentId: "old", timestamp: T, summary: "s".repeat(400), firstKeptEntryId: "old", tokensBefore: 5 },
      user("new", "c", "n".repeat(40)),
    ];
    const prepared = prepareBranchEntries(entries, 50);
    assert.deepStrictEqual(prepared.messages.map((m) => m.role), ["compactionSummary", "user"]);
    assert.equal(prepared.totalTokens, 110);
    assert.deepStrictEqual(prepared, pi.prepareBranchEntries(entries, 50));
  });
});
