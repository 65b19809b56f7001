/** Output capping: tail and head cuts, sanitizing, and the full-output file of a streamed capture. */
import * as assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { OutputCapture } from "../../src/core/agent/output/output-capture";
import { sanitizeOutput, truncateHead, truncateTail } from "../../src/core/agent/output/output-limits";
import { makeTempDir } from "../support/temp-dir";

const lines = (n: number, from = 1): string => Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n");

describe("agent output limits", () => {
  it("truncateTail keeps the last whole lines within the line limit", () => {
    const cut = truncateTail(lines(10), { maxLines: 3, maxBytes: 10_000 });
    assert.equal(cut.truncated, true);
    assert.equal(cut.content, "line 8\nline 9\nline 10");
    assert.equal(cut.totalLines, 10);
    assert.equal(cut.keptLines, 3);
  });

  it("truncateTail keeps the last whole lines within the byte limit", () => {
    const text = lines(10);
    const cut = truncateTail(text, { maxLines: 100, maxBytes: 15 });
    assert.equal(cut.content, "line 9\nline 10");
    assert.ok(Buffer.byteLength(cut.content) <= 15);
    assert.equal(cut.totalBytes, Buffer.byteLength(text));
  });

  it("truncateTail cuts an over-long last line on a character boundary", () => {
    const text = `short\n${"é".repeat(20)}`;
    const cut = truncateTail(text, { maxLines: 100, maxBytes: 7 });
    assert.equal(cut.truncated, true);
    assert.equal(cut.content, "ééé", "7 bytes allow three 2-byte characters; the split one is dropped");
  });

  it("leaves text within the limits untouched", () => {
    const text = lines(5);
    assert.deepEqual(truncateTail(text, { maxLines: 5, maxBytes: 1000 }), { content: text, truncated: false, totalLines: 5, totalBytes: text.length, keptLines: 5 });
    assert.equal(truncateHead(text, { maxLines: 5, maxBytes: 1000 }).truncated, false);
  });

  it("truncateHead keeps the first whole lines", () => {
    const cut = truncateHead(lines(10), { maxLines: 4, maxBytes: 1000 });
    assert.equal(cut.content, lines(4));
    assert.equal(truncateHead(lines(10), { maxLines: 100, maxBytes: 13 }).content, "line 1\nline 2");
  });

  it("sanitizeOutput drops colour codes, carriage returns and binary control bytes, keeping tabs and newlines", () => {
    assert.equal(sanitizeOutput("\u001b[31mred\u001b[0m\tok\r\nnext\u0000\u0007"), "red\tok\nnext");
  });
});

describe("OutputCapture", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  beforeEach(() => (tmp = makeTempDir()));
  afterEach(() => tmp.cleanup());

  it("returns small output whole, with no file", async () => {
    const capture = new OutputCapture({ limits: { maxLines: 10, maxBytes: 100 }, directory: tmp.dir });
    capture.append(Buffer.from("hello\n"));
    capture.append("world\n");
    assert.deepEqual(await capture.finish(), { output: "hello\nworld\n", truncated: false });
  });

  it("keeps the tail of long streamed output and writes all of it, first byte included, to a file", async () => {
    const capture = new OutputCapture({ limits: { maxLines: 20, maxBytes: 400 }, directory: tmp.dir });
    const whole = `${lines(3000)}\n`;
    for (let i = 0; i < whole.length; i += 97) capture.append(Buffer.from(whole.slice(i, i + 97)));
    const out = await capture.finish();
    assert.equal(out.truncated, true);
    assert.ok(out.fullOutputPath && existsSync(out.fullOutputPath));
    assert.equal(readFileSync(out.fullOutputPath, "utf8"), whole);
    assert.equal(out.output, truncateTail(whole, { maxLines: 20, maxBytes: 400 }).content);
    assert.ok(out.output.endsWith("line 3000\n"));
  });

  it("decodes a character split across chunks", async () => {
    const capture = new OutputCapture({ directory: tmp.dir });
    const bytes = Buffer.from("snow ☃ man");
    capture.append(bytes.subarray(0, 6));
    capture.append(bytes.subarray(6));
    assert.equal((await capture.finish()).output, "snow ☃ man");
  });

  it("still returns the tail when the full-output file cannot be written", async () => {
    // A file where the folder should be: no folder can be made there.
    writeFileSync(`${tmp.dir}/not-a-folder`, "");
    const capture = new OutputCapture({ limits: { maxLines: 2, maxBytes: 1000 }, directory: `${tmp.dir}/not-a-folder/output` });
    capture.append(lines(10));
    const out = await capture.finish();
    assert.equal(out.truncated, true);
    assert.equal(out.output, "line 9\nline 10");
    assert.equal(out.fullOutputPath, undefined);
  });

  it("creates the folder of the full-output file when it does not exist yet", async () => {
    const directory = `${tmp.dir}/storage/output`;
    const capture = new OutputCapture({ limits: { maxLines: 2, maxBytes: 1000 }, directory });
    capture.append(lines(10));
    const out = await capture.finish();
    assert.ok(out.fullOutputPath?.startsWith(`${directory}/`), "the file is in the asked-for folder");
    assert.equal(readFileSync(out.fullOutputPath!, "utf8"), lines(10));
  });

  it("caps the full-output file at its byte limit and says so at the cut", async () => {
    const capture = new OutputCapture({ limits: { maxLines: 5, maxBytes: 100 }, directory: tmp.dir, maxFileBytes: 1000 });
    const whole = `${lines(5000)}\n`;
    for (let i = 0; i < whole.length; i += 333) capture.append(whole.slice(i, i + 333));
    const out = await capture.finish();
    assert.ok(out.output.endsWith("line 5000\n"), "the inline tail is still the end of the output");
    const saved = readFileSync(out.fullOutputPath!, "utf8");
    assert.ok(saved.startsWith(whole.slice(0, 1000)), "the file keeps the head, up to the cap");
    assert.match(saved.slice(1000), /^\n\[Arbor: the output went on; only its first 1000 bytes were saved to this file\.\]\n$/);
  });
});
