import * as assert from "node:assert/strict";
import type { FilterMode } from "../../src/core/tree/filters";
import {
  appendToLayout,
  firstChildIndex,
  isFoldable,
  layoutTree,
  visualParentIndex,
  type LayoutOptions,
  type TreeLayout,
} from "../../src/core/tree/layout";
import { appendToProjection, projectTree } from "../../src/core/tree/projection";
import { parseSearchQuery } from "../../src/core/tree/search";
import type { EntrySummary } from "../../src/core/tree/types";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";

function options(overrides: Partial<LayoutOptions> = {}): LayoutOptions {
  return { filter: "all", searchTokens: [], folded: new Set(), labels: new Map(), ...overrides };
}

/**
 * One line per row: indent drawing, id, and flags. The drawing uses one character per indent
 * column: "|" guide, " " none, "+" tee (segment start, more siblings below), "`" elbow (last).
 */
function draw(layout: TreeLayout): string[] {
  return layout.rows.map((row) => {
    let cols = "";
    for (let k = 0; k < row.level - 1; k++) {
      const own = k === row.level - 2;
      if (own && row.segmentStart) cols += row.guides[k] ? "+" : "`";
      else cols += row.guides[k] ? "|" : " ";
    }
    const flags = `${isFoldable(row) ? (row.folded ? " [+]" : " [-]") : ""}`;
    return `${cols}${row.node.summary.id}${flags}`;
  });
}

/** aria-posinset/aria-setsize per row, as "id pos/size". */
function positions(layout: TreeLayout): string[] {
  return layout.rows.map((row) => `${row.node.summary.id} ${row.posInSet}/${row.siblings.size}`);
}

describe("tree layout", () => {
  it("draws a chain flat at level 1", () => {
    const layout = layoutTree(projectTree(chain(["a", "b", "c"])), options());
    assert.deepEqual(draw(layout), ["a", "b", "c"]);
    assert.deepEqual(layout.rows.map((r) => r.level), [1, 1, 1]);
    assert.deepEqual(layout.rows.map((r) => r.index), [0, 1, 2]);
  });

  it("indents the segments of a branch point, with guides while siblings follow", () => {
    // a - b - c - d
    //      \- e - f
    //          \- g
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("g", "e")];
    const layout = layoutTree(projectTree(entries), options());
    assert.deepEqual(draw(layout), ["a", "b [-]", "+c", "|d", "`e [-]", " +f", " `g"]);
    assert.deepEqual(layout.rows.map((r) => r.level), [1, 1, 2, 2, 2, 3, 3]);
  });

  it("counts siblings of the drawn tree for aria-posinset and aria-setsize", () => {
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("g", "e"), ...chain(["x"])];
    const layout = layoutTree(projectTree(entries), options());
    assert.deepEqual(positions(layout), ["a 1/3", "b 2/3", "c 1/3", "d 2/3", "e 3/3", "f 1/2", "g 2/2", "x 3/3"]);
  });

  it("draws several roots (and orphans) as top-level chains", () => {
    const layout = layoutTree(projectTree([...chain(["a", "b"]), ...chain(["x", "y"]), entry("o", "missing")]), options());
    assert.deepEqual(draw(layout), ["a", "b", "x", "y", "o"]);
    assert.deepEqual(layout.roots.map((r) => r.node.summary.id), ["a", "x", "o"]);
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
    const p = projectTree(entries);
    assert.deepEqual(draw(layoutTree(p, options({ filter: "all" }))), ["a [-]", "+t", "|b", "`u", " c"]);
    assert.deepEqual(draw(layoutTree(p, options({ filter: "user-only" }))), ["a [-]", "+b", "`c"]);
    assert.equal(layoutTree(p, options({ filter: "user-only" })).rowById.get("c")?.parentRow?.node.summary.id, "a");
  });

  it("folds a branch point: its descendants leave the rows but keep their rows by id", () => {
    const entries = [...chain(["a", "b", "c"]), entry("d", "b"), entry("e", "d")];
    const layout = layoutTree(projectTree(entries), options({ folded: new Set(["b", "a"]) }));
    assert.deepEqual(draw(layout), ["a", "b [+]"]);
    assert.equal(layout.rowById.get("e")?.index, -1);
  });

  it("lays out a 200,000-deep chain without recursion", () => {
    const n = 200_000;
    const entries: EntrySummary[] = [];
    for (let i = 0; i < n; i++) entries.push({ id: `e${i}`, parentId: i ? `e${i - 1}` : null, type: "message", role: "user", timestamp: "", line: i + 2, preview: "" });
    const layout = layoutTree(projectTree(entries), options());
    assert.equal(layout.rows.length, n);
    assert.equal(layout.rows[n - 1].level, 1);
  });

  it("finds the visual parent and first child for keyboard navigation", () => {
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("g", "e")];
    const layout = layoutTree(projectTree(entries), options());
    const ix = (id: string) => layout.rowById.get(id)?.index ?? -1;
    assert.equal(visualParentIndex(layout, ix("d")), ix("b"));
    assert.equal(visualParentIndex(layout, ix("c")), ix("b"));
    assert.equal(visualParentIndex(layout, ix("g")), ix("e"));
    assert.equal(visualParentIndex(layout, ix("b")), -1);
    assert.equal(firstChildIndex(layout, ix("b")), ix("c"));
    assert.equal(firstChildIndex(layout, ix("c")), -1);
  });

  describe("incremental append", () => {
    const filters: FilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

    it("appending at the leaf extends the chain in place", () => {
      const p = projectTree(chain(["a", "b"]));
      const layout = layoutTree(p, options());
      const result = appendToProjection(p, [entry("c", "b")]);
      assert.ok(result.ok);
      assert.equal(appendToLayout(layout, result.added, options()), true);
      assert.deepEqual(draw(layout), ["a", "b", "c"]);
    });

    it("inserts in the middle when the leaf is on an earlier branch, and reindexes", () => {
      const entries = [...chain(["a", "b", "c"]), entry("d", "a"), entry("e", "d")];
      const p = projectTree(entries);
      const layout = layoutTree(p, options());
      const result = appendToProjection(p, [entry("c2", "c")]);
      assert.ok(result.ok);
      assert.equal(appendToLayout(layout, result.added, options()), true);
      assert.deepEqual(draw(layout), draw(layoutTree(p, options())));
      assert.deepEqual(positions(layout), positions(layoutTree(p, options())));
      assert.deepEqual(layout.rows.map((r) => r.index), layout.rows.map((_, i) => i));
    });

    it("declines a new branch (the shape changes) so the caller lays out again", () => {
      const p = projectTree(chain(["a", "b", "c"]));
      const layout = layoutTree(p, options());
      const result = appendToProjection(p, [entry("x", "a")]);
      assert.ok(result.ok);
      assert.equal(appendToLayout(layout, result.added, options()), false);
    });

    // Property: whenever the fast path accepts a batch, the result equals a fresh layout.
    for (const filter of filters) {
      it(`matches a full layout after every accepted append (filter ${filter})`, () => {
        const fixture = generateTreeFixture(1500, filters.indexOf(filter) + 11);
        const labels = new Map(fixture.labels.map((l) => [l.targetId, l.label]));
        const opts = options({ filter, labels });
        const p = projectTree(fixture.entries.slice(0, 200));
        let layout = layoutTree(p, opts);
        let accepted = 0;
        for (let i = 200; i < fixture.entries.length; i += 1 + (i % 3)) {
          const batch = fixture.entries.slice(i, i + 1 + (i % 3));
          const result = appendToProjection(p, batch);
          assert.ok(result.ok);
          if (appendToLayout(layout, result.added, opts)) {
            accepted++;
            const fresh = layoutTree(p, opts);
            assert.deepEqual(draw(layout), draw(fresh), `after entry ${i}`);
            assert.deepEqual(positions(layout), positions(fresh), `positions after entry ${i}`);
          } else {
            layout = layoutTree(p, opts);
          }
        }
        if (filter !== "labeled-only") assert.ok(accepted > 50, `fast path taken only ${accepted} times`);
      });
    }

    it("matches a full layout under a search too", () => {
      const fixture = generateTreeFixture(800, 5);
      const opts = options({ filter: "default", searchTokens: parseSearchQuery("tree") });
      const p = projectTree(fixture.entries.slice(0, 100));
      let layout = layoutTree(p, opts);
      for (let i = 100; i < fixture.entries.length; i++) {
        const result = appendToProjection(p, [fixture.entries[i]]);
        assert.ok(result.ok);
        if (appendToLayout(layout, result.added, opts)) {
          assert.deepEqual(draw(layout), draw(layoutTree(p, opts)));
          assert.deepEqual(positions(layout), positions(layoutTree(p, opts)));
        }
        else layout = layoutTree(p, opts);
      }
    });
  });
});
