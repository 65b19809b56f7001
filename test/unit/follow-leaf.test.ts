/**
 * The Conversation Tree follows the leaf as entries are appended, as a terminal follows its output:
 * only a view that showed the leaf's row, or was scrolled to the end, moves (issue 11, a new user's finding).
 */
import * as assert from "node:assert/strict";
import { followLeafRow, type ShownBefore } from "../../webview/tree/follow-leaf";

const before = (over: Partial<ShownBefore> = {}): ShownBefore => ({ first: 40, last: 60, rowCount: 200, leafRow: 50, sessionId: "s1", entryCount: 300, ...over });
const appended = { sessionId: "s1", entryCount: 301, leafRow: 51 };

describe("following the leaf on append", () => {
  it("brings the new leaf into view when the old leaf's row was on screen", () => {
    assert.equal(followLeafRow(before(), appended), 51);
    assert.equal(followLeafRow(before({ leafRow: 40 }), appended), 51, "the first row in view counts");
    assert.equal(followLeafRow(before({ leafRow: 59 }), { ...appended, leafRow: 60 }), 60, "also when the new leaf is below the screen");
  });

  it("follows from the end of the list even when the leaf was elsewhere", () => {
    assert.equal(followLeafRow(before({ first: 180, last: 200, leafRow: 10 }), { ...appended, leafRow: 11 }), 11);
  });

  it("stays where the user scrolled when the leaf was not on screen", () => {
    assert.equal(followLeafRow(before({ leafRow: 120 }), { ...appended, leafRow: 121 }), undefined);
    assert.equal(followLeafRow(before({ leafRow: 60 }), { ...appended, leafRow: 61 }), undefined, "the row just below the screen is not shown");
    assert.equal(followLeafRow(before({ leafRow: undefined }), appended), undefined);
  });

  it("moves only on appended entries of the same session, with the leaf on another row", () => {
    assert.equal(followLeafRow(before(), { ...appended, entryCount: 300 }), undefined, "a checkout adds no entry: no jump");
    assert.equal(followLeafRow(before(), { ...appended, sessionId: "s2" }), undefined, "another session scrolls by the host's request");
    assert.equal(followLeafRow(before(), { ...appended, sessionId: null }), undefined);
    assert.equal(followLeafRow(before(), { ...appended, leafRow: 50 }), undefined, "the leaf mark stayed (the new entry is hidden by the filter)");
    assert.equal(followLeafRow(before(), { ...appended, leafRow: undefined }), undefined);
  });

  it("does nothing for a view that showed nothing (collapsed)", () => {
    assert.equal(followLeafRow(before({ first: 0, last: 0, leafRow: 0, rowCount: 0 }), { ...appended, leafRow: 1 }), undefined);
    assert.equal(followLeafRow(before({ first: 200, last: 200 }), appended), undefined);
  });
});
