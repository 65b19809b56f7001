import * as assert from "node:assert/strict";
import { formatAge } from "../../src/core/util/format-age";

describe("formatAge", () => {
  it("says how long ago, in list form", () => {
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    const ago = (s: number) => formatAge(new Date(now - s * 1000), now);
    assert.equal(ago(5), "just now");
    assert.equal(ago(-30), "just now", "a clock a little ahead is not the future");
    assert.equal(ago(61), "1m ago");
    assert.equal(ago(3 * 3600 + 5), "3h ago");
    assert.equal(ago(2 * 86400), "2d ago");
    assert.equal(ago(40 * 86400), "2026-01-20");
  });
});
