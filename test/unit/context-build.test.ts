/**
 * Differential tests: context resolution and conversion agree with the reference package on
 * random session trees, for every entry as the leaf and for null / undefined / unknown leaves.
 */
import * as assert from "node:assert/strict";
import { buildSessionContext, type ContextSource, resolveContext } from "../../src/core/context/build-context";
import { convertToLlm } from "../../src/core/context/convert-to-llm";
import type { SessionEntry } from "../../src/core/session/types";
import { loadReference, type PiReference } from "../support/reference";
import { generateReferenceSession } from "../support/random-session";

const SEEDS = 200;

/** Entries as a file load would give them: JSON round-tripped (undefined-valued keys gone). */
function asLoaded(entries: readonly SessionEntry[]): SessionEntry[] {
  return entries.map((entry) => JSON.parse(JSON.stringify(entry)) as SessionEntry);
}

/**
 * A lazy index like the session store's: the skeleton is cheap, the content is kept as JSON
 * text and parsed on every `entry()` call, which is counted.
 */
function lazySource(entries: readonly SessionEntry[]): ContextSource & { parsed: string[] } {
  const skeleton = new Map<string, { parentId: string | null; type: string; role?: string; json: string }>();
  for (const entry of entries) {
    const role = entry.type === "message" ? entry.message.role : undefined;
    skeleton.set(entry.id, { parentId: entry.parentId, type: entry.type, role, json: JSON.stringify(entry) });
  }
  const parsed: string[] = [];
  return {
    parsed,
    parentOf: (id) => skeleton.get(id)?.parentId,
    typeOf: (id) => skeleton.get(id)?.type,
    roleOf: (id) => skeleton.get(id)?.role,
    entry: (id) => {
      const row = skeleton.get(id);
      if (!row) return undefined;
      parsed.push(id);
      return JSON.parse(row.json) as SessionEntry;
    },
    lastId: () => entries[entries.length - 1]?.id,
  };
}

describe("context resolution against the reference", () => {
  let pi: PiReference;
  before(async () => {
    pi = await loadReference();
  });

  it("buildSessionContext, resolveContext and convertToLlm match for every leaf of random trees", () => {
    let leavesChecked = 0;
    let nonEmpty = 0;
    let withCompaction = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 10 + (seed % 90), unknownRoles: true });
      const entries = asLoaded(manager.getEntries());
      const leaves: (string | null | undefined)[] = [...ids, null, undefined, "nope0000", ""];
      for (const leaf of leaves) {
        const expected = pi.buildSessionContext(entries, leaf);
        const label = `seed ${seed}, leaf ${String(leaf)}`;

        const ours = buildSessionContext(entries, leaf);
        assert.deepStrictEqual(ours, expected, label);
        assert.equal(JSON.stringify(ours), JSON.stringify(expected), `${label}: JSON bytes`);

        const source = lazySource(entries);
        const lazy = resolveContext(source, leaf);
        assert.deepStrictEqual(lazy, expected, `${label}: resolveContext`);

        const llm = convertToLlm(ours.messages);
        const expectedLlm = pi.convertToLlm(expected.messages);
        assert.deepStrictEqual(llm, expectedLlm, `${label}: convertToLlm`);
        assert.equal(JSON.stringify(llm), JSON.stringify(expectedLlm), `${label}: convertToLlm JSON bytes`);

        leavesChecked++;
        if (expected.messages.length > 0) nonEmpty++;
        if (expected.messages[0]?.role === "compactionSummary") withCompaction++;
      }
    }
    // The generator must actually exercise the interesting cases, or this test proves little.
    assert.ok(leavesChecked > SEEDS * 10, `checked ${leavesChecked} leaves`);
    assert.ok(nonEmpty > leavesChecked / 2, `${nonEmpty} non-empty contexts`);
    assert.ok(withCompaction > 100, `${withCompaction} compacted contexts`);
  });

  it("also matches when given the session manager's own index (byId)", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 60 });
      const entries = manager.getEntries();
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      for (const leaf of ids) {
        assert.deepStrictEqual(buildSessionContext(entries, leaf, byId), pi.buildSessionContext(entries, leaf, byId));
      }
      assert.deepStrictEqual(buildSessionContext(entries, manager.getLeafId(), byId), manager.buildSessionContext());
    }
  });

  it("resolveContext parses only the entries the result is made of", () => {
    let parsedTotal = 0;
    let pathTotal = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 80 });
      const entries = asLoaded(manager.getEntries());
      for (const leaf of ids) {
        const source = lazySource(entries);
        const context = resolveContext(source, leaf);
        const compacted = context.messages[0]?.role === "compactionSummary" ? 1 : 0;
        // Each message-bearing entry, plus at most the thinking and model deciders and the compaction.
        assert.ok(
          source.parsed.length <= context.messages.length + 2 + compacted + countEmptyBranchSummaries(entries, source.parsed),
          `seed ${seed} leaf ${leaf}: parsed ${source.parsed.length} for ${context.messages.length} messages`,
        );
        assert.equal(new Set(source.parsed).size, source.parsed.length, "no entry parsed twice");
        parsedTotal += source.parsed.length;
        pathTotal += manager.getBranch(leaf).length;
      }
    }
    assert.ok(parsedTotal < pathTotal, "parses fewer entries than the paths hold");
  });
});

function countEmptyBranchSummaries(entries: readonly SessionEntry[], ids: readonly string[]): number {
  const wanted = new Set(ids);
  return entries.filter((entry) => wanted.has(entry.id) && entry.type === "branch_summary" && !entry.summary).length;
}
