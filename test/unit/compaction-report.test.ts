import * as assert from "node:assert/strict";
import { compactionReport, replacedEntryCount } from "../../src/core/compaction/compaction-report";

describe("compaction report", () => {
  const path = (...ids: string[]) => [...ids.map((id) => ({ id, type: "message" })), { id: "K", type: "compaction" }];

  it("counts the path entries before the first kept one, and the whole path when that one is not on it", () => {
    assert.equal(replacedEntryCount(path("u1", "a1", "u2"), "u1"), 0, "a 3-entry session keeps all");
    assert.equal(replacedEntryCount(path("u1", "a1", "u2", "a2"), "u2"), 2);
    assert.equal(replacedEntryCount(path("u1", "a1"), "elsewhere"), 2);
  });

  it("says a compaction that replaced nothing replaced nothing, instead of counting the context's tokens as compacted", () => {
    assert.equal(compactionReport(0, 1_600), "Compacted: nothing was old enough to replace, every entry is kept as it is");
    assert.equal(compactionReport(12, 48_213), "Compacted 12 entries of history (48k tokens of context before) into a summary");
    assert.equal(compactionReport(1, 900), "Compacted 1 entry of history (900 tokens of context before) into a summary");
  });
});
