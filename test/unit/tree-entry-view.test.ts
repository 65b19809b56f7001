import * as assert from "node:assert/strict";
import { accessibleNameOf, describeEntry, formatCount, formatTokens } from "../../src/core/tree/entry-view";
import { entry } from "../support/webview-harness.fixtures";

describe("entry view (the row model)", () => {
  it("keeps markup in previews as literal text", () => {
    const hostile = ["<script>alert(1)</script>", '<img src=x onerror="window.pwned=1">', "&lt;b&gt; &amp;"];
    for (const preview of hostile) {
      const view = describeEntry(entry("x", null, { role: "user", preview }));
      assert.equal(view.text, preview);
      assert.ok(accessibleNameOf(view).includes(preview));
    }
  });

  it("describes each kind of entry with its own icon and tag", () => {
    const cases = [
      [entry("a", null, { role: "user" }), "user", "account", "user"],
      [entry("b", null, { role: "assistant" }), "assistant", "hubot", "assistant"],
      [entry("c", null, { role: "toolResult", toolName: "grep" }), "tool-result", "tools", "grep"],
      [entry("d", null, { role: "bashExecution" }), "bash", "terminal", "bash"],
      [entry("e", null, { type: "compaction", tokensBefore: 48_213 }), "compaction", "fold", "compaction"],
      [entry("f", null, { type: "branch_summary" }), "branch-summary", "git-merge", "branch summary"],
      [entry("g", null, { type: "label", label: "ok" }), "label", "tag", "label"],
      [entry("h", null, { type: "model_change", provider: "p", modelId: "m" }), "model-change", "chip", "model"],
      [entry("i", null, { type: "new_kind" }), "unknown", "question", "new_kind"],
    ] as const;
    for (const [e, kind, icon, tag] of cases) {
      const view = describeEntry(e);
      assert.deepEqual([view.kind, view.icon, view.tag], [kind, icon, tag], e.id);
    }
    assert.equal(describeEntry(cases[4][0]).detail, "48k tokens");
    assert.equal(describeEntry(cases[7][0]).text, "p/m");
  });

  it("marks errors", () => {
    const view = describeEntry(entry("e", null, { role: "toolResult", isError: true }));
    assert.equal(view.isError, true);
    assert.equal(view.icon, "error");
    assert.ok(accessibleNameOf(view).includes("error"));
  });

  it("names a row with its label and its place on the path", () => {
    const view = describeEntry(entry("a", null, { role: "user", preview: "fix it" }));
    assert.equal(accessibleNameOf(view, { label: "good", isLeaf: true }), "user: fix it, label good, current leaf");
    assert.equal(accessibleNameOf(view, { onActivePath: true }), "user: fix it, on active path");
  });

  it("formats token counts compactly", () => {
    assert.equal(formatTokens(999), "999");
    assert.equal(formatTokens(1500), "1.5k");
    assert.equal(formatTokens(48_213), "48k");
    assert.equal(formatTokens(1_250_000), "1.3M");
    assert.equal(formatTokens(Number.NaN), "0");
  });

  it("formats counts with thousands separators", () => {
    assert.deepEqual([0, 999, 1000, 100_000, 1_234_567].map(formatCount), ["0", "999", "1,000", "100,000", "1,234,567"]);
  });
});
