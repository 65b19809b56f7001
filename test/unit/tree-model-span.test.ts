import * as assert from "node:assert/strict";
import { TreeModel } from "../../src/core/tree/tree-model";
import { chain, entry } from "../support/webview-harness.fixtures";

interface RefContext {
  messages: { role: string; content?: unknown }[];
}
interface RefPackage {
  buildSessionContext(entries: unknown[], leafId?: string | null): RefContext;
}

describe("compaction span against the reference's context resolution", () => {
  for (const kept of ["d", "a", "f", "nowhere"]) {
    it(`leaves exactly the kept entries in the context of the compaction (firstKeptEntryId ${kept})`, async () => {
      const pi = (await import("@mariozechner/pi-coding-agent")) as unknown as RefPackage;
      const ids = ["a", "b", "c", "d", "e", "f"];
      const summaries = [...chain(ids), entry("K", "f", { type: "compaction", tokensBefore: 10, firstKeptEntryId: kept })];
      const full = summaries.map((s) =>
        s.type === "compaction"
          ? { type: "compaction", id: s.id, parentId: s.parentId, timestamp: s.timestamp, summary: "sum", firstKeptEntryId: kept, tokensBefore: 10 }
          : { type: "message", id: s.id, parentId: s.parentId, timestamp: s.timestamp, message: { role: "user", content: s.id, timestamp: Date.parse(s.timestamp) } },
      );
      const context = pi.buildSessionContext(full, "K");
      const keptByReference = context.messages.filter((m) => m.role === "user").map((m) => m.content);
      const model = TreeModel.create();
      model.load({ sessionId: "s", name: null, entries: summaries, labels: [], leafId: "K" });
      model.select("K");
      const keptByUs = ids.filter((id) => model.spanState(model.index.positionOf(id)!) !== "replaced");
      assert.deepEqual(keptByUs, keptByReference);
      assert.equal(model.compactionSpan()?.replacedCount, ids.length - keptByReference.length);
    });
  }
});
