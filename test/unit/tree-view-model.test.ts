import * as assert from "node:assert/strict";
import { layoutTree } from "../../src/core/tree/layout";
import { projectTree } from "../../src/core/tree/projection";
import { TreeViewModel, type SessionData } from "../../src/core/tree/tree-view-model";
import type { EntrySummary } from "../../src/core/tree/types";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";

function session(entries: EntrySummary[], leafId: string | null, labels: { targetId: string; label: string }[] = []): SessionData {
  return { sessionId: "s1", name: "Test", entries, labels, leafId };
}

const ids = (model: TreeViewModel): string[] => model.rows.map((r) => r.node.summary.id);

describe("tree view model", () => {
  it("loads a session: rows, path, labels, name", () => {
    const model = TreeViewModel.create();
    model.load(session(chain(["a", "b", "c"]), "b", [{ targetId: "a", label: "start" }]));
    assert.deepEqual(ids(model), ["a", "b", "c"]);
    assert.deepEqual([...model.activePath.ids].sort(), ["a", "b"]);
    assert.equal(model.labels.get("a"), "start");
    assert.equal(model.name, "Test");
    assert.equal(model.leafRow()?.row.node.summary.id, "b");
    model.load(null);
    assert.equal(model.rows.length, 0);
    assert.equal(model.sessionId, null);
  });

  it("appends at the leaf without a relayout", () => {
    const model = TreeViewModel.create();
    model.load(session(chain(["a", "b"]), "b"));
    const layouts = model.stats.layouts;
    model.append([entry("c", "b", { role: "user" })], "c");
    model.append([entry("d", "c", { role: "assistant" }), entry("e", "d", { role: "toolResult" })], "e");
    assert.equal(model.stats.layouts, layouts);
    assert.equal(model.stats.fastAppends, 2);
    assert.deepEqual(ids(model), ["a", "b", "c", "d", "e"]);
    assert.equal(model.leafRow()?.row.node.summary.id, "e");
    assert.ok(model.activePath.ids.has("e"));
  });

  it("relays out when an append starts a branch", () => {
    const model = TreeViewModel.create();
    model.load(session(chain(["a", "b", "c"]), "a"));
    const layouts = model.stats.layouts;
    model.append([entry("x", "a")], "x");
    assert.equal(model.stats.layouts, layouts + 1);
    assert.deepEqual(model.rows.map((r) => r.level), [1, 2, 2, 2]);
  });

  it("rebuilds when an append cannot be applied incrementally (a duplicate id)", () => {
    const model = TreeViewModel.create();
    model.load(session(chain(["a", "b"]), "b"));
    const projections = model.stats.projections;
    model.append([entry("b", "a", { preview: "again" })], "b");
    assert.equal(model.stats.projections, projections + 1);
    assert.equal(model.projection.nodes.get("b")?.summary.preview, "again");
  });

  it("moves the leaf without a relayout, and splices checkout markers", () => {
    const marker = entry("m", "a", { type: "custom", customType: "arbor.checkout", checkoutMarker: true });
    const model = TreeViewModel.create();
    model.load(session([...chain(["a", "b", "c"]), marker], "m"));
    assert.deepEqual(ids(model), ["a", "b", "c"]);
    assert.equal(model.leafRow()?.row.node.summary.id, "a");
    const layouts = model.stats.layouts;
    model.moveLeaf("c");
    assert.equal(model.stats.layouts, layouts);
    assert.deepEqual([...model.activePath.ids].sort(), ["a", "b", "c"]);
    model.append([entry("d", "m")], "d");
    assert.equal(model.layout.rowById.get("d")?.parentRow?.node.summary.id, "a");
  });

  it("points at the nearest shown ancestor when the filter hides the leaf", () => {
    const model = TreeViewModel.create("user-only");
    model.load(session([entry("u", null, { role: "user" }), entry("r", "u", { role: "assistant" })], "r"));
    const leaf = model.leafRow();
    assert.equal(leaf?.row.node.summary.id, "u");
    assert.equal(leaf?.exact, false);
  });

  it("applies label changes, relaying out only when labels decide what is shown", () => {
    const model = TreeViewModel.create();
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
    const model = TreeViewModel.create("labeled-only");
    model.load(session(chain(["a", "b"]), "b"));
    assert.deepEqual(ids(model), []);
    model.append([entry("l1", "b", { type: "label", targetId: "a", label: "first" })], "l1");
    assert.deepEqual(ids(model), ["a"]);
    model.append([entry("l2", "l1", { type: "label", targetId: "a" })], "l2");
    assert.deepEqual(ids(model), []);
    assert.equal(model.labels.has("a"), false);
  });

  it("filters, searches and folds", () => {
    const model = TreeViewModel.create();
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
    const model = TreeViewModel.create();
    const layouts = model.stats.layouts;
    model.load(session([...chain(["a", "b"]), entry("x", "a")], "b"), ["a"]);
    assert.equal(model.stats.layouts, layouts + 1);
    assert.deepEqual(ids(model), ["a"]);
  });

  it("stays equal to a fresh build through a generated session's appends and checkouts", () => {
    const fixture = generateTreeFixture(4000, 21);
    const labels = new Map(fixture.labels.map((l) => [l.targetId, l.label]));
    const model = TreeViewModel.create("no-tools");
    const head = fixture.entries.slice(0, 500);
    const headLabels = new Map<string, string>();
    for (const e of head) if (e.type === "label" && e.targetId && e.label) headLabels.set(e.targetId, e.label);
    model.load(session(head, null, [...headLabels].map(([targetId, label]) => ({ targetId, label }))));
    for (let i = 500; i < fixture.entries.length; i += 7) {
      const batch = fixture.entries.slice(i, i + 7);
      model.append(batch, batch[batch.length - 1].id);
      if (i % 70 === 0) model.moveLeaf(fixture.entries[i - 300].id);
    }
    const fresh = layoutTree(projectTree(fixture.entries), { filter: "no-tools", searchTokens: [], folded: new Set(), labels });
    assert.deepEqual(ids(model), fresh.rows.map((r) => r.node.summary.id));
    assert.deepEqual(model.rows.map((r) => r.level), fresh.rows.map((r) => r.level));
    assert.deepEqual([...model.labels].sort(), [...labels].sort());
    assert.ok(model.stats.fastAppends > 100);
  });
});
