/**
 * The Sessions view's rows: a fresh listing merged into the rows on screen redraws only the rows
 * that changed, keeping the node objects VS Code knows them by.
 */
import * as assert from "node:assert/strict";
import type { SessionInfo } from "../../src/core/session/session-list";
import { mergeRows, nestForks, nodesFor } from "../../src/extension/session-rows";

function info(path: string, fields: Partial<SessionInfo> = {}): SessionInfo {
  return {
    path,
    id: path,
    cwd: "/w",
    created: new Date(1000),
    modified: new Date(2000),
    messageCount: 2,
    firstMessage: `first of ${path}`,
    labels: [],
    badLines: 0,
    size: 100,
    ...fields,
  };
}

describe("Sessions view rows", () => {
  it("nests forks under their listed parent and keeps the order", () => {
    const roots = nestForks([info("b"), info("a1", { parentSessionPath: "a" }), info("a"), info("c", { parentSessionPath: "gone" })]);
    assert.deepEqual(roots.map((n) => n.info.path), ["b", "a", "c"]);
    assert.deepEqual(roots[1].forks.map((n) => n.info.path), ["a1"]);
  });

  it("an append to one session redraws that row only, on the node object shown", () => {
    const shown = nestForks([info("a"), info("b"), info("b1", { parentSessionPath: "b" })]);
    const [a, b] = shown;
    const b1 = b.forks[0];
    const update = mergeRows(shown, nestForks([info("a", { messageCount: 3, modified: new Date(3000) }), info("b"), info("b1", { parentSessionPath: "b" })]));
    assert.equal(update.kind, "in-place");
    assert.deepEqual(update.kind === "in-place" && update.changed, [a]);
    assert.equal(a.info.messageCount, 3, "the shown node carries the new listing");
    assert.equal(shown[1], b);
    assert.equal(b.forks[0], b1);
  });

  it("a new name, label or unreadable line redraws; an identical listing redraws nothing", () => {
    const shown = nestForks([info("a"), info("b")]);
    for (const change of [{ name: "x" }, { labels: ["l"] }, { badLines: 1 }, { firstMessage: "y" }] as Partial<SessionInfo>[]) {
      const update = mergeRows(shown, nestForks([info("a"), info("b", change)]));
      assert.deepEqual(update.kind === "in-place" && update.changed.map((n) => n.info.path), ["b"], JSON.stringify(change));
    }
    const same = mergeRows(shown, nestForks([info("a"), info("b", { firstMessage: "y" })]));
    assert.deepEqual(same.kind === "in-place" && same.changed, []);
  });

  it("rows that come, go, move or re-nest redraw the list, keeping each surviving node", () => {
    const shown = nestForks([info("a"), info("b"), info("c")]);
    const [a, b, c] = shown;
    const moved = mergeRows(shown, nestForks([info("b", { modified: new Date(5000) }), info("a"), info("c")]));
    assert.equal(moved.kind, "reshaped");
    assert.ok(moved.kind === "reshaped");
    assert.deepEqual(moved.roots, [b, a, c]);
    assert.equal(b.info.modified.getTime(), 5000);

    const added = mergeRows(moved.roots, nestForks([info("d"), info("b"), info("a"), info("c")]));
    assert.ok(added.kind === "reshaped");
    assert.equal(added.roots[0].info.path, "d");
    assert.equal(added.roots[1], b);

    const nested = mergeRows(added.roots, nestForks([info("d"), info("b"), info("a"), info("c", { parentSessionPath: "a" })]));
    assert.ok(nested.kind === "reshaped");
    assert.deepEqual(nested.roots.map((n) => n.info.path), ["d", "b", "a"]);
    assert.equal(nested.roots[2].forks[0], c);

    const removed = mergeRows(nested.roots, nestForks([info("b"), info("a")]));
    assert.ok(removed.kind === "reshaped");
    assert.deepEqual(removed.roots, [b, a]);
    assert.deepEqual(a.forks, []);
  });

  it("finds the nodes of given files, forks included", () => {
    const roots = nestForks([info("a"), info("a1", { parentSessionPath: "a" }), info("b")]);
    assert.deepEqual(nodesFor(roots, new Set(["a1", "b", "zz"])).map((n) => n.info.path), ["a1", "b"]);
  });
});
