/**
 * The path walks a checkout and the context's use rely on (session/path-walk.ts), against what
 * they replace: the reference's branch-summary collection, and the whole path read entry by entry.
 */
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { navigateTree } from "../../src/core/agent/tree-navigation";
import { crossesThreshold, lastAssistantOf, latestCompaction, measureContextUsage } from "../../src/core/agent/auto-compaction";
import { DEFAULT_COMPACTION_SETTINGS } from "../../src/core/compaction/tokens";
import { SessionManager } from "../../src/core/session/session-manager";
import type { SessionEntry } from "../../src/core/session/types";
import { createRng, generateReferenceSession } from "../support/random-session";
import { loadReference, type PiReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";

const T = "2025-01-01T00:00:00.000Z";

/** The branch left when moving from `from` to `to`, as getPathIds defines it (the slow, plain way). */
function leftByPathIds(sm: SessionManager, from: string | null, to: string | null): { ids: string[]; commonAncestorId: string | null } {
  if (from === null || !sm.hasEntry(from)) return { ids: [], commonAncestorId: null };
  const oldPath = sm.getPathIds(from);
  const onOld = new Set(oldPath);
  const targetPath = to === null ? [] : sm.getPathIds(to);
  for (let i = targetPath.length - 1; i >= 0; i--) {
    if (onOld.has(targetPath[i]!)) return { ids: oldPath.slice(oldPath.indexOf(targetPath[i]!) + 1), commonAncestorId: targetPath[i]! };
  }
  return { ids: oldPath, commonAncestorId: null };
}

/** The whole path's part from its latest compaction on ([] without one), cut from getBranch(). */
function sinceCompactionOf(path: SessionEntry[]): SessionEntry[] {
  const compaction = latestCompaction(path);
  return compaction ? path.slice(path.lastIndexOf(compaction)) : [];
}

describe("path walks", () => {
  let pi: PiReference;
  let tmp: ReturnType<typeof makeTempDir>;
  before(async () => {
    pi = await loadReference();
  });
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("getBranchLeft gives the reference's branch-summary entries and common ancestor, on sessions the reference wrote", async () => {
    const rng = createRng(11);
    let nonEmpty = 0;
    let disjoint = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { manager, ids, file } = generateReferenceSession(pi, { seed, entries: 120, persistDir: join(tmp.dir, String(seed)) });
      const sm = await SessionManager.open(file!, { readOnly: true });
      for (let k = 0; k < 25; k++) {
        const oldLeaf = rng.chance(0.05) ? null : rng.pick(ids);
        const target = rng.pick(ids);
        const expected = pi.collectEntriesForBranchSummary(manager, oldLeaf, target);
        const left = sm.getBranchLeft(oldLeaf, target);
        assert.equal(left.commonAncestorId, expected.commonAncestorId, `seed ${seed} ${oldLeaf} → ${target}`);
        assert.deepStrictEqual(left.ids, expected.entries.map((e) => e.id), `seed ${seed} ${oldLeaf} → ${target}`);
        assert.deepStrictEqual(left.ids.map((id) => sm.getEntry(id)), JSON.parse(JSON.stringify(expected.entries)), `seed ${seed} ${oldLeaf} → ${target}`);
        if (left.ids.length > 0) nonEmpty++;
        if (oldLeaf !== null && left.commonAncestorId === null) disjoint++;
      }
      await sm.close();
    }
    assert.ok(nonEmpty > 500, `${nonEmpty} moves left entries behind`);
    assert.ok(disjoint > 0, `${disjoint} moves between paths that share nothing`);
  });

  it("getBranchLeft stops at a missing parent and at a parent cycle as getPathIds does, and takes null for before the root", async () => {
    const file = join(tmp.dir, "odd.jsonl");
    const line = (id: string, parentId: string | null) => JSON.stringify({ type: "message", id, parentId, timestamp: T, message: { role: "user", content: id, timestamp: 0 } });
    writeFileSync(
      file,
      [
        JSON.stringify({ type: "session", version: 3, id: "s", timestamp: T, cwd: tmp.dir }),
        line("a", null),
        line("b", "a"),
        line("c", "b"),
        line("d", "a"),
        line("x", "gone"), // its parent is not in the file
        line("y", "x"),
        line("p", "q"), // p and q are each other's parent
        line("q", "p"),
        line("r", "q"),
      ].join("\n") + "\n",
    );
    // Opened from the file, then again from the reopen index (the parent links come from it).
    const index = { dir: join(tmp.dir, "odd-index"), minBytes: 0 };
    for (const round of ["file", "index"]) {
      const sm = await SessionManager.open(file, { readOnly: true, index });
      if (round === "index") assert.equal(sm.getIndexUse(), "unchanged");
      const ids = ["a", "b", "c", "d", "x", "y", "p", "q", "r"];
      for (const from of [null, ...ids]) {
        for (const to of [null, ...ids]) assert.deepStrictEqual(sm.getBranchLeft(from, to), leftByPathIds(sm, from, to), `${round}: ${from} → ${to}`);
      }
      // A loop: each entry's path is the loop walked from it, whatever path was walked before.
      assert.deepStrictEqual(sm.getPathIds("r"), ["p", "q", "r"], round);
      assert.deepStrictEqual(sm.getPathIds("p"), ["q", "p"], round);
      assert.deepStrictEqual(sm.getPathIds("q"), ["p", "q"], round);
      assert.deepStrictEqual(sm.getBranchLeft("c", "d"), { ids: ["b", "c"], commonAncestorId: "a" });
      assert.deepStrictEqual(sm.getBranchLeft("y", "c"), { ids: ["x", "y"], commonAncestorId: null });
      assert.deepStrictEqual(sm.getBranchLeft("c", null), { ids: ["a", "b", "c"], commonAncestorId: null });
      assert.deepStrictEqual(sm.getBranchLeft("unknown", "c"), { ids: [], commonAncestorId: null });
      await sm.whenIndexSaved();
      await sm.close();
    }
  });

  it("getBranchSinceCompaction is the whole path's part from its latest compaction, and gives the same context use and threshold checks", async () => {
    let withCompaction = 0;
    let without = 0;
    for (let seed = 50; seed < 70; seed++) {
      const { ids, file } = generateReferenceSession(pi, { seed, entries: 150, persistDir: join(tmp.dir, String(seed)) });
      const sm = await SessionManager.open(file!, { readOnly: true });
      for (const id of ids) {
        sm.branch(id);
        const path = sm.getBranch();
        const part = sm.getBranchSinceCompaction();
        assert.deepStrictEqual(part, sinceCompactionOf(path), `seed ${seed}, leaf ${id}`);
        const messages = sm.buildSessionContext().messages;
        for (const window of [0, 1000, 200_000]) assert.deepStrictEqual(measureContextUsage(part, messages, window), measureContextUsage(path, messages, window));
        const lastAssistant = lastAssistantOf(messages);
        for (const contextWindow of lastAssistant ? [1000, 50_000, 200_000] : []) {
          const input = { lastAssistant: lastAssistant!, contextMessages: messages, contextWindow, settings: DEFAULT_COMPACTION_SETTINGS };
          assert.equal(crossesThreshold({ ...input, path: part }), crossesThreshold({ ...input, path }), `seed ${seed}, leaf ${id}, window ${contextWindow}`);
        }
        if (part.length > 0) withCompaction++;
        else without++;
      }
      sm.resetLeaf();
      assert.deepStrictEqual(sm.getBranchSinceCompaction(), []);
      await sm.close();
    }
    assert.ok(withCompaction > 200 && without > 200, `${withCompaction} leaves after a compaction, ${without} without`);
  });

  it("navigateTree hands session_before_tree the reference's entries to summarize, read when a handler looks", async () => {
    const rng = createRng(5);
    let looked = 0;
    for (let seed = 80; seed < 90; seed++) {
      const { manager, ids, file } = generateReferenceSession(pi, { seed, entries: 100, persistDir: join(tmp.dir, String(seed)) });
      const sm = await SessionManager.open(file!, { readOnly: true });
      for (let k = 0; k < 10; k++) {
        const oldLeaf = rng.pick(ids);
        const target = rng.pick(ids);
        sm.branch(oldLeaf);
        if (target === oldLeaf) continue;
        const expected = pi.collectEntriesForBranchSummary(manager, oldLeaf, target);
        let seen: unknown;
        await navigateTree(
          {
            sessionManager: sm,
            reserveTokens: 16384,
            signal: new AbortController().signal,
            emit: () => undefined,
            hooks: {
              beforeTree: async (event) => {
                const preparation = event.preparation;
                assert.equal(preparation.commonAncestorId, expected.commonAncestorId);
                // Read twice, it is one array; a copy of the event (JSON, spread) holds it too.
                assert.equal(preparation.entriesToSummarize, preparation.entriesToSummarize);
                seen = JSON.parse(JSON.stringify({ ...preparation }));
                // A handler may set the property like any other.
                preparation.entriesToSummarize = [];
                assert.deepStrictEqual(preparation.entriesToSummarize, []);
                looked++;
                return undefined;
              },
            },
          },
          target,
        );
        assert.deepStrictEqual((seen as { entriesToSummarize: unknown }).entriesToSummarize, JSON.parse(JSON.stringify(expected.entries)), `seed ${seed} ${oldLeaf} → ${target}`);
      }
      await sm.close();
    }
    assert.ok(looked > 50, `${looked} moves`);
  });
});
