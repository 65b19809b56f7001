import * as assert from "node:assert/strict";
import { parseToolArguments } from "../../src/core/agent/providers/tool-arguments";

describe("parseToolArguments", () => {
  it("parses complete JSON objects", () => {
    assert.deepEqual(parseToolArguments('{"path":"a.ts","n":[1,2]}'), { path: "a.ts", n: [1, 2] });
  });

  it("gives an empty object for empty text and for JSON that is not an object", () => {
    assert.deepEqual(parseToolArguments(""), {});
    assert.deepEqual(parseToolArguments("   "), {});
    assert.deepEqual(parseToolArguments("[1,2]"), {});
    assert.deepEqual(parseToolArguments('"text"'), {});
  });

  it("keeps what it can of arguments cut off mid-stream", () => {
    assert.deepEqual(parseToolArguments('{"command":"echo hel'), { command: "echo hel" });
    assert.deepEqual(parseToolArguments('{"a":1,"b":[1,2'), { a: 1, b: [1, 2] });
    assert.deepEqual(parseToolArguments('{"a":{"b":"c"},'), { a: { b: "c" } });
    assert.deepEqual(parseToolArguments('{"a":1,"b'), { a: 1 });
    assert.deepEqual(parseToolArguments('{"a":"x \\" y'), { a: 'x " y' });
  });

  it("gives an empty object where nothing sensible can be completed", () => {
    assert.deepEqual(parseToolArguments('{"a":'), {});
    assert.deepEqual(parseToolArguments('{"a":tr'), {});
    assert.deepEqual(parseToolArguments('{"a":"x\\'), {});
  });

  it("recovers the same prefix of every cut of a real argument text", () => {
    const full = { path: "src/ä.ts", edits: [{ old: "a", new: "b\n" }], dryRun: false };
    const text = JSON.stringify(full);
    for (let cut = 0; cut <= text.length; cut++) {
      const parsed = parseToolArguments(text.slice(0, cut));
      assert.equal(typeof parsed, "object", `cut ${cut}`);
      // Whatever is recovered must be consistent with the full arguments: every recovered key exists in them.
      for (const key of Object.keys(parsed)) assert.ok(key in full, `cut ${cut} invented key ${key}`);
    }
    assert.deepEqual(parseToolArguments(text), full);
  });
});
