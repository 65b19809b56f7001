import * as assert from "node:assert/strict";
import { FILTER_MODES } from "../../src/core/tree/filters";
import { TreeModel, type SessionData } from "../../src/core/tree/tree-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { layoutTree } from "../../src/core/tree/layout";
import { projectTree } from "../../src/core/tree/projection";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";

function session(entries: EntrySummary[], leafId: string | null, labels: { targetId: string; label: string }[] = []): SessionData {
  return { sessionId: "s1", name: "Test", entries: [...entries], labels, leafId };
}

const ids = (model: TreeModel): string[] => Array.from({ length: model.rows.count }, (_, r) => model.idAt(r));
const pathIds = (model: TreeModel): string[] => {
  const out: string[] = [];
  for (let i = 0; i < model.index.size; i++) if (model.index.isNode(i) && model.isOnPath(i)) out.push(model.index.summary(i).id);
  return out.sort();
};
const marker = { type: "custom", customType: "arbor.checkout", checkoutMarker: true } as const;
/** The id of the model's leaf node (a marker leaf resolved), as the oracle layout takes it. */
const leafNodeId = (model: TreeModel): string | null => {
  const leaf = model.leafId === null ? undefined : model.index.resolve(model.leafId);
  return leaf === undefined || leaf < 0 ? null : model.index.idAt(leaf);
};

describe("tree model", () => {
  it("draws a leaf hidden behind bookkeeping only (a session name, a label) on the entry it hangs under, as the leaf", () => {
    const model = TreeModel.create();
    const named = [...chain(["a", "b"]), entry("n", "b", { type: "session_info", preview: "name" }), entry("l", "n", { type: "label", targetId: "b", label: "here" })];
    model.load(session(named, "l", [{ targetId: "b", label: "here" }]));
    assert.deepEqual(ids(model), ["a", "b"]);
    assert.deepEqual(model.leafRow(), { row: 1, exact: true }, "a name and a label below b: b is the leaf's place");
    // A hidden leaf below content the filter also hides (a tool result under "no-tools") is not the drawn row's place.
    const tools = [...chain(["a", "b"]), entry("t", "b", { role: "toolResult", toolName: "read" }), entry("n", "t", { type: "session_info" })];
    const noTools = TreeModel.create("no-tools");
    noTools.load(session(tools, "n"));
    assert.deepEqual(noTools.leafRow(), { row: 1, exact: false });
  });

  it("loads a session: rows, path, labels, name", () => {
    const model = TreeModel.create();
    model.load(session(chain(["a", "b", "c"]), "b", [{ targetId: "a", label: "start" }]));
    assert.deepEqual(ids(model), ["a", "b", "c"]);
    assert.deepEqual(pathIds(model), ["a", "b"]);
    assert.equal(model.labels.get("a"), "start");
    assert.equal(model.name, "Test");
    assert.deepEqual(model.leafRow(), { row: 1, exact: true });
    assert.deepEqual(model.selection, ["b"], "the leaf starts selected");
    model.load(null);
    assert.equal(model.rows.count, 0);
    assert.equal(model.sessionId, null);
    assert.deepEqual(model.selection, []);
  });

  it("appends at the leaf without a relayout, the selection following the leaf", () => {
    const model = TreeModel.create();
    model.load(session(chain(["a", "b"]), "b"));
    const layouts = model.stats.layouts;
    model.append([entry("c", "b", { role: "user" })], "c");
    model.append([entry("d", "c", { role: "assistant" }), entry("e", "d", { role: "toolResult" })], "e");
    assert.equal(model.stats.layouts, layouts);
    assert.equal(model.stats.fastAppends, 2);
    assert.deepEqual(ids(model), ["a", "b", "c", "d", "e"]);
    assert.equal(model.idAt(model.leafRow()!.row), "e");
    assert.ok(model.isOnPath(model.index.positionOf("e")!));
  });

  it("relays out when an append starts a branch", () => {
    const model = TreeModel.create();
    model.load(session(chain(["a", "b", "c"]), "a"));
    const layouts = model.stats.layouts;
    model.append([entry("x", "a")], "x");
    assert.equal(model.stats.layouts, layouts + 1);
    assert.deepEqual(Array.from({ length: 4 }, (_, r) => model.rows.level(model.rows.nodeAt(r))), [1, 2, 2, 2]);
  });

  it("rebuilds when an append cannot be applied incrementally (a duplicate id)", () => {
    const model = TreeModel.create();
    model.load(session(chain(["a", "b"]), "b"));
    const builds = model.stats.builds;
    model.append([entry("b", "a", { preview: "again" })], "b");
    assert.equal(model.stats.builds, builds + 1);
    assert.equal(model.index.summary(model.index.positionOf("b")!).preview, "again");
    assert.deepEqual(ids(model), ["a", "b"]);
  });

  it("moves the leaf without a relayout, and splices checkout markers", () => {
    const model = TreeModel.create();
    model.load(session([...chain(["a", "b", "c"]), entry("m", "a", marker)], "m"));
    assert.deepEqual(ids(model), ["a", "b", "c"]);
    assert.equal(model.idAt(model.leafRow()!.row), "a");
    const layouts = model.stats.layouts;
    model.moveLeaf("c");
    assert.equal(model.stats.layouts, layouts);
    assert.deepEqual(pathIds(model), ["a", "b", "c"]);
    model.append([entry("d", "m")], "d");
    assert.equal(model.index.summary(model.rows.drawnParent(model.index.positionOf("d")!)).id, "a");
  });

  it("holds every entry from the root to the leaf on the path, a marker leaf resolved, and nothing for null or unknown", () => {
    const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("m", "f", marker)];
    const model = TreeModel.create();
    model.load(session(entries, "d"));
    assert.deepEqual(pathIds(model), ["a", "b", "c", "d"]);
    model.moveLeaf("m");
    assert.equal(model.leafId, "m");
    assert.equal(model.idAt(model.leafRow()!.row), "f");
    assert.deepEqual(pathIds(model), ["a", "b", "e", "f"]);
    model.moveLeaf(null);
    assert.deepEqual(pathIds(model), []);
    assert.equal(model.leafRow(), undefined);
    model.moveLeaf("zzz");
    assert.deepEqual(pathIds(model), []);
  });

  it("moves the leaf across a generated session to the same path as a fresh load", () => {
    const fixture = generateTreeFixture(3000, 9);
    const model = TreeModel.create();
    model.load(session(fixture.entries, fixture.leafId));
    for (let i = 0; i < fixture.entries.length; i += 97) {
      const id = fixture.entries[i].id;
      model.moveLeaf(id);
      const fresh = TreeModel.create();
      fresh.load(session(fixture.entries, id));
      assert.deepEqual(pathIds(model), pathIds(fresh), `leaf ${id}`);
    }
  });

  it("points at the nearest shown ancestor when the filter hides the leaf", () => {
    const model = TreeModel.create("user-only");
    model.load(session([entry("u", null, { role: "user" }), entry("r", "u", { role: "assistant" })], "r"));
    const leaf = model.leafRow();
    assert.equal(model.idAt(leaf!.row), "u");
    assert.equal(leaf?.exact, false);
  });

  it("applies label changes, relaying out only when labels decide what is shown", () => {
    const model = TreeModel.create();
    model.load(session(chain(["a", "b", "c"]), "c"));
    let layouts = model.stats.layouts;
    model.applyLabelChanges([{ targetId: "b", label: "keep" }]);
    assert.equal(model.labels.get("b"), "keep");
    assert.equal(model.stats.layouts, layouts);

    model.setFilter("labeled-only");
    assert.deepEqual(ids(model), ["b"]);
    layouts = model.stats.layouts;
    model.applyLabelChanges([{ targetId: "c", label: "also" }, { targetId: "b", label: null }]);
    assert.equal(model.stats.layouts, layouts + 1);
    assert.deepEqual(ids(model), ["c"]);
  });

  it("takes labels from appended label entries too (last one wins)", () => {
    const model = TreeModel.create("labeled-only");
    model.load(session(chain(["a", "b"]), "b"));
    assert.deepEqual(ids(model), []);
    model.append([entry("l1", "b", { type: "label", targetId: "a", label: "first" })], "l1");
    assert.deepEqual(ids(model), ["a"]);
    model.append([entry("l2", "l1", { type: "label", targetId: "a" })], "l2");
    assert.deepEqual(ids(model), []);
    assert.equal(model.labels.has("a"), false);
  });

  it("filters, searches and folds", () => {
    const model = TreeModel.create();
    model.load(session([...chain(["a", "b", "c"]), entry("x", "a", { preview: "needle here" })], "c"));
    model.setQuery("NEEDLE");
    assert.deepEqual(ids(model), ["x"]);
    model.setQuery("");
    assert.deepEqual(ids(model), ["a", "b", "c", "x"]);
    assert.equal(model.setFolded("a", true), true);
    assert.deepEqual(ids(model), ["a"]);
    assert.equal(model.setFolded("b", true), false, "b is not a branch point");
    model.setFolded("a", false);
    assert.deepEqual(ids(model), ["a", "b", "c", "x"]);
  });

  it("loads folds with the session in one layout", () => {
    const model = TreeModel.create();
    const layouts = model.stats.layouts;
    model.load(session([...chain(["a", "b"]), entry("x", "a")], "b"), ["a"]);
    assert.equal(model.stats.layouts, layouts + 1);
    assert.deepEqual(ids(model), ["a"]);
  });

  it("selects one entry, or two to compare; a hidden selection moves to its nearest drawn ancestor", () => {
    const model = TreeModel.create();
    model.load(session([...chain(["a", "b", "c"]), entry("x", "a"), entry("t", "x", { role: "toolResult" })], "c"));
    assert.equal(model.select("b"), true);
    assert.deepEqual(model.selection, ["b"]);
    model.select("x", true);
    assert.deepEqual(model.selection, ["b", "x"]);
    assert.equal(model.focusId, "x");
    model.select("c", true);
    assert.deepEqual(model.selection, ["x", "c"], "at most two: the oldest leaves");
    model.select("x", true);
    assert.deepEqual(model.selection, ["c"], "adding a selected entry removes it");
    assert.equal(model.select("nope"), false);
    model.select("t");
    model.setFilter("no-tools");
    assert.deepEqual(model.selection, ["x"]);
  });

  it("marks the span the focused compaction replaced", () => {
    // a - b - c - d - K(compaction, keeps from c) - e
    //      \- x - L(compaction, keeps from c: not on its path)
    const model = TreeModel.create();
    model.load(session([
      ...chain(["a", "b", "c", "d"]),
      entry("x", "b"),
      entry("K", "d", { type: "compaction", tokensBefore: 48_000, firstKeptEntryId: "c" }),
      entry("e", "K"),
      entry("L", "x", { type: "compaction", tokensBefore: 1, firstKeptEntryId: "c" }),
    ], "e"));
    const states = () => Object.fromEntries(["a", "b", "c", "d", "x", "K", "e", "L"].map((id) => [id, model.spanState(model.index.positionOf(id)!) ?? "-"]));
    model.select("K");
    assert.deepEqual(states(), { a: "replaced", b: "replaced", c: "kept", d: "-", x: "-", K: "-", e: "-", L: "-" });
    assert.equal(model.compactionSpan()?.replacedCount, 2);
    model.select("L");
    assert.deepEqual(states(), { a: "replaced", b: "replaced", c: "-", d: "-", x: "replaced", K: "-", e: "-", L: "-" });
    assert.equal(model.compactionSpan()?.replacedCount, 3);
    model.select("c");
    assert.equal(model.compactionSpan(), undefined);
    assert.deepEqual(Object.values(states()), Array(8).fill("-"));
  });

  it("stays equal to a fresh build through a generated session's appends and checkouts", () => {
    const fixture = generateTreeFixture(4000, 21);
    const labels = new Map(fixture.labels.map((l) => [l.targetId, l.label]));
    const model = TreeModel.create("no-tools");
    const head = fixture.entries.slice(0, 500);
    const headLabels = new Map<string, string>();
    for (const e of head) if (e.type === "label" && e.targetId && e.label) headLabels.set(e.targetId, e.label);
    model.load(session(head, null, [...headLabels].map(([targetId, label]) => ({ targetId, label }))));
    for (let i = 500; i < fixture.entries.length; i += 7) {
      const batch = fixture.entries.slice(i, i + 7);
      model.append(batch, batch[batch.length - 1].id);
      if (i % 70 === 0) model.moveLeaf(fixture.entries[i - 300].id);
    }
    const oracle = layoutTree(projectTree(fixture.entries), { filter: "no-tools", searchTokens: [], folded: new Set(), labels, leafId: leafNodeId(model) });
    assert.deepEqual(ids(model), oracle.rows.map((r) => r.node.summary.id));
    assert.deepEqual(
      Array.from({ length: model.rows.count }, (_, r) => model.rows.level(model.rows.nodeAt(r))),
      oracle.rows.map((r) => r.level),
    );
    assert.deepEqual([...model.labels].sort(), [...labels].sort());
    assert.ok(model.stats.fastAppends > 100);
  });
  it("shows a turn without text while it is the leaf and hides it when an append moves on, in place", () => {
    const model = TreeModel.create();
    model.load(session(chain(["a", "b"]), "b"));
    const layouts = model.stats.layouts;
    model.append([entry("t", "b", { role: "assistant", textless: true })], "t");
    assert.deepEqual(ids(model), ["a", "b", "t"], "the leaf is shown");
    model.append([entry("r", "t", { role: "toolResult" })], "r");
    assert.deepEqual(ids(model), ["a", "b", "r"], "the old leaf is hidden, its child takes its place");
    assert.equal(model.index.idAt(model.rows.drawnParent(model.index.positionOf("r")!)), "b");
    assert.equal(model.stats.layouts, layouts, "no relayout");
    model.moveLeaf("t");
    assert.deepEqual(ids(model), ["a", "b", "t", "r"], "checking out the turn shows it again");
    model.moveLeaf("r");
    assert.deepEqual(ids(model), ["a", "b", "r"]);
    model.setFilter("everything");
    assert.deepEqual(ids(model), ["a", "b", "t", "r"]);
  });

  for (const filter of FILTER_MODES) {
    it(`follows the leaf through one-entry appends and checkouts exactly as a fresh layout would (filter ${filter})`, () => {
      const fixture = generateTreeFixture(1500, 31 + FILTER_MODES.indexOf(filter));
      const labels = new Map<string, string>();
      const model = TreeModel.create(filter);
      const head = fixture.entries.slice(0, 100);
      for (const e of head) if (e.type === "label" && e.targetId && e.label) labels.set(e.targetId, e.label);
      model.load(session(head, head[99].id, [...labels].map(([targetId, label]) => ({ targetId, label }))));
      for (let i = 100; i < fixture.entries.length; i++) {
        const e = fixture.entries[i];
        if (e.type === "label" && e.targetId && e.label) labels.set(e.targetId, e.label);
        model.append([e], e.checkoutMarker ? e.parentId : e.id);
        if (i % 97 === 0) model.moveLeaf(fixture.entries[i - 40].id);
        if (i % 50 === 0 || i % 97 === 0) {
          const fresh = layoutTree(projectTree(fixture.entries.slice(0, i + 1)), { filter, searchTokens: [], folded: new Set(), labels, leafId: leafNodeId(model) });
          const positions = Array.from({ length: model.rows.count }, (_, r) => {
            const n = model.rows.nodeAt(r);
            return [model.rows.level(n), model.rows.posInSet(n), model.rows.setSize(n)];
          });
          assert.deepEqual(ids(model), fresh.rows.map((r) => r.node.summary.id), `after entry ${i}`);
          assert.deepEqual(positions, fresh.rows.map((r) => [r.level, r.posInSet, r.siblings.size]), `positions after entry ${i}`);
        }
      }
      if (filter !== "labeled-only" && filter !== "user-only") assert.ok(model.stats.fastAppends > 1000, `only ${model.stats.fastAppends} fast appends`);
    });
  }
});
