/**
 * The id -> position index behaves exactly like a Map<string, number> (the last set wins, `set`
 * says whether the id was new), for Pi's 8-hex ids (kept in typed arrays) and for every other
 * id (kept in a Map), across the table's growth and with ids whose hashes collide.
 */
import * as assert from "node:assert/strict";
import { hexIdValue, IdIndex } from "../../src/core/session/id-index";
import { Rng } from "../bench/rng";

describe("the entry id index", () => {
  it("reads 8 lowercase hex characters as their value, and nothing else", () => {
    assert.equal(hexIdValue("00000000"), 0);
    assert.equal(hexIdValue("ffffffff"), 0xffffffff);
    assert.equal(hexIdValue("0a1b2c3d"), 0x0a1b2c3d);
    for (const other of ["", "0a1b2c3", "0a1b2c3d4", "0A1B2C3D", "0a1b2c3g", "0a1b-c3d", "a1b2c3d4-0000-7000-8000-000000000000"]) {
      assert.equal(hexIdValue(other), -1, other);
    }
  });

  it("answers as a Map does for random ids of every kind, repeated ids and growth", () => {
    const rng = new Rng(7);
    const index = new IdIndex();
    const map = new Map<string, number>();
    const hex = () => rng.int(0, 0xffffffff).toString(16).padStart(8, "0");
    const ids: string[] = [];
    for (let i = 0; i < 50_000; i++) {
      const kind = rng.int(0, 9);
      // mostly Pi's ids; some repeats (a duplicate id in a file), some UUIDs and odd ids from other writers
      const id = kind < 7 ? hex() : kind === 7 && ids.length ? ids[rng.int(0, ids.length - 1)]! : kind === 8 ? `${hex()}-0000-7000-8000-${hex()}0000` : hex().toUpperCase();
      ids.push(id);
      const before = map.size;
      map.set(id, i);
      assert.equal(index.set(id, i), map.size !== before, `set ${id}`);
    }
    assert.equal(index.size, map.size);
    for (const id of ids) assert.equal(index.get(id), map.get(id), id);
    for (let i = 0; i < 2_000; i++) {
      const id = hex();
      assert.equal(index.get(id), map.get(id));
      assert.equal(index.has(id), map.has(id));
    }
  });

  it("keeps ids apart whose slots collide (values that differ only in high bits)", () => {
    const index = new IdIndex();
    const ids = Array.from({ length: 5_000 }, (_, i) => ((i * 0x10000000 + i) >>> 0).toString(16).padStart(8, "0"));
    ids.forEach((id, i) => assert.equal(index.set(id, i), true, id));
    ids.forEach((id, i) => assert.equal(index.get(id), i, id));
    assert.equal(index.set(ids[0]!, -5), false);
    assert.equal(index.get(ids[0]!), -5);
  });
});
