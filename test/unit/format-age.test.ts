import * as assert from "node:assert/strict";
import { formatAge, sessionTimesText } from "../../src/core/util/format-age";

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

describe("sessionTimesText", () => {
  const iso = (d: Date) => d.toISOString();
  it("names a last message older than the file (a fork) as such, not as a modification before the creation", () => {
    const created = new Date("2026-12-03T16:26:00.000Z");
    const older = new Date("2026-12-03T15:45:00.000Z");
    assert.equal(sessionTimesText(created, older, iso), "created 2026-12-03T16:26:00.000Z · last message 2026-12-03T15:45:00.000Z (copied from an earlier session)");
    const later = new Date("2026-12-03T17:00:00.000Z");
    assert.equal(sessionTimesText(created, later, iso), "modified 2026-12-03T17:00:00.000Z · created 2026-12-03T16:26:00.000Z");
    assert.equal(sessionTimesText(new Date("not a date"), later, iso), "modified 2026-12-03T17:00:00.000Z");
  });
});
