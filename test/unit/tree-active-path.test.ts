import * as assert from "node:assert/strict";
import { computeActivePath, moveActivePath } from "../../src/core/tree/active-path";
import { projectTree } from "../../src/core/tree/projection";
import { chain, entry, generateTreeFixture } from "../support/webview-harness.fixtures";

const marker = { type: "custom", customType: "arbor.checkout", checkoutMarker: true } as const;

describe("active path", () => {
  const entries = [...chain(["a", "b", "c", "d"]), entry("e", "b"), entry("f", "e"), entry("m", "f", marker)];
  const p = projectTree(entries);

  it("holds every entry from the root to the leaf", () => {
    const path = computeActivePath(p, "d");
    assert.deepEqual([...path.ids].sort(), ["a", "b", "c", "d"]);
    assert.equal(path.leaf?.summary.id, "d");
  });

  it("resolves a checkout marker leaf to the entry it was spliced into", () => {
    const path = computeActivePath(p, "m");
    assert.equal(path.leafId, "m");
    assert.equal(path.leaf?.summary.id, "f");
    assert.deepEqual([...path.ids].sort(), ["a", "b", "e", "f"]);
  });

  it("is empty for a null or unknown leaf", () => {
    assert.equal(computeActivePath(p, null).ids.size, 0);
    assert.equal(computeActivePath(p, "zzz").ids.size, 0);
    assert.equal(computeActivePath(p, "zzz").leaf, null);
  });

  it("moves between branches to the same result as computing afresh", () => {
    const moves = ["d", "f", "a", null, "c", "m", "zzz", "e", "d"];
    let path = computeActivePath(p, "c");
    for (const leaf of moves) {
      path = moveActivePath(path, p, leaf);
      assert.deepEqual([...path.ids].sort(), [...computeActivePath(p, leaf).ids].sort(), `leaf ${leaf}`);
    }
  });

  it("agrees with a fresh computation across a generated session", () => {
    const fixture = generateTreeFixture(3000, 9);
    const big = projectTree(fixture.entries);
    let path = computeActivePath(big, fixture.leafId);
    for (let i = 0; i < fixture.entries.length; i += 97) {
      const id = fixture.entries[i].id;
      path = moveActivePath(path, big, id);
      assert.deepEqual([...path.ids].sort(), [...computeActivePath(big, id).ids].sort());
    }
  });
});
