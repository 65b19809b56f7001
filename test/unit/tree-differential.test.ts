/**
 * The host's typed-array tree (TreeIndex + TreeRows inside TreeModel) against the oracle, the
 * object-per-entry projection and layout it replaced (src/core/tree/projection.ts and layout.ts,
 * which the exported page still draws with): on generated sessions and random trees, under every
 * filter, searches and folds, through appends.
 */
import * as assert from "node:assert/strict";
import { FILTER_MODES, type FilterMode } from "../../src/core/tree/filters";
import { parseSearchQuery } from "../../src/core/tree/search";
import { TreeModel } from "../../src/core/tree/tree-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { firstChildIndex, isFoldable, layoutTree, visualParentIndex, type TreeLayout } from "../../src/core/tree/layout";
import { projectTree } from "../../src/core/tree/projection";
import { entry, generateTreeFixture, rng } from "../support/webview-harness.fixtures";

/** Every fact a row carries, one string per row. */
function modelRows(model: TreeModel): string[] {
  const rows = model.rows;
  const out: string[] = [];
  for (let r = 0; r < rows.count; r++) {
    const i = rows.nodeAt(r);
    const lanes = rows.lanes(i, 10_000).columns;
    out.push([
      model.idAt(r),
      rows.level(i),
      lanes,
      rows.isSegmentStart(i) ? "s" : "-",
      `${rows.posInSet(i)}/${rows.setSize(i)}`,
      rows.isBranchPoint(i) ? `${rows.drawnChildCount(i)}${rows.isFolded(i) ? "+" : "-"}` : "0",
      model.index.isOrphan(i) ? "o" : "",
      rows.visualParentRow(r),
      rows.firstChildRow(r),
    ].join(" "));
  }
  return out;
}

function oracleRows(layout: TreeLayout): string[] {
  return layout.rows.map((row, r) => {
    let lanes = "";
    for (let k = 0; k < row.level - 1; k++) {
      const own = k === row.level - 2;
      lanes += own && row.segmentStart ? (row.guides[k] ? "t" : "e") : row.guides[k] ? "l" : "b";
    }
    return [
      row.node.summary.id,
      row.level,
      lanes,
      row.segmentStart ? "s" : "-",
      `${row.posInSet}/${row.siblings.size}`,
      isFoldable(row) ? `${row.childCount}${row.folded ? "+" : "-"}` : "0",
      row.node.orphan ? "o" : "",
      visualParentIndex(layout, r),
      firstChildIndex(layout, r),
    ].join(" ");
  });
}


const KINDS: Partial<EntrySummary>[] = [
  { role: "user" },
  { role: "assistant" },
  { role: "assistant", textless: true, toolName: "read" },
  { role: "toolResult", toolName: "read" },
  { type: "model_change", provider: "p", modelId: "m" },
  { type: "custom", customType: "state" },
  { type: "custom", customType: "arbor.checkout", checkoutMarker: true },
  { type: "branch_summary", fromId: "x" },
  { type: "compaction", tokensBefore: 5, firstKeptEntryId: "x" },
  { type: "future_kind" },
];

/** A random tree: branches anywhere, orphans, markers, duplicates, parents after children, tied and bad timestamps. */
function randomEntries(seed: number, count: number): EntrySummary[] {
  const random = rng(seed);
  const made: EntrySummary[] = [];
  for (let i = 0; i < count; i++) {
    const r = random();
    let parentId: string | null;
    if (i === 0 || r < 0.04) parentId = null;
    else if (r < 0.07) parentId = `gone${i % 5}`;
    else if (r < 0.4) parentId = made[Math.floor(random() * i)].id;
    else parentId = made[i - 1].id;
    const dup = random() < 0.02 && i > 3;
    const id = dup ? made[Math.floor(random() * i)].id : `n${i}`;
    const kind = KINDS[Math.floor(random() * KINDS.length)];
    const time = random() < 0.05 ? "bad" : new Date(Date.UTC(2025, 0, 1) + Math.floor(random() * 50) * 1000).toISOString();
    made.push(entry(id, parentId === id ? null : parentId, { ...kind, timestamp: time, preview: `${["alpha", "beta", "gamma"][i % 3]} ${i}` }));
  }
  for (let i = 1; i < made.length; i++) if (random() < 0.05) [made[i - 1], made[i]] = [made[i], made[i - 1]];
  return made;
}

function labelsOf(entries: readonly EntrySummary[]): Map<string, string> {
  const labels = new Map<string, string>();
  entries.forEach((e, i) => {
    if (i % 11 === 0) labels.set(e.id, `lab${i}`);
  });
  return labels;
}

function compare(entries: EntrySummary[], filter: FilterMode, query: string, folded: string[], labels: Map<string, string>, what: string): void {
  const model = TreeModel.create(filter);
  model.load({ sessionId: "s", name: null, entries: [...entries], labels: [...labels].map(([targetId, label]) => ({ targetId, label })), leafId: null }, folded);
  model.setQuery(query);
  const oracle = layoutTree(projectTree(entries), { filter, searchTokens: parseSearchQuery(query), folded: new Set(folded), labels });
  assert.deepEqual(modelRows(model), oracleRows(oracle), what);
}

/** The id of the model's leaf node (a marker leaf resolved), as the oracle takes it. */
function leafNodeId(model: TreeModel): string | null {
  const leaf = model.leafId === null ? undefined : model.index.resolve(model.leafId);
  return leaf === undefined || leaf < 0 ? null : model.index.idAt(leaf);
}

describe("tree model against the oracle", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`lays out random tree ${seed} as the oracle does, under every filter, a search and folds`, () => {
      const entries = randomEntries(seed, 300);
      const labels = labelsOf(entries);
      const random = rng(seed * 7);
      const folded = entries.filter(() => random() < 0.15).map((e) => e.id);
      for (const filter of FILTER_MODES) {
        compare(entries, filter, "", [], labels, `${filter}`);
        compare(entries, filter, "alpha", [], labels, `${filter}, search`);
        compare(entries, filter, "", folded, labels, `${filter}, folded`);
      }
    });
  }

  it("lays out a generated agent session as the oracle does", () => {
    const fixture = generateTreeFixture(5000, 3);
    const labels = new Map(fixture.labels.map((l) => [l.targetId, l.label]));
    for (const filter of FILTER_MODES) compare(fixture.entries, filter, "", [], labels, filter);
    compare(fixture.entries, "default", "tree parser", [], labels, "search");
  });

  for (const seed of [11, 12, 13]) {
    it(`stays equal to the oracle through appends of random tree ${seed}`, () => {
      const entries = randomEntries(seed, 250);
      for (const filter of FILTER_MODES) {
        const model = TreeModel.create(filter);
        model.load({ sessionId: "s", name: null, entries: entries.slice(0, 50), labels: [], leafId: null });
        for (let i = 50; i < entries.length; i += 3) {
          const batch = entries.slice(i, i + 3);
          model.append(batch, batch[batch.length - 1].id);
          const oracle = layoutTree(projectTree(entries.slice(0, i + batch.length)), { filter, searchTokens: [], folded: new Set(), labels: new Map(), leafId: leafNodeId(model) });
          assert.deepEqual(modelRows(model), oracleRows(oracle), `${filter} after ${i + batch.length}`);
        }
      }
    });
  }
});
