import * as assert from "node:assert/strict";
import { readSseEvents, SseParser, type SseEvent } from "../../src/core/agent/providers/sse";

const encoder = new TextEncoder();

function parseWhole(bytes: Uint8Array): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(bytes), ...parser.end()];
}

function parsePieces(pieces: Uint8Array[]): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const piece of pieces) events.push(...parser.push(piece));
  events.push(...parser.end());
  return events;
}

/** A stream mixing every framing feature: BOM, comments, CRLF, CR, LF, multi-line data, multi-byte text. */
const MIXED_STREAM =
  "\uFEFF: keep-alive comment\r\n" +
  'data: {"text":"héllo 👋"}\r\n\r\n' +
  "event: update\n" +
  "id: 42\n" +
  "data: first line\n" +
  "data:second line without space\n" +
  "data\n" +
  "\n" +
  ":another comment\r" +
  "data: cr only 中文\r\r" +
  "retry: 1500\n" +
  "unknown-field: ignored\n" +
  "data: [DONE]\n\n";

const MIXED_EXPECTED: SseEvent[] = [
  { event: "message", data: '{"text":"héllo 👋"}' },
  { event: "update", data: "first line\nsecond line without space\n", id: "42" },
  { event: "message", data: "cr only 中文", id: "42" },
  { event: "message", data: "[DONE]", id: "42", retry: 1500 },
];

describe("SseParser", () => {
  it("parses every framing feature of a whole stream", () => {
    assert.deepEqual(parseWhole(encoder.encode(MIXED_STREAM)), MIXED_EXPECTED);
  });

  it("gives the same events when the bytes are split at every single boundary", () => {
    const bytes = encoder.encode(MIXED_STREAM);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const events = parsePieces([bytes.subarray(0, cut), bytes.subarray(cut)]);
      assert.deepEqual(events, MIXED_EXPECTED, `split at byte ${cut}`);
    }
  });

  it("gives the same events when every byte arrives alone", () => {
    const bytes = encoder.encode(MIXED_STREAM);
    const pieces = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(parsePieces(pieces), MIXED_EXPECTED);
  });

  it("gives the same events for every pair of split points in a short stream", () => {
    const stream = 'data: a€\r\n\r\ndata: "b"\r\ndata: 😀\r\r';
    const bytes = encoder.encode(stream);
    const expected = parseWhole(bytes);
    assert.deepEqual(expected, [
      { event: "message", data: "a€" },
      { event: "message", data: '"b"\n😀' },
    ]);
    for (let first = 0; first <= bytes.length; first++) {
      for (let second = first; second <= bytes.length; second++) {
        const pieces = [bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)];
        assert.deepEqual(parsePieces(pieces), expected, `split at ${first} and ${second}`);
      }
    }
  });

  it("treats a CR at the end of one chunk and an LF at the start of the next as one line break", () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push("data: x\r"), []);
    // Had the LF counted as a second line break, the event would be dispatched here with no blank line.
    assert.deepEqual(parser.push("\n"), []);
    assert.deepEqual(parser.push("\r\n"), [{ event: "message", data: "x" }]);
  });

  it("does not dispatch an event that only has comments or no data", () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push(": ping\n\nevent: nothing\n\n"), []);
    assert.deepEqual(parser.end(), []);
  });

  it("dispatches a last event whose blank line never came when the stream ends", () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push("data: [DONE]"), []);
    assert.deepEqual(parser.end(), [{ event: "message", data: "[DONE]" }]);
  });

  it("keeps a UTF-8 character split across chunks intact", () => {
    const bytes = encoder.encode("data: 👋\n\n");
    const parser = new SseParser();
    const events = [...parser.push(bytes.subarray(0, 8)), ...parser.push(bytes.subarray(8)), ...parser.end()];
    assert.deepEqual(events, [{ event: "message", data: "👋" }]);
  });

  it("reads events from an async byte stream", async () => {
    async function* body(): AsyncGenerator<Uint8Array> {
      yield encoder.encode("data: one\n");
      yield encoder.encode("\ndata: tw");
      yield encoder.encode("o\n\n");
    }
    const events: SseEvent[] = [];
    for await (const event of readSseEvents(body())) events.push(event);
    assert.deepEqual(events.map((event) => event.data), ["one", "two"]);
  });
});
