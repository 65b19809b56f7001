/**
 * The reopen index keeps the timestamps of a restored session as one text, decoded one at a time:
 * every line comes back as split would give it, and a text with the wrong number of lines is refused.
 */
import * as assert from "node:assert/strict";
import { TextLines } from "../../src/core/session/text-lines";

describe("timestamps kept as one text (TextLines)", () => {
  it("gives back every line as split does, empty ones and non-ASCII ones included", () => {
    for (const lines of [[""], ["a"], ["", ""], ["2026-01-01T00:00:00.000Z", "", "x", "ünï 🌳", ""], Array.from({ length: 1000 }, (_, i) => `t${i}`)]) {
      const text = lines.join("\n");
      const kept = TextLines.of(text, lines.length)!;
      assert.ok(kept, JSON.stringify(lines).slice(0, 80));
      assert.equal(kept.length, lines.length);
      assert.deepEqual(kept.toArray(), lines);
      for (let i = 0; i < lines.length; i++) assert.equal(kept.at(i), lines[i]);
    }
    assert.equal(TextLines.of("", 0)!.length, 0);
  });

  it("refuses a text that holds more or fewer lines than the index says", () => {
    assert.equal(TextLines.of("a\nb", 1), undefined);
    assert.equal(TextLines.of("a\nb", 3), undefined);
    assert.equal(TextLines.of("a", 0), undefined);
    assert.equal(TextLines.of("a\nb\n", 2), undefined);
  });
});
