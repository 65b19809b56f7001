import * as assert from "node:assert/strict";
import { FILTER_MODES, type FilterMode } from "../../src/core/tree/filters";
import { TreeModel } from "../../src/core/tree/tree-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";

interface Options {
  filter?: FilterMode;
  query?: string;
  folded?: string[];
  labels?: { targetId: string; label: string }[];
  /** The leaf: Pi's filters show an assistant turn without text only while it is the leaf. */
  leafId?: string | null;
}

/** A model of `entries` laid out under the options (filter "all" unless given). */
function layoutOf(entries: EntrySummary[], options: Options = {}): TreeModel {
  const model = TreeModel.create(options.filter ?? "all");
  model.load({ sessionId: "s", name: null, entries: [...entries], labels: options.labels ?? [], leafId: options.leafId ?? null }, options.folded ?? []);
  if (options.query) model.setQuery(options.query);
  return model;
}

const LANE: Readonly<Record<string, string>> = { t: "+", e: "`", l: "|", b: " " };

/**
 * One line per row: indent drawing, id, and flags. The drawing uses one character per indent
 * column: "|" guide, " " none, "+" tee (segment start, more siblings below), "`" elbow (last).
 */
function draw(model: TreeModel): string[] {
  const rows = model.rows;
  const out: string[] = [];
  for (let r = 0; r < rows.count; r++) {
    const i = rows.nodeAt(r);
    const lanes = rows.lanes(i, 1_000);
    assert.equal(lanes.hidden, 0);
    assert.equal(lanes.columns.length, rows.level(i) - 1);
    const cols = [...lanes.columns].map((c) => LANE[c]).join("");
    const flags = rows.isBranchPoint(i) ? (rows.isFolded(i) ? " [+]" : " [-]") : "";
    out.push(`${cols}${model.idAt(r)}${flags}`);
  }
  return out;
}

/** aria-posinset/aria-setsize per row, as "id pos/size". */
function positions(model: TreeModel): string[] {
  const rows = model.rows;
  const out: string[] = [];
  for (let r = 0; r < rows.count; r++) out.push(`${model.idAt(r)} ${rows.posInSet(rows.nodeAt(r))}/${rows.setSize(rows.nodeAt(r))}`);
  return out;
}

const levels = (model: TreeModel): number[] => Array.from({ length: model.rows.count }, (_, r) => model.rows.level(model.rows.nodeAt(r)));
const drawnParentOf = (model: TreeModel, id: string): string | undefined => {
  const dp = model.rows.drawnParent(model.index.positionOf(id)!);
  return dp < 0 ? undefined : model.index.summary(dp).id;
};

describe("tree rows", () => {
  it("draws a chain flat at level 1", () => {
    const model = layoutOf(chain(["a", "b", "c"]));
    assert.deepEqual(draw(model), ["a", "b", "c"]);
    assert.deepEqual(levels(model), [1, 1, 1]);
  });

  it("indents the segments of a branch point, with guides while siblings follow", () => {
    // a - b - c - d
    //      \- e - f
    //          \- g
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("g", "e")];
    const model = layoutOf(entries);
    assert.deepEqual(draw(model), ["a", "b [-]", "+c", "|d", "`e [-]", " +f", " `g"]);
    assert.deepEqual(levels(model), [1, 1, 2, 2, 2, 3, 3]);
  });

  it("bounds the lanes of deep rows and counts the rest for the depth marker", () => {
    // A ladder: every level branches once more, so row depth grows by one per rung.
    const entries: EntrySummary[] = [entry("r", null)];
    let parent = "r";
    for (let k = 0; k < 30; k++) {
      entries.push(entry(`side${k}`, parent), entry(`deep${k}`, parent));
      parent = `deep${k}`;
    }
    const model = layoutOf(entries);
    const deepest = model.index.positionOf("deep29")!;
    assert.equal(model.rows.level(deepest), 31);
    const lanes = model.rows.lanes(deepest, 4);
    assert.equal(lanes.columns.length, 4);
    assert.equal(lanes.hidden, 26);
    assert.deepEqual(lanes.columns, model.rows.lanes(deepest, 1_000).columns.slice(-4), "the nearest columns are kept");
  });

  it("counts siblings of the drawn tree for aria-posinset and aria-setsize", () => {
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("g", "e"), ...chain(["x"])];
    assert.deepEqual(positions(layoutOf(entries)), ["a 1/3", "b 2/3", "c 1/3", "d 2/3", "e 3/3", "f 1/2", "g 2/2", "x 3/3"]);
  });

  it("draws several roots (and orphans) as top-level chains", () => {
    const model = layoutOf([...chain(["a", "b"]), ...chain(["x", "y"]), entry("o", "missing")]);
    assert.deepEqual(draw(model), ["a", "b", "x", "y", "o"]);
  });

  it("hangs the shown descendants of hidden entries on the nearest shown ancestor", () => {
    // a(user) - t(toolResult) - b(user)
    //         \ u(label)      - c(user)
    const entries = [
      entry("a", null),
      entry("t", "a", { role: "toolResult" }),
      entry("b", "t"),
      entry("u", "a", { type: "label", targetId: "a", label: "x" }),
      entry("c", "u"),
    ];
    assert.deepEqual(draw(layoutOf(entries, { filter: "all" })), ["a [-]", "+t", "|b", "`u", " c"]);
    const userOnly = layoutOf(entries, { filter: "user-only" });
    assert.deepEqual(draw(userOnly), ["a [-]", "+b", "`c"]);
    assert.equal(drawnParentOf(userOnly, "c"), "a");
  });

  it("folds a branch point: its descendants leave the rows", () => {
    const entries = [...chain(["a", "b", "c"]), entry("d", "b"), entry("e", "d")];
    const model = layoutOf(entries, { folded: ["b", "a"] });
    assert.deepEqual(draw(model), ["a", "b [+]"]);
    assert.equal(model.rows.rowOf(model.index.positionOf("e")!), -1);
    assert.equal(model.rowOfId("e"), 1, "a folded-away entry is found at its nearest drawn ancestor");
  });

  it("lays out a 100,000-deep chain without recursion", () => {
    const n = 100_000;
    const entries: EntrySummary[] = [];
    for (let i = 0; i < n; i++) entries.push({ id: `e${i}`, parentId: i ? `e${i - 1}` : null, type: "message", role: "user", timestamp: "", line: i + 2, preview: "" });
    const model = layoutOf(entries);
    assert.equal(model.rows.count, n);
    assert.equal(model.rows.level(model.rows.nodeAt(n - 1)), 1);
  });

  it("finds the visual parent and first child for keyboard navigation", () => {
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("g", "e")];
    const model = layoutOf(entries);
    const ix = (id: string) => model.rowOfId(id);
    assert.equal(model.rows.visualParentRow(ix("d")), ix("b"));
    assert.equal(model.rows.visualParentRow(ix("c")), ix("b"));
    assert.equal(model.rows.visualParentRow(ix("g")), ix("e"));
    assert.equal(model.rows.visualParentRow(ix("b")), -1);
    assert.equal(model.rows.firstChildRow(ix("b")), ix("c"));
    assert.equal(model.rows.firstChildRow(ix("c")), -1);
  });

  describe("incremental append", () => {
    const filters: readonly FilterMode[] = FILTER_MODES;

    it("appending at the leaf extends the chain in place", () => {
      const model = layoutOf(chain(["a", "b"]));
      const layouts = model.stats.layouts;
      model.append([entry("c", "b")], "c");
      assert.equal(model.stats.layouts, layouts);
      assert.deepEqual(draw(model), ["a", "b", "c"]);
    });

    it("inserts in the middle without a relayout when the leaf is on an earlier branch", () => {
      const entries = [...chain(["a", "b", "c"]), entry("d", "a"), entry("e", "d")];
      const model = layoutOf(entries);
      const layouts = model.stats.layouts;
      const c2 = entry("c2", "c");
      model.append([c2], "c2");
      assert.equal(model.stats.layouts, layouts);
      const fresh = layoutOf([...entries, c2]);
      assert.deepEqual(draw(model), draw(fresh));
      assert.deepEqual(positions(model), positions(fresh));
    });

    it("relays out when a new branch starts in the middle", () => {
      const entries = [...chain(["a", "b", "c"]), entry("d", "a"), entry("e", "d")];
      const model = layoutOf(entries);
      const layouts = model.stats.layouts;
      model.append([entry("x", "b")], "x");
      assert.equal(model.stats.layouts, layouts + 1);
    });

    it("relays out for a new branch (the shape changes)", () => {
      const model = layoutOf(chain(["a", "b", "c"]));
      const layouts = model.stats.layouts;
      model.append([entry("x", "a")], "x");
      assert.equal(model.stats.layouts, layouts + 1);
      assert.deepEqual(draw(model), ["a [-]", "+b", "|c", "`x"]);
    });

    // Whether the fast path is taken or not, the result equals a fresh layout.
    for (const filter of filters) {
      it(`matches a full layout after every append (filter ${filter})`, () => {
        const fixture = generateTreeFixture(1500, filters.indexOf(filter) + 11);
        const model = layoutOf(fixture.entries.slice(0, 200), { filter });
        for (let i = 200, step = 0; i < fixture.entries.length; i += 1 + (i % 3), step++) {
          const batch = fixture.entries.slice(i, i + 1 + (i % 3));
          model.append(batch, batch[batch.length - 1].id);
          if (step % 4 !== 0 && i + batch.length < fixture.entries.length) continue;
          const labels = [...model.labels].map(([targetId, label]) => ({ targetId, label }));
          const fresh = layoutOf(fixture.entries.slice(0, i + batch.length), { filter, labels, leafId: model.leafId });
          assert.deepEqual(draw(model), draw(fresh), `after entry ${i}`);
          assert.deepEqual(positions(model), positions(fresh), `positions after entry ${i}`);
        }
        if (filter !== "labeled-only") assert.ok(model.stats.fastAppends > 50, `fast path taken only ${model.stats.fastAppends} times`);
      });
    }

    it("matches a full layout under a search too", () => {
      const fixture = generateTreeFixture(800, 5);
      const model = layoutOf(fixture.entries.slice(0, 100), { filter: "default", query: "tree" });
      for (let i = 100; i < fixture.entries.length; i++) {
        model.append([fixture.entries[i]], fixture.entries[i].id);
        if (i % 4 !== 0) continue;
        const labels = [...model.labels].map(([targetId, label]) => ({ targetId, label }));
        const fresh = layoutOf(fixture.entries.slice(0, i + 1), { filter: "default", query: "tree", labels, leafId: model.leafId });
        assert.deepEqual(draw(model), draw(fresh));
        assert.deepEqual(positions(model), positions(fresh));
      }
    });
  });
});
