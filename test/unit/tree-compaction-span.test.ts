import * as assert from "node:assert/strict";
import { compactionSpan } from "../../src/core/tree/compaction-span";
import { projectTree } from "../../src/core/tree/projection";
import { chain, entry } from "../support/webview-harness.fixtures";

describe("compaction span", () => {
  // a - b - c - d - K(compaction, keeps from c) - e
  //      \- x
  const entries = [
    ...chain(["a", "b", "c", "d"]),
    entry("x", "b"),
    entry("K", "d", { type: "compaction", tokensBefore: 48_000, firstKeptEntryId: "c" }),
    entry("e", "K"),
    entry("L", "x", { type: "compaction", tokensBefore: 1, firstKeptEntryId: "c" }),
  ];
  const p = projectTree(entries);

  it("is the path entries before firstKeptEntryId", () => {
    const span = compactionSpan(p, "K");
    assert.deepEqual(span?.replacedIds, ["a", "b"]);
    assert.equal(span?.keptFound, true);
    assert.equal(span?.tokensBefore, 48_000);
  });

  it("is the whole path before the compaction when firstKeptEntryId is not on it", () => {
    const span = compactionSpan(p, "L");
    assert.deepEqual(span?.replacedIds, ["a", "b", "x"]);
    assert.equal(span?.keptFound, false);
  });

  it("is undefined for an entry that is not a compaction", () => {
    assert.equal(compactionSpan(p, "c"), undefined);
    assert.equal(compactionSpan(p, "nope"), undefined);
  });
});

interface RefContext {
  messages: { role: string; content?: unknown }[];
}
interface RefPackage {
  buildSessionContext(entries: unknown[], leafId?: string | null): RefContext;
}

describe("compaction span against the reference's context resolution", () => {
  it("leaves exactly the kept entries in the context of the compaction", async () => {
    const pi = (await import("@mariozechner/pi-coding-agent")) as unknown as RefPackage;
    const ids = ["a", "b", "c", "d", "e", "f"];
    const summaries = [
      ...chain(ids),
      entry("K", "f", { type: "compaction", tokensBefore: 10, firstKeptEntryId: "d" }),
    ];
    const full = summaries.map((s) =>
      s.type === "compaction"
        ? { type: "compaction", id: s.id, parentId: s.parentId, timestamp: s.timestamp, summary: "sum", firstKeptEntryId: "d", tokensBefore: 10 }
        : { type: "message", id: s.id, parentId: s.parentId, timestamp: s.timestamp, message: { role: "user", content: s.id, timestamp: Date.parse(s.timestamp) } },
    );
    const context = pi.buildSessionContext(full, "K");
    const keptByReference = context.messages.filter((m) => m.role === "user").map((m) => m.content);
    const span = compactionSpan(projectTree(summaries), "K");
    assert.ok(span);
    const keptByUs = ids.filter((id) => !span.replacedIds.includes(id));
    assert.deepEqual(keptByUs, keptByReference);
  });
});
