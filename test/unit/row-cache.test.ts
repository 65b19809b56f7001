/**
 * The rows a tree webview holds (RowCache): the list repaints a row only when its object changes,
 * so a window that brings nothing new must leave the held objects as they are (issue 10: every
 * answer to a scroll repainted every row in view), and a change of the tree replaces only the rows
 * that differ. Memory stays bounded whatever the session's size.
 */
import * as assert from "node:assert/strict";
import type { RowWindow, TreeRow } from "../../src/protocol/messages";
import { RowCache } from "../../webview/tree/row-cache";

function row(i: number, over: Partial<TreeRow> = {}, entry: Partial<TreeRow["entry"]> = {}): TreeRow {
  return {
    entry: { id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}`, type: "message", role: "user", timestamp: "2026-01-01T00:00:00.000Z", line: i + 1, preview: `entry ${i}`, ...entry },
    level: 1,
    posInSet: 1,
    setSize: 1,
    lanes: "",
    hiddenLanes: 0,
    branches: 0,
    folded: false,
    segmentStart: false,
    top: i === 0,
    orphan: false,
    onPath: true,
    leaf: null,
    label: null,
    span: null,
    checkpoint: false,
    ...over,
  };
}

function window(version: number, start: number, end: number, make: (i: number) => TreeRow = (i) => row(i), rowCount = 100_000): RowWindow {
  const rows: TreeRow[] = [];
  for (let i = start; i < end; i++) rows.push(make(i));
  return { version, rowCount, start, rows };
}

describe("the tree webview's row cache", () => {
  it("keeps the rows it holds when a window of the same version overlaps them, and adds the new ones", () => {
    const cache = new RowCache();
    cache.apply(window(3, 100, 200));
    const held = cache.get(150);
    cache.apply(window(3, 150, 300));
    assert.equal(cache.get(150), held, "a held row keeps its object (no repaint)");
    assert.equal(cache.get(250)?.entry.id, "e250");
    assert.ok(cache.covers(100, 300));
    assert.ok(!cache.covers(99, 300));
  });

  it("after a change keeps the objects of equal rows and takes the ones that differ", () => {
    const cache = new RowCache();
    cache.apply(window(3, 0, 50));
    const same = cache.get(10);
    const labelled = cache.get(20);
    const leafMoved = cache.get(30);
    cache.apply(window(4, 0, 50, (i) => (i === 20 ? row(i, { label: "here" }) : i === 30 ? row(i, { leaf: "exact" }) : i === 40 ? row(i, {}, { preview: "edited" }) : row(i))));
    assert.equal(cache.version, 4);
    assert.equal(cache.get(10), same);
    assert.notEqual(cache.get(20), labelled);
    assert.equal(cache.get(20)?.label, "here");
    assert.equal(cache.get(30)?.leaf, "exact");
    assert.notEqual(cache.get(30), leafMoved);
    assert.equal(cache.get(40)?.entry.preview, "edited", "a field of the entry counts too");
  });

  it("drops what a newer version does not carry, and rows whose optional fields came or went", () => {
    const cache = new RowCache();
    cache.apply(window(1, 0, 100));
    const kept = cache.get(5);
    cache.apply(window(2, 0, 10, (i) => (i === 6 ? row(i, {}, { isError: true }) : row(i))));
    assert.equal(cache.size, 10);
    assert.equal(cache.get(50), undefined);
    assert.equal(cache.get(5), kept);
    assert.equal(cache.get(6)?.entry.isError, true);
    cache.apply(window(3, 0, 10));
    assert.equal(cache.get(6)?.entry.isError, undefined, "a field that went away is not kept from the older row");
  });

  it("holds a bounded number of rows however far the view scrolls", () => {
    const cache = new RowCache();
    for (let start = 0; start < 100_000; start += 400) cache.apply(window(7, start, start + 400));
    assert.ok(cache.size <= 6_000, `${cache.size} rows held`);
    assert.ok(cache.covers(99_600, 100_000), "the last window is held");
  });
});
