/**
 * The byte-level line scanner behind a fast open: whenever it says a line is plain, JSON.parse
 * must agree that the line is valid and give the same watched fields. Checked on the lines the
 * reference writes, on hand-made edge cases, and on many random mutations of real lines.
 */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIELD_ID, FIELD_PARENT, FIELD_ROLE, FIELD_TIMESTAMP, FIELD_TYPE, fieldEquals, fieldText, LineHead, scanLine, VALUE_ARRAY, VALUE_MISSING, VALUE_NULL, VALUE_OBJECT, VALUE_OTHER, VALUE_STRING } from "../../src/core/session/json-scan";
import { scannedTextless } from "../../src/core/session/textless-scan";
import { isTextlessTurn } from "../../src/core/tree/search-text";
import { summarizeEntry } from "../../src/core/session/summarize";
import { lightMessageEntry } from "../../src/core/session/summary-scan";
import { createRng, generateReferenceSession } from "../support/random-session";
import { loadReference } from "../support/reference";
import { makeTempDir } from "../support/temp-dir";

/** A buffer with the word view the scanner uses, the line starting at `pad` bytes in (to vary alignment). */
function bytesOf(line: string, pad = 0): { buf: Buffer; words: Int32Array; s: number; e: number } {
  const raw = Buffer.from(line, "utf8");
  const memory = new ArrayBuffer(raw.length + pad + 8);
  const buf = Buffer.from(memory);
  raw.copy(buf, pad);
  buf[pad + raw.length] = 0x0a;
  return { buf, words: new Int32Array(memory, 0, memory.byteLength >> 2), s: pad, e: pad + raw.length };
}

/** How the scanner reports a value: objects only for `message` (the one watched object). */
function kindOf(value: unknown, present: boolean, objects = false): number {
  if (!present) return VALUE_MISSING;
  if (typeof value === "string") return VALUE_STRING;
  if (value === null) return VALUE_NULL;
  if (objects && typeof value === "object" && !Array.isArray(value)) return VALUE_OBJECT;
  return VALUE_OTHER;
}

/** Scans `line`; when the scanner says plain, JSON.parse must agree on validity and on every watched field. */
function check(line: string, pad = 0): boolean {
  const { buf, words, s, e } = bytesOf(line, pad);
  const head = new LineHead();
  const plain = scanLine(buf, pad % 2 === 0 ? words : undefined, s, e, head);
  if (!plain) return false;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(line) as Record<string, unknown>;
  } catch (err) {
    assert.fail(`the scanner took an invalid line as plain: ${JSON.stringify(line)} (${(err as Error).message})`);
  }
  assert.ok(value !== null && typeof value === "object" && !Array.isArray(value), `plain but not an object: ${line}`);
  const fields: [number, string][] = [[FIELD_TYPE, "type"], [FIELD_ID, "id"], [FIELD_PARENT, "parentId"], [FIELD_TIMESTAMP, "timestamp"]];
  for (const [field, key] of fields) {
    assert.equal(head.kind[field], kindOf(value[key], key in value), `${key} kind in ${line}`);
    if (head.kind[field] === VALUE_STRING) {
      assert.equal(fieldText(buf, head, field), value[key], `${key} text in ${line}`);
      assert.equal(fieldEquals(buf, head, field, value[key] as string), /^[\x00-\x7f]*$/.test(value[key] as string) && head.escaped[field] === 0);
    }
  }
  const message = value.message as Record<string, unknown> | undefined;
  assert.equal(head.messageKind, kindOf(message, "message" in value, true), `message kind in ${line}`);
  if (head.messageKind === VALUE_OBJECT) {
    assert.equal(head.roleKind, kindOf(message!.role, "role" in message!), `role kind in ${line}`);
    if (head.roleKind === VALUE_STRING) assert.equal(fieldText(buf, head, FIELD_ROLE), message!.role);
    const content = message!.content;
    assert.equal(head.contentKind, Array.isArray(content) && "content" in message! ? VALUE_ARRAY : kindOf(content, "content" in message!), `content kind in ${line}`);
    assert.equal(head.stopReasonKind, kindOf(message!.stopReason, "stopReason" in message!), `stopReason kind in ${line}`);
    if (head.roleKind === VALUE_STRING && message!.role === "assistant") {
      // The loader takes an assistant turn's "no text" mark from the bytes when they are plain enough.
      const textless = scannedTextless(buf, head);
      if (textless !== undefined) assert.equal(textless, isTextlessTurn(message), `textless in ${line}`);
    }
  }
  return true;
}

const PIECES = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "\t", "\r", "0", "-", "1e5", ".5", "null", "true", "fals", "\\u00e9", "\\u12", "\\x", "é", "🌳", '"id":"x",', '"type":"m",', '"message":{"role":"user"},', '"role":"a",', "\u0000", "\u001f"];

function mutate(line: string, rng: ReturnType<typeof createRng>): string {
  let out = line;
  for (let n = rng.between(1, 3); n > 0; n--) {
    const at = rng.int(out.length + 1);
    const roll = rng.int(4);
    if (roll === 0) out = out.slice(0, at) + out.slice(at + rng.between(1, 4));
    else if (roll === 1) out = out.slice(0, at) + rng.pick(PIECES) + out.slice(at);
    else if (roll === 2) out = out.slice(0, at) + rng.pick(PIECES) + out.slice(at + 1);
    else out = out.slice(0, at) + out.slice(at, at + rng.between(1, 12)) + out.slice(at);
  }
  return out;
}

describe("byte-level line scanner", () => {
  const lines: string[] = [];
  let tmp: ReturnType<typeof makeTempDir>;
  before(async () => {
    const pi = await loadReference();
    tmp = makeTempDir();
    for (let seed = 1; seed <= 12; seed++) {
      const { file } = generateReferenceSession(pi, { seed, entries: 80, persistDir: join(tmp.dir, String(seed)), unknownRoles: true });
      if (file) lines.push(...readFileSync(file, "utf8").split("\n").filter(Boolean));
    }
    assert.ok(lines.length > 500);
  });
  after(() => tmp.cleanup());

  it("reads every line the reference writes plainly, at any alignment", () => {
    for (const line of lines) for (const pad of [0, 1, 2, 3]) assert.ok(check(line, pad), `not plain: ${line.slice(0, 120)}`);
  });

  it("agrees with JSON.parse on edge cases, and leaves doubtful lines to it", () => {
    const plain = [
      '{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x"}}',
      '  { "type" : "message" , "id" : "a" ,"parentId":"p", "message" : { "x":[1,-2.5e+3,0,true,false,null,{},[]] , "role":"assistant"} }  ',
      '{"message":{"content":[{"role":"x"}],"role":"toolResult"},"id":"\\u0061b","type":"message","parentId":"\\"q\\""}',
      '{"type":"message","id":"é🌳","parentId":5,"timestamp":7,"message":"not an object"}',
      '{"type":"message","id":"a","parentId":{"x":1},"message":{"role":["user"]}}',
      '{"a":{"id":"nested","type":"not watched"},"id":"b","type":"x"}',
      '{"type":"custom","customType":"c","data":{"s":"\\\\\\"\\/\\b\\f\\n\\r\\t\\u20AC"},"id":"c","parentId":null,"timestamp":"t"}',
      `{"type":"message","id":"long","message":{"role":"user","content":"${"x\\n".repeat(5000)}"}}`,
      "{}",
      '{"type":"message","id":"a"}\r',
    ];
    for (const line of plain) assert.ok(check(line), `expected plain: ${line.slice(0, 100)}`);
    const doubtful = [
      "", "   ", "[1,2]", '"s"', "{", '{"a":1', '{"a":1}}', '{"a":1,}', '{"a" 1}', "{'a':1}", '{"a":01}', '{"a":-}', '{"a":1.}', '{"a":.5}', '{"a":1e}',
      '{"a":tru}', '{"a":nul}', '{"a":"x\\q"}', '{"a":"\\u12g4"}', '{"a":"unterminated}', '{"a":1}{"b":2}', '{"a":1} x',
      '{"a":"tab\tinside"}', '{"a":\t1}', '{"a":"nul\u0000"}',
      '{"id":"a","id":"b"}', '{"type":"message","type":"x"}', '{"message":{"role":"a","role":"b"}}', '{"message":{},"message":{}}',
      '{"i\\u0064":"a"}', '{"message":{"r\\u006fle":"user"}}',
    ];
    for (const line of doubtful) assert.equal(check(line), false, `expected doubtful: ${JSON.stringify(line)}`);
  });

  it("never takes a broken line for a plain one (random mutations of real lines)", () => {
    const rng = createRng(20260101);
    let plain = 0;
    let invalidDoubtful = 0;
    for (let n = 0; n < 30_000; n++) {
      const line = mutate(rng.pick(lines), rng);
      if (check(line, rng.int(4))) plain++;
      else {
        try {
          JSON.parse(line);
        } catch {
          invalidDoubtful++;
        }
      }
    }
    // Both sides must be exercised, or the test proves little.
    assert.ok(plain > 3000 && invalidDoubtful > 10_000, `plain ${plain}, invalid ${invalidDoubtful}`);
  });
});

describe("light reading of a message line for its summary", () => {
  /** The summary from the light read equals the one from a full parse (or the light read declines). */
  function same(line: string): boolean {
    const { buf, s, e } = bytesOf(line, 3);
    const light = lightMessageEntry(buf, s, e);
    if (!light) return false;
    assert.deepEqual(summarizeEntry(light, 7), summarizeEntry(JSON.parse(line) as Record<string, unknown>, 7), line.slice(0, 200));
    return true;
  }

  it("gives every summary field exactly, previews included, on the reference's lines", async () => {
    const pi = await loadReference();
    const tmp = makeTempDir();
    try {
      let n = 0;
      for (let seed = 1; seed <= 15; seed++) {
        const { file } = generateReferenceSession(pi, { seed, entries: 100, persistDir: join(tmp.dir, String(seed)), unknownRoles: true });
        for (const line of readFileSync(file!, "utf8").split("\n").filter((l) => l.startsWith('{"type":"message"'))) {
          assert.ok(same(line), `declined: ${line.slice(0, 100)}`);
          n++;
        }
      }
      assert.ok(n > 800, `${n} lines`);
    } finally {
      tmp.cleanup();
    }
  });

  it("cuts long texts at a clean point: escapes, surrogate pairs and multi-byte characters around the cut", () => {
    const rng = createRng(77);
    const pieces = ["a", " ", "\n", "\t", '"', "\\", "é", "日本", "🌳", "\u0000", "\u2028", "   \n\n  ", "x".repeat(50)];
    for (let n = 0; n < 400; n++) {
      let text = "";
      const target = rng.between(300, 5000);
      while (text.length < target) text += rng.pick(pieces).replace(/\\u0000/, "\u0000").replace(/\\u2028/, "\u2028");
      const roll = rng.int(6);
      const message =
        roll === 0 ? { role: "user", content: text, timestamp: 1 }
        : roll === 1 ? { role: "assistant", content: [{ type: "thinking", thinking: text }, { type: "toolCall", id: "c", name: "bash", arguments: { command: text } }], stopReason: rng.pick(["stop", "toolUse", "error", "aborted"]), errorMessage: rng.chance(0.5) ? text : undefined, timestamp: 1 }
        : roll === 2 ? { role: "assistant", content: [{ type: "text", text: rng.chance(0.5) ? " ".repeat(rng.between(390, 2500)) + text : text }, { type: "toolCall", id: "c", name: "read", arguments: {} }], stopReason: "toolUse", timestamp: 1 }
        : roll === 3 ? { role: "toolResult", toolCallId: "c", toolName: "bash", content: [{ type: "text", text }, { type: "image", data: "AAAA", mimeType: "image/png" }], isError: rng.chance(0.5), timestamp: 1 }
        : roll === 4 ? { role: "bashExecution", command: text, output: text, exitCode: rng.pick([0, 1, undefined]), cancelled: rng.chance(0.2), truncated: false, timestamp: 1 }
        : { role: "custom", customType: "x", content: [{ type: "text", text }], display: true, timestamp: 1 };
      const line = JSON.stringify({ type: "message", id: "abcd0123", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message });
      assert.ok(same(line));
    }
  });

  it("declines lines it cannot read plainly, and agrees on odd shapes", () => {
    for (const line of [
      '{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":{"odd":1}}}',
      '{"type":"message","id":"a","message":{"role":"assistant","content":["str",5,null,{"type":"text","text":"x"}],"stopReason":"stop"}}',
      '{ "type" : "message" , "id" : "a" , "message" : { "content" : [ { "text" : "late" , "type" : "text" } ] , "role" : "user" } , "id" : "b" }',
      '{"type":"message","id":"a","message":"not an object"}',
      '{"type":"message","id":"a","message":{"role":"toolResult","toolName":"\\u0062ash","isError":true,"content":[]}}',
    ]) assert.ok(same(line), line);
    for (const line of ['{"type":"message","id":"a","message":{"r\\u006fle":"user"}}', '{"type":"message","id":"a","message":{"role":"user"', "[1]"]) {
      const { buf, s, e } = bytesOf(line);
      assert.equal(lightMessageEntry(buf, s, e), undefined, line);
    }
  });
});
