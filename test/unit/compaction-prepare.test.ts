/**
 * prepareCompaction against the reference on random paths, and its re-compaction rules.
 */
import * as assert from "node:assert/strict";
import { prepareCompaction } from "../../src/core/compaction/prepare-compaction";
import type { SessionEntry } from "../../src/core/session/types";
import { loadReference, loadReferenceInternals, type PiInternals, type PiReference } from "../support/reference";
import { createRng, generateReferenceSession } from "../support/random-session";

const T = "2025-01-01T00:00:00.000Z";

function user(id: string, parentId: string | null, text: string): SessionEntry {
  return { type: "message", id, parentId, timestamp: T, message: { role: "user", content: text, timestamp: 0 } };
}

function editCall(id: string, parentId: string, path: string): SessionEntry {
  return {
    type: "message", id, parentId, timestamp: T,
    message: {
      role: "assistant", content: [{ type: "toolCall", id: `c-${id}`, name: "edit", arguments: { path } }], api: "x", provider: "p", model: "q",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse", timestamp: 0,
    },
  };
}

describe("prepareCompaction", () => {
  let pi: PiReference;
  let internals: PiInternals;
  before(async () => {
    pi = await loadReference();
    internals = await loadReferenceInternals();
  });

  it("matches the reference on random paths and settings", () => {
    const rng = createRng(11);
    let prepared = 0;
    let recompactions = 0;
    let splits = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 120 });
      for (let k = 0; k < 10; k++) {
        const path = manager.getBranch(rng.pick(ids));
        const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: rng.pick([0, 5, 50, 300, 2000, 20000]) };
        const ours = prepareCompaction(path, settings);
        const expected = internals.prepareCompaction(path, settings);
        assert.deepStrictEqual(ours, expected, `seed ${seed} keep ${settings.keepRecentTokens}`);
        if (!ours) continue;
        prepared++;
        if (ours.previousSummary !== undefined) recompactions++;
        if (ours.isSplitTurn) splits++;
      }
    }
    assert.ok(prepared > 500, `${prepared} prepared`);
    assert.ok(recompactions > 100, `${recompactions} re-compactions`);
    assert.ok(splits > 50, `${splits} split turns`);
  });

  it("returns undefined for a path ending in a compaction, and for an empty path", () => {
    const path = [user("a", null, "x"), { type: "compaction", id: "c", parentId: "a", timestamp: T, summary: "s", firstKeptEntryId: "a", tokensBefore: 1 } as SessionEntry];
    const settings = { enabled: true, reserveTokens: 1, keepRecentTokens: 1 };
    assert.equal(prepareCompaction(path, settings), undefined);
    assert.equal(prepareCompaction([], settings), undefined);
  });

  it("re-compacts from the previous compaction's kept entry, updating its summary and carrying its files", () => {
    const path: SessionEntry[] = [
      user("u1", null, "a".repeat(400)),
      editCall("e1", "u1", "old.ts"),
      user("u2", "e1", "b".repeat(400)),
      editCall("e2", "u2", "kept.ts"),
      { type: "compaction", id: "c", parentId: "e2", timestamp: T, summary: "before", firstKeptEntryId: "u2", tokensBefore: 1, details: { readFiles: ["r.md"], modifiedFiles: ["m.ts"] } },
      user("u3", "c", "c".repeat(400)),
      user("u4", "u3", "d".repeat(400)),
    ];
    const result = prepareCompaction(path, { enabled: true, reserveTokens: 1, keepRecentTokens: 100 });
    assert.ok(result);
    assert.equal(result.previousSummary, "before");
    assert.equal(result.firstKeptEntryId, "u4");
    // Summarized: from u2 (the old kept point) up to u4, never e1 or the compaction itself.
    assert.deepStrictEqual(result.messagesToSummarize.map((m) => m.role), ["user", "assistant", "user"]);
    assert.deepStrictEqual([...result.fileOps.read], ["r.md"]);
    assert.deepStrictEqual([...result.fileOps.edited].sort(), ["kept.ts", "m.ts"]);
    assert.deepStrictEqual(result, internals.prepareCompaction(path, { enabled: true, reserveTokens: 1, keepRecentTokens: 100 }));
  });

  it("starts after the previous compaction when its kept entry is not on the path, and ignores hook-made file lists", () => {
    const path: SessionEntry[] = [
      user("u1", null, "a".repeat(400)),
      { type: "compaction", id: "c", parentId: "u1", timestamp: T, summary: "s", firstKeptEntryId: "elsewhere", tokensBefore: 1, details: { readFiles: ["r.md"], modifiedFiles: [] }, fromHook: true },
      user("u2", "c", "b".repeat(400)),
      user("u3", "u2", "c".repeat(400)),
    ];
    const settings = { enabled: true, reserveTokens: 1, keepRecentTokens: 100 };
    const result = prepareCompaction(path, settings);
    assert.ok(result);
    assert.equal(result.firstKeptEntryId, "u3");
    assert.deepStrictEqual(result.messagesToSummarize.map((m) => (m.role === "user" ? m.content : m.role)), ["b".repeat(400)]);
    assert.equal(result.fileOps.read.size, 0);
    assert.deepStrictEqual(result, internals.prepareCompaction(path, settings));
  });
});
